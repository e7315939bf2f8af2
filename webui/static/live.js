// The live display: Server-Sent Events bring the full state; each message redraws everything.
(function () {
  "use strict";
  const $ = (id) => document.getElementById(id);
  const KINDS = ["terminator", "bend", "straight", "junction", "cross"];
  const SPEECH_KEY = "thoughtwave-speech";
  let lastVersion = -1;
  let lastMoveCount = null;
  let announcedGame = null;
  let dismissed = null;
  let previewRetry = null;
  let shownKey = null;

  function title(colour) { return colour ? colour.charAt(0).toUpperCase() + colour.slice(1) : ""; }

  function speechOn(state) {
    const stored = localStorage.getItem(SPEECH_KEY);
    if (stored === null) return Boolean(state && state.speech);
    return stored === "on";
  }

  function say(text) {
    if (!("speechSynthesis" in window)) return;
    try {
      window.speechSynthesis.cancel();
      window.speechSynthesis.speak(new SpeechSynthesisUtterance(text));
    } catch (err) { /* no voice on this device */ }
  }

  function renderFlags(flags) {
    const box = $("flags");
    box.replaceChildren();
    for (const flag of flags) {
      const div = document.createElement("div");
      const warn = ["hand", "unreadable", "held", "board-moved"].includes(flag.kind);
      div.className = "flag" + (warn ? " warn" : "");
      div.dataset.kind = flag.kind;
      if (flag.cell) {
        div.dataset.cell = flag.cell;
        const cell = document.createElement("span");
        cell.className = "cell";
        cell.textContent = flag.cell;
        div.appendChild(cell);
      }
      div.appendChild(document.createTextNode(flag.message.charAt(0).toUpperCase() + flag.message.slice(1)));
      box.appendChild(div);
    }
  }

  function renderMoves(moves) {
    const list = $("moves");
    list.replaceChildren();
    for (let i = moves.length - 1; i >= 0; i--) {
      const m = moves[i];
      const li = document.createElement("li");
      li.value = m.n;
      li.className = m.verdict;
      const who = document.createElement("span");
      who.className = "who " + (m.colour || "");
      who.textContent = m.colour ? m.colour + " " : "";
      li.appendChild(who);
      li.appendChild(document.createTextNode(m.move));
      if (m.verdict !== "legal") {
        const v = document.createElement("span");
        v.className = "verdict";
        v.textContent = m.verdict + (m.reason ? ": " + m.reason : "");
        li.appendChild(v);
      }
      list.appendChild(li);
    }
  }

  function renderLeft(left) {
    for (const colour of ["red", "black"]) {
      const row = document.querySelector("#left tr." + colour);
      if (!row || !left[colour]) continue;
      for (const kind of KINDS) {
        const td = row.querySelector('td[data-kind="' + kind + '"]');
        if (td) td.textContent = String(left[colour][kind]);
      }
    }
  }

  function renderTurn(s) {
    const turn = $("turn");
    if (s.winner) {
      turn.className = "turn over";
      turn.textContent = title(s.winner) + " has won";
    } else if (s.draw) {
      turn.className = "turn over";
      turn.textContent = "Drawn";
    } else if (s.next) {
      turn.className = "turn " + s.next;
      turn.textContent = title(s.next) + " to move";
    } else {
      turn.className = "turn";
      turn.textContent = "";
    }
  }

  function renderWinner(s) {
    const box = $("winner");
    const key = s.game.id + ":" + s.result;
    if (!(s.winner || s.draw) || dismissed === key) {
      box.hidden = true;
      return;
    }
    const text = $("winner-text");
    text.className = "winner-text " + (s.winner || "");
    text.textContent = s.winner ? title(s.winner) + " wins!" : "A draw";
    const names = { red: s.game.red, black: s.game.black };
    $("winner-sub").textContent = s.winner
      ? (names[s.winner] ? names[s.winner] + " joined " : "Joined ") + s.sides[s.winner]
      : "Neither player can place a piece";
    box.hidden = false;
    shownKey = key;
    if (announcedGame !== key) {
      announcedGame = key;
      if (speechOn(s)) say(s.winner ? title(s.winner) + " wins" : "The game is drawn");
    }
  }

  function renderCamera(s) {
    const cam = $("camera");
    if (s.camera.state === "lost") {
      cam.className = "camera lost";
      cam.textContent = "camera lost";
    } else {
      cam.className = "camera";
      cam.textContent = s.camera.state === "ok" ? (s.status || "watching") + " · " + s.camera.fps + " fps" : s.camera.state;
    }
    $("status").textContent = "Game " + s.game.id + (s.game.red || s.game.black
      ? ": " + (s.game.red || "Red") + " v " + (s.game.black || "Black") : "");
  }

  function speakNew(s) {
    if (lastMoveCount !== null && s.moves.length > lastMoveCount && speechOn(s)) {
      const m = s.moves[s.moves.length - 1];
      if (m.verdict === "illegal") say("Illegal placement by " + title(m.colour));
      else if (m.verdict === "rejected") say("Not accepted: " + (m.reason || ""));
    }
    lastMoveCount = s.moves.length;
  }

  function render(s) {
    if (!s || typeof s.version !== "number" || s.version === lastVersion) return;
    lastVersion = s.version;
    document.body.dataset.version = String(s.version);
    $("board").innerHTML = s.svg;  // built by the server from parsed cells and pieces only
    renderTurn(s);
    renderFlags(s.flags || []);
    renderLeft(s.left);
    renderMoves(s.moves || []);
    $("sides").textContent = "Red joins " + s.sides.red + "; Black joins " + s.sides.black + ".";
    renderCamera(s);
    speakNew(s);
    renderWinner(s);
  }

  function fetchState() {
    fetch("/api/state", { cache: "no-store" }).then((r) => r.ok ? r.json() : null).then(render).catch(() => {});
  }

  let polling = null;

  function poll(on) {
    // Beyond the server's stream cap (503) the page asks for the state once a second instead.
    if (on && !polling) polling = setInterval(fetchState, 1000);
    if (!on && polling) { clearInterval(polling); polling = null; }
  }

  function connect() {
    const source = new EventSource("/api/events");
    source.onopen = () => { $("connection").hidden = true; poll(false); };
    source.onmessage = (event) => {
      try { render(JSON.parse(event.data)); } catch (err) { /* a torn message: the next one is whole */ }
    };
    source.onerror = () => {
      if (source.readyState === EventSource.CLOSED) {
        // refused (too many displays) or the server went away: poll, and try streaming again later
        $("connection").hidden = false;
        fetchState();
        poll(true);
        setTimeout(connect, 10000);
      }
    };
  }

  function setupPreview() {
    const img = $("preview");
    let stills = null;
    img.addEventListener("error", () => {
      // No stream slot (or no picture yet): show a still a second, and try the stream again later.
      if (!stills) {
        stills = setInterval(() => { img.src = "/preview.jpg?" + Date.now(); }, 1000);
        clearTimeout(previewRetry);
        previewRetry = setTimeout(() => {
          clearInterval(stills);
          stills = null;
          img.src = "/preview.mjpg?" + Date.now();
        }, 30000);
      }
      img.classList.add("none");
    });
    img.addEventListener("load", () => img.classList.remove("none"));
  }

  function setupSpeech() {
    const box = $("speech");
    fetch("/api/state", { cache: "no-store" }).then((r) => r.json()).then((s) => {
      box.checked = speechOn(s);
      render(s);
    }).catch(() => {});
    box.addEventListener("change", () => {
      localStorage.setItem(SPEECH_KEY, box.checked ? "on" : "off");
      if (box.checked) say("Speech on");
    });
  }

  $("winner-close").addEventListener("click", () => {
    dismissed = shownKey;  // hide this result only: the next game's banner still shows
    $("winner").hidden = true;
  });

  setupPreview();
  setupSpeech();
  connect();
})();
