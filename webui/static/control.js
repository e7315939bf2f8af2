// Control page: every action is a JSON POST through api.js (which carries the CSRF token).
(function () {
  "use strict";
  const { post, show } = window.thoughtwave;

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
