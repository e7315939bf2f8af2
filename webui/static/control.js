// Control page: every action is a JSON POST carrying the session's CSRF token in X-CSRF-Token.
(function () {
  "use strict";
  const token = document.querySelector('meta[name="csrf-token"]').getAttribute("content");
  const result = document.getElementById("result");

  function show(ok, text) {
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

  for (const button of document.querySelectorAll("button[data-action]")) {
    button.addEventListener("click", async () => {
      if (button.dataset.confirm && !window.confirm(button.dataset.confirm)) return;
      const state = await post(button.dataset.action, {});
      if (state) show(true, "Done. " + (state.next ? state.next + " to move" : "result: " + state.result));
    });
  }

  for (const form of document.querySelectorAll("form[data-action]")) {
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const body = {};
      for (const [key, value] of new FormData(form).entries()) {
        if (value !== "") body[key] = value;
      }
      if (form.id === "correct" && !body.piece) body.piece = null;
      const state = await post(form.dataset.action, body);
      if (state) show(true, "Done: game " + state.game.id + ", " + (state.next ? state.next + " to move" : state.result));
    });
  }
})();
