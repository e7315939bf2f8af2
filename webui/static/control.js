// Control page: every action is a JSON POST through api.js (which carries the CSRF token); its answer's
// "done" says what happened, shown next to the button pressed. The "This game" card follows the same
// event stream as the display (/api/events), and a correction that waits for the board is reported
// when the referee rules on its cell. Keep the sentences alike with webui/words.py.
(function () {
  "use strict";
  const { post, show } = window.thoughtwave;
  const { gettext: _, ngettext } = window.thoughtwaveI18n;
  let pending = null;          // {cell, after, where}: a correction waiting for the board
  let latest = null;

  function resultOf(element) {
    return element.closest("section").querySelector(".result");
  }

  function title(colour) {
    return colour === "red" ? _("Red") : colour === "black" ? _("Black") : "";
  }

  function summary(state) {
    const game = state.game;
    const count = state.moves.filter((m) => m.verdict !== "rejected").length;
    const players = _("%(red)s (red) against %(black)s (black)",
      { red: game.red || _("Red"), black: game.black || _("Black") });
    let status;
    if (state.winner) {
      status = ngettext("%(colour)s won, linking %(sides)s, in %(num)d move.",
        "%(colour)s won, linking %(sides)s, in %(num)d moves.", count,
        { colour: title(state.winner), sides: state.sides[state.winner] });
    } else if (state.draw) {
      status = ngettext("A draw, after %(num)d move.", "A draw, after %(num)d moves.", count);
    } else if (game.ended) {
      status = ngettext("Ended with no winner after %(num)d move: clear the board to start the next game.",
        "Ended with no winner after %(num)d moves: clear the board to start the next game.", count);
    } else if (state.next) {
      status = ngettext("%(colour)s to move; %(num)d move so far.", "%(colour)s to move; %(num)d moves so far.", count,
        { colour: title(state.next) });
    } else {
      status = ngettext("%(num)d move so far.", "%(num)d moves so far.", count);
    }
    let said = _("Game %(id)s: %(players)s. %(status)s", { id: game.id, players: players, status: status });
    const c = state.computer;
    if (c) {
      said += " " + (c.colour === "red"
        ? _("The computer plays red at level %(level)s, up to %(seconds)s s a move.", { level: c.level, seconds: c.seconds })
        : _("The computer plays black at level %(level)s, up to %(seconds)s s a move.", { level: c.level, seconds: c.seconds }));
    }
    return said;
  }

  function verdictWords(m) {
    const values = { who: title(m.colour), arms: m.move.split("@")[0], cell: m.move.split("@")[1],
      reason: m.reason_text || m.reason };
    if (m.verdict === "legal") return _("%(who)s's %(arms)s on %(cell)s counts: a legal move.", values);
    if (m.verdict === "illegal") {
      return _("%(who)s's %(arms)s on %(cell)s is an illegal placement (%(reason)s); the penalty applies.", values);
    }
    return _("The referee refused %(who)s's %(arms)s on %(cell)s: %(reason)s.", values);
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
        show("bad", _("The correction of %(cell)s was not ruled on: another game has started.", { cell: pending.cell }),
          pending.where);
        pending = null;
        return;
      }
      const ruled = state.moves.slice(pending.after).find((m) => m.move.endsWith("@" + pending.cell));
      if (ruled) {
        show(ruled.verdict === "rejected" ? "bad" : "good", _("Ruled: %(verdict)s", { verdict: verdictWords(ruled) }),
          pending.where);
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
      show("wait", _("Working…"), where);
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
      show("wait", _("Working…"), where);
      const state = await post(form.dataset.action, body, where);
      if (state) {
        report(state, where);
        if (form.id === "report") form.reset();     // a note goes with one case only
      }
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
