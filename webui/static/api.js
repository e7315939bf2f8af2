// Shared by the pages that change things: JSON POSTs carrying the session's CSRF token (X-CSRF-Token),
// and the result line that says what happened (#result, or the one given: near the button pressed).
window.thoughtwave = (function () {
  "use strict";
  let token = document.querySelector('meta[name="csrf-token"]').getAttribute("content");
  const _ = (message, values) => (window.thoughtwaveI18n ? window.thoughtwaveI18n.gettext(message, values) : message);

  // kind: "good" (applied), "bad" (refused: an alert) or "wait" (waiting for the board).
  function show(ok, text, where) {
    const result = where || document.getElementById("result");
    if (!result) return;
    const kind = ok === true ? "good" : ok === false ? "bad" : ok;
    result.className = "result " + kind;
    result.setAttribute("role", kind === "bad" ? "alert" : "status");
    result.textContent = text;
    if (text && result.scrollIntoView) result.scrollIntoView({ block: "nearest" });
  }

  async function post(url, body, where) {
    try {
      const response = await fetch(url, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-CSRF-Token": token },
        body: JSON.stringify(body || {}),
        credentials: "same-origin",
      });
      const data = await response.json().catch(() => ({}));
      if (!response.ok) {
        show(false, data.error || _("Refused (%(status)s).", { status: response.status }), where);
        return null;
      }
      return data;
    } catch (err) {
      show(false, _("The companion did not answer: is it running, and is this device on its network?"), where);
      return null;
    }
  }

  // A login hands out a new session and with it a new token.
  function useToken(value) {
    token = value;
  }

  return { post, show, useToken };
})();
