// Shared by the pages that change things: JSON POSTs carrying the session's CSRF token (X-CSRF-Token),
// and the result line (#result) that says what happened.
window.thoughtwave = (function () {
  "use strict";
  let token = document.querySelector('meta[name="csrf-token"]').getAttribute("content");

  function show(ok, text) {
    const result = document.getElementById("result");
    if (!result) return;
    result.className = "result " + (ok ? "good" : "bad");
    result.textContent = text;
  }

  async function post(url, body) {
    try {
      const response = await fetch(url, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-CSRF-Token": token },
        body: JSON.stringify(body || {}),
        credentials: "same-origin",
      });
      const data = await response.json().catch(() => ({}));
      if (!response.ok) {
        show(false, data.error || "refused (" + response.status + ")");
        return null;
      }
      return data;
    } catch (err) {
      show(false, "the companion did not answer");
      return null;
    }
  }

  // A login hands out a new session and with it a new token.
  function useToken(value) {
    token = value;
  }

  return { post, show, useToken };
})();
