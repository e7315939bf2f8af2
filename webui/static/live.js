// The live display: Server-Sent Events bring the full state; each message redraws everything.
(function () {
  "use strict";
  const $ = (id) => document.getElementById(id);
  // Every string the script shows or speaks: the template gives them (main's data-text), one place to translate.
  const TEXT = JSON.parse($("live").dataset.text);
  const fill = (key, values) => TEXT[key].replace(/\{(\w+)\}/g, (all, name) => String(values[name] ?? ""));
  const KINDS = ["terminator", "bend", "straight", "junction", "cross"];
  const SPEECH_KEY = "thoughtwave-speech";
  let lastVersion = -1;
  let lastMoveCount = null;
  let announcedGame = null;
  let dismissed = null;
  let previewRetry = null;
  let shownKey = null;
  let announcedInstruction = null;
  let returnFocus = null;
  const SVG_NS = "http://www.w3.org/2000/svg";
  const CHART = { w: 320, h: 130, left: 30, right: 10, top: 10, bottom: 24 };

  function title(colour) { return colour ? (TEXT[colour] || colour) : ""; }

  function speechOn(state) {
    const stored = localStorage.getItem(SPEECH_KEY);
    if (stored === null) return Boolean(state && state.speech);
    return stored === "on";
  }

  function say(text) {
    if (!("speechSynthesis" in window)) return;
    try {
      window.speechSynthesis.cancel();
      const utterance = new SpeechSynthesisUtterance(text);
      utterance.lang = document.documentElement.lang || "en";  // a voice of the page's language
      window.speechSynthesis.speak(utterance);
    } catch (err) { /* no voice on this device */ }
  }

  // One banner per kind of problem, its cells listed together (the server groups them and words them).
  function renderFlags(banners) {
    const box = $("flags");
    const key = JSON.stringify(banners);
    if (box.dataset.key === key) return;  // unchanged: do not make the alert region speak again
    box.dataset.key = key;
    box.replaceChildren();
    for (const banner of banners) {
      const p = document.createElement("p");
      p.className = "flag" + (banner.tone === "warn" ? " warn" : "");
      p.dataset.kind = banner.kind;
      p.dataset.cells = banner.cells.join(" ");
      p.textContent = banner.text;
      box.appendChild(p);
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
      who.textContent = m.colour ? (TEXT.colours[m.colour] || m.colour) + " " : "";
      li.appendChild(who);
      li.appendChild(document.createTextNode(m.move));
      if (m.verdict !== "legal") {
        const v = document.createElement("span");
        v.className = "verdict";
        const verdict = TEXT.verdicts[m.verdict] || m.verdict;
        const reason = m.reason_text || m.reason;
        v.textContent = reason ? fill("verdict_reason", { verdict: verdict, reason: reason }) : verdict;
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

  function svgEl(name, attrs, text) {
    const el = document.createElementNS(SVG_NS, name);
    for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, String(value));
    if (text !== undefined) el.textContent = text;
    return el;
  }

  function needs(colour, d) {
    if (d === null || d === undefined) return fill("cant_connect", { colour: title(colour) });
    if (d === 0) return fill("connected", { colour: title(colour) });
    return fill("needs", { colour: title(colour), n: d });
  }

  // The chart: each player's fewest placements still needed, one point per position of the game.
  function renderChart(analysis) {
    const chart = $("chart");
    const legend = $("chart-legend");
    if (!chart || !legend) return;
    chart.replaceChildren();
    legend.replaceChildren();
    const history = (analysis && analysis.history) || [];
    if (!history.length) return;
    let top = 4;
    for (const point of history) {
      for (const colour of ["red", "black"]) {
        if (typeof point[colour] === "number") top = Math.max(top, point[colour]);
      }
    }
    const width = CHART.w - CHART.left - CHART.right;
    const height = CHART.h - CHART.top - CHART.bottom;
    const x = (i) => CHART.left + (history.length > 1 ? (i * width) / (history.length - 1) : width / 2);
    const y = (d) => CHART.top + height - (d * height) / top;
    chart.appendChild(svgEl("line", { class: "axis", x1: CHART.left, y1: y(0), x2: CHART.w - CHART.right, y2: y(0) }));
    chart.appendChild(svgEl("text", { class: "tick", x: CHART.left - 6, y: y(0) + 5, "text-anchor": "end" }, "0"));
    chart.appendChild(svgEl("text", { class: "tick", x: CHART.left - 6, y: y(top) + 12, "text-anchor": "end" }, String(top)));
    chart.appendChild(svgEl("text", { class: "tick", x: CHART.w - CHART.right, y: CHART.h - 4, "text-anchor": "end" },
      fill("move_n", { n: history[history.length - 1].n })));
    for (const colour of ["red", "black"]) {
      // a position where the player cannot connect any more breaks the line
      let run = [];
      const runs = [run];
      history.forEach((point, i) => {
        if (typeof point[colour] === "number") run.push(x(i).toFixed(1) + "," + y(point[colour]).toFixed(1));
        else if (run.length) { run = []; runs.push(run); }
      });
      for (const points of runs) {
        if (points.length > 1) chart.appendChild(svgEl("polyline", { class: "line " + colour, points: points.join(" ") }));
      }
      const last = history[history.length - 1][colour];
      if (typeof last === "number") {
        chart.appendChild(svgEl("circle", { class: "dot " + colour, cx: x(history.length - 1), cy: y(last), r: 5 }));
      }
      const item = document.createElement("span");
      item.className = "needs " + colour;
      item.dataset.colour = colour;
      item.textContent = needs(colour, analysis.distance ? analysis.distance[colour] : last);
      legend.appendChild(item);
    }
  }

  function cellList(cells) {
    if (cells.length <= 3) {
      return cells.length > 1 ? fill("and", { first: cells.slice(0, -1).join(", "), last: cells[cells.length - 1] }) : cells[0];
    }
    return fill("more", { first: cells.slice(0, 3).join(", "), n: cells.length - 3 });
  }

  function renderThreats(s) {
    const box = $("threats");
    if (!box) return;
    box.replaceChildren();
    const threats = (s.analysis && s.analysis.threats) || {};
    let any = false;
    for (const colour of ["red", "black"]) {
      const cells = threats[colour] || [];
      if (!cells.length || s.winner || s.draw) continue;
      any = true;
      const line = document.createElement("span");
      line.className = "threat " + colour;
      line.dataset.colour = colour;
      line.textContent = fill(s.next === colour ? "can_connect" : "threatens", { colour: title(colour), cells: cellList(cells) });
      box.appendChild(line);
    }
    box.hidden = !any;
  }

  function renderInstruction(s) {
    const box = $("instruction");
    if (!box) return;
    const computer = s.computer;
    const told = computer && computer.instruction;
    if (!computer || !(told || computer.thinking || computer.error)) {
      box.hidden = true;
      return;
    }
    box.className = "instruction " + computer.colour + (told ? "" : " waiting");
    box.dataset.move = told ? told.move : "";
    if (told) {
      $("instruction-text").textContent = told.text;
      $("instruction-detail").textContent = told.detail.charAt(0).toUpperCase() + told.detail.slice(1);
    } else {
      $("instruction-text").textContent = computer.error ? TEXT.stuck : TEXT.thinking;
      $("instruction-detail").textContent = computer.error || TEXT.appears;
    }
    box.hidden = false;
    if (told) {
      const key = s.game.id + ":" + s.moves.length + ":" + told.move;
      if (announcedInstruction !== key) {
        announcedInstruction = key;
        if (speechOn(s)) say(told.spoken);
      }
    }
  }

  function renderTurn(s) {
    const turn = $("turn");
    if (s.winner) {
      turn.className = "turn over";
      turn.textContent = fill("has_won", { colour: title(s.winner) });
    } else if (s.draw) {
      turn.className = "turn over";
      turn.textContent = TEXT.drawn;
    } else if (s.next) {
      turn.className = "turn " + s.next;
      turn.textContent = fill("to_move", { who: s.computer && s.computer.colour === s.next ? TEXT.computer : title(s.next) });
    } else {
      turn.className = "turn";
      turn.textContent = "";
    }
  }

  // The winner (or a draw) in a modal dialog: it takes focus, Escape or its button closes it, and nothing
  // else happens (the next game begins only when the board is cleared).
  function renderWinner(s) {
    const box = $("winner");
    const key = s.game.id + ":" + s.result;
    if (!(s.winner || s.draw) || dismissed === key) {
      if (!box.hidden) closeWinner(false);
      return;
    }
    const text = $("winner-text");
    text.className = "winner-text " + (s.winner || "");
    text.textContent = s.winner ? fill("wins", { colour: title(s.winner) }) : TEXT.draw;
    const names = { red: s.game.red, black: s.game.black };
    $("winner-sub").textContent = s.winner
      ? (names[s.winner] ? fill("joined", { name: names[s.winner], sides: s.sides[s.winner] })
        : fill("joined_anon", { sides: s.sides[s.winner] }))
      : TEXT.no_place;
    shownKey = key;
    if (box.hidden) {
      returnFocus = document.activeElement;
      box.hidden = false;
      $("winner-close").focus();
    }
    if (announcedGame !== key) {
      announcedGame = key;
      if (speechOn(s)) say(s.winner ? fill("say_wins", { colour: title(s.winner) }) : TEXT.say_draw);
    }
  }

  function closeWinner(byPlayer) {
    if (byPlayer) dismissed = shownKey;  // hide this result only: the next game's dialog still shows
    $("winner").hidden = true;
    if (returnFocus && returnFocus !== document.body && document.contains(returnFocus)) returnFocus.focus();
    returnFocus = null;
  }

  function renderCamera(s) {
    const cam = $("camera");
    if (s.camera.state === "lost") {
      cam.className = "camera lost";
      cam.textContent = TEXT.camera_lost;
    } else {
      cam.className = "camera";
      cam.textContent = s.camera.state === "ok"
        ? fill("fps", { status: TEXT.statuses[s.status] || s.status || TEXT.watching, fps: Math.round(s.camera.fps) })
        : TEXT.statuses[s.camera.state] || s.camera.state;
    }
    $("status").textContent = s.game.red || s.game.black
      ? fill("game_players", { id: s.game.id, red: s.game.red || TEXT.red, black: s.game.black || TEXT.black })
      : fill("game", { id: s.game.id });
  }

  function speakNew(s) {
    if (lastMoveCount !== null && s.moves.length > lastMoveCount && speechOn(s)) {
      const m = s.moves[s.moves.length - 1];
      if (m.verdict === "illegal") say(fill("say_illegal", { colour: title(m.colour) }));
      else if (m.verdict === "rejected") say(fill("say_rejected", { reason: m.reason_text || m.reason || "" }));
    }
    lastMoveCount = s.moves.length;
  }

  function render(s) {
    if (!s || typeof s.version !== "number" || s.version === lastVersion) return;
    lastVersion = s.version;
    document.body.dataset.version = String(s.version);
    $("board").innerHTML = s.svg;  // built by the server from parsed cells and pieces only
    renderTurn(s);
    renderFlags(s.banners || []);
    renderLeft(s.left);
    renderMoves(s.moves || []);
    $("sides").textContent = fill("sides", s.sides);
    renderCamera(s);
    speakNew(s);
    renderInstruction(s);
    renderThreats(s);
    renderChart(s.analysis);
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
      if (box.checked) say(TEXT.say_on);
    });
  }

  $("winner-close").addEventListener("click", () => closeWinner(true));
  $("winner").addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      event.preventDefault();
      closeWinner(true);
    } else if (event.key === "Tab") {
      event.preventDefault();  // modal: the dialog's one button keeps the focus
      $("winner-close").focus();
    }
  });

  setupPreview();
  setupSpeech();
  connect();
})();
