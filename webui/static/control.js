// Control page: every action is a JSON POST through api.js (which carries the CSRF token); its answer's
// "done" says what happened, shown next to the button pressed. The "This game" card follows the same
// event stream as the display (/api/events), and a correction that waits for the board is reported
// when the referee rules on its cell. Keep the sentences alike with webui/words.py.
(function () {
  "use strict";
  const { post, show } = window.thoughtwave;
  let pending = null;          // {cell, after, where}: a correction waiting for the board
  let latest = null;

  function resultOf(element) {
    return element.closest("section").querySelector(".result");
  }

  function moves(n) {
    return n === 1 ? "1 move" : n + " moves";
  }

  function title(colour) {
    return colour.charAt(0).toUpperCase() + colour.slice(1);
  }

  function summary(state) {
    const game = state.game;
    const count = state.moves.filter((m) => m.verdict !== "rejected").length;
    const players = (game.red || "Red") + " (red) against " + (game.black || "Black") + " (black)";
    let status;
    if (state.winner) {
      status = title(state.winner) + " won, linking " + state.sides[state.winner] + ", in " + moves(count) + ".";
    } else if (state.draw) {
      status = "A draw, after " + moves(count) + ".";
    } else if (game.ended) {
      status = "Ended with no winner after " + moves(count) + ": clear the board to start the next game.";
    } else {
      status = (state.next ? title(state.next) + " to move; " : "") + moves(count) + " so far.";
    }
    const c = state.computer;
    const against = c ? " The computer plays " + c.colour + " at level " + c.level + ", up to " + c.seconds + " s a move." : "";
    return "Game " + game.id + ": " + players + ". " + status + against;
  }

  function verdictWords(m) {
    const who = title(m.colour || "a") + "'s " + m.move.split("@")[0];
    const cell = m.move.split("@")[1];
    if (m.verdict === "legal") return who + " on " + cell + " counts: a legal move.";
    if (m.verdict === "illegal") return who + " on " + cell + " is an illegal placement (" + m.reason + "); the penalty applies.";
    return "The referee refused " + who + " on " + cell + ": " + m.reason + ".";
  }

  function update(state) {
    latest = state;
    const text = document.getElementById("game-summary");
    if (text) text.textContent = summary(state);
    // An ended game takes nothing more; a won or drawn one may still have its last move taken back.
    const over = Boolean(state.winner || state.draw);
    const abandoned = Boolean(state.game.ended) && !over;
    const undo = document.querySelector('button[data-ask="ask-undo"]');
    const end = document.querySelector('button[data-ask="ask-end"]');
    if (undo) undo.disabled = abandoned;
    if (end) end.disabled = abandoned || over;
    if (pending) {
      if (state.game.id !== pending.game) {
        show("bad", "The correction of " + pending.cell + " was not ruled on: another game has started.", pending.where);
        pending = null;
        return;
      }
      const ruled = state.moves.slice(pending.after).find((m) => m.move.endsWith("@" + pending.cell));
      if (ruled) {
        show(ruled.verdict === "rejected" ? "bad" : "good", "Ruled: " + verdictWords(ruled), pending.where);
        pending = null;
      }
    }
  }

  function report(state, where) {
    const done = state.done;
    const kind = done.status === "applied" ? "good" : done.status === "waiting" ? "wait" : "bad";
    show(kind, done.message, where);
    pending = done.status === "waiting"
      ? { cell: done.cell, after: state.moves.length, where: where, game: state.game.id } : null;
    update(state);
  }

  // Buttons that ask first: show the question, and hide it again on "No".
  for (const button of document.querySelectorAll("button[data-ask]")) {
    button.addEventListener("click", () => {
      for (const other of document.querySelectorAll(".ask")) other.hidden = true;
      const ask = document.getElementById(button.dataset.ask);
      ask.hidden = false;
      ask.querySelector("button").focus();
    });
  }
  for (const button of document.querySelectorAll("button[data-cancel]")) {
    button.addEventListener("click", () => {
      const ask = button.closest(".ask");
      ask.hidden = true;
      document.querySelector('button[data-ask="' + ask.id + '"]').focus();
    });
  }

  for (const button of document.querySelectorAll("button[data-action]")) {
    button.addEventListener("click", async () => {
      const where = resultOf(button);
      button.closest(".ask").hidden = true;
      show("wait", "Working…", where);
      const state = await post(button.dataset.action, {}, where);
      if (state) report(state, where);
    });
  }

  for (const form of document.querySelectorAll("form[data-action]")) {
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const where = resultOf(form);
      const body = {};
      for (const [key, value] of new FormData(form).entries()) {
        if (value !== "" || key.endsWith("_pieces")) body[key] = value;
      }
      if (form.id === "correct" && !body.piece) body.piece = null;
      show("wait", "Working…", where);
      const state = await post(form.dataset.action, body, where);
      if (state) report(state, where);
    });
  }

  // Whose piece only matters when there is one.
  const arms = document.querySelector('#correct input[name="piece"]');
  if (arms) {
    const whose = () => { document.getElementById("whose").hidden = arms.value.trim() === ""; };
    arms.addEventListener("input", whose);
    whose();
  }

  // The computer's fields only for a game against it.
  const computer = document.getElementById("computer");
  if (computer) {
    computer.addEventListener("change", () => {
      document.getElementById("computer-fields").hidden = computer.value === "none";
    });
  }

  if (document.getElementById("game-summary") && window.EventSource) {
    const events = new EventSource("/api/events");
    events.addEventListener("message", (event) => update(JSON.parse(event.data)));
  }
})();
