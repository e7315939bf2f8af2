// Calibration page: Check / Save / Back to defaults as JSON POSTs carrying the CSRF token; results drawn with
// textContent only (the check texts come from the server, never as HTML).
(function () {
  "use strict";
  const $ = (id) => document.getElementById(id);
  const buttons = ["check", "save", "save-force", "reset"].map($).filter(Boolean);
  // Whether the last check made a profile that may be saved (kept here: buttons are all disabled while busy).
  let canSave = Boolean($("save") && !$("save").disabled);

  const { post, show, useToken } = window.thoughtwave;
  const { gettext: _ } = window.thoughtwaveI18n;

  function checkItem(c) {
    const li = document.createElement("li");
    li.className = "check " + c.status.toLowerCase();
    li.dataset.name = c.name;
    const mark = document.createElement("span");
    mark.className = "mark";
    mark.textContent = c.mark || c.status;
    const name = document.createElement("span");
    name.className = "name";
    name.textContent = c.label || c.name;
    const measured = document.createElement("span");
    measured.className = "measured";
    measured.textContent = c.measured;
    li.append(mark, " ", name, ": ", measured);
    if (c.advice) {
      const advice = document.createElement("span");
      advice.className = "advice";
      advice.textContent = c.advice;
      li.append(advice);
    }
    return li;
  }

  // The glare and shadow map: a symbol and a colour per cell (row 1 first), and the words that name the cells.
  const SYMBOLS = { glare: "\u2600", shadow: "\u25d0", ok: "" };

  function drawLight(light) {
    const figure = $("light-map");
    if (!figure) return;
    figure.hidden = !light;
    if (!light) return;
    const header = $("light-rows").firstElementChild;
    const rows = light.rows.map((row, i) => {
      const tr = document.createElement("tr");
      const th = document.createElement("th");
      th.textContent = String(i + 1);
      tr.append(th);
      for (const kind of row) {
        const td = document.createElement("td");
        td.className = kind;
        td.textContent = SYMBOLS[kind] || "";
        tr.append(td);
      }
      return tr;
    });
    $("light-rows").replaceChildren(header, ...rows);
    $("light-verdict").className = "light-verdict " + light.status.toLowerCase();
    $("light-verdict").textContent = light.mark;
    $("light-glare").textContent = light.glare_text;
    $("light-shadow").textContent = light.shadow_text;
    $("light-advice").textContent = light.advice || "";
  }

  function drawCheck(last) {
    $("checks").replaceChildren(...last.checks.map(checkItem));
    drawLight(last.light);
    const summary = $("last-summary");
    summary.className = "summary " + last.level;
    summary.textContent = last.summary + (last.saved ? " " + _("Saved and in use.") : "");
    canSave = last.board_found;
    const force = $("save-force");
    if (force) force.hidden = last.ok || !last.board_found;
  }

  function drawProfile(p) {
    let text;
    if (p.error) text = p.error;
    else if (!p.exists) text = _("None: the reader uses its default colours.");
    else {
      const values = { created: p.created, px: Math.round(p.cell_px), size: p.resolution.join("x") };
      const learnt = Object.keys(p.colour_model || {}).length;
      if (learnt && p.lens) {
        text = _("Calibrated %(created)s: cells %(px)s px at %(size)s, colours learnt from the sample tiles, with a lens model.", values);
      } else if (learnt) {
        text = _("Calibrated %(created)s: cells %(px)s px at %(size)s, colours learnt from the sample tiles.", values);
      } else if (p.lens) {
        text = _("Calibrated %(created)s: cells %(px)s px at %(size)s, default colours, with a lens model.", values);
      } else {
        text = _("Calibrated %(created)s: cells %(px)s px at %(size)s, default colours.", values);
      }
    }
    $("profile").textContent = text;
  }

  async function busy(label, work) {
    for (const b of buttons) b.disabled = true;
    show(true, label);
    try {
      await work();
    } finally {
      for (const b of buttons) b.disabled = b.id === "save" && !canSave;
    }
  }

  async function save(force) {
    const data = await post("/api/calibrate/save", force ? { force: true } : {});
    if (!data) return;
    show(true, _("Saved: the companion reads with the new profile now; the game goes on."));
    drawProfile(data.profile);
    const summary = $("last-summary");
    if (!summary.textContent.includes(_("Saved and in use."))) summary.textContent += " " + _("Saved and in use.");
  }

  const check = $("check");
  if (check) {
    check.addEventListener("click", () => busy(_("Checking the camera's latest pictures..."), async () => {
      const data = await post("/api/calibrate/check", {});
      if (!data) return;
      drawCheck(data);
      const next = data.level === "ok" ? " " + _("Press Save to use this calibration.")
        : data.level === "warn" ? " " + _("You may save it (press Save), or put the warnings right and check again.")
          : "";
      show(data.level === "ok" ? "good" : data.level === "warn" ? "wait" : "bad", data.summary + next);
    }));
  }
  const saveButton = $("save");
  if (saveButton) saveButton.addEventListener("click", () => busy(_("Saving..."), () => save(false)));
  const forceButton = $("save-force");
  if (forceButton) {
    forceButton.addEventListener("click", () => {
      if (window.confirm(_("A check failed: reading may be worse with this profile. Save it anyway?"))) {
        busy(_("Saving..."), () => save(true));
      }
    });
  }
  const reset = $("reset");
  if (reset) {
    reset.addEventListener("click", () => {
      if (!window.confirm(_("Remove the calibration and read with the default colours?"))) return;
      busy(_("Removing the profile..."), async () => {
        const data = await post("/api/calibrate/reset", {});
        if (!data) return;
        show(true, data.removed ? _("Removed: the reader uses its defaults now.")
          : _("There was no profile: the defaults are in use."));
        drawProfile(data.profile);
      });
    });
  }

  const pinForm = $("pin-form");
  if (pinForm) {
    pinForm.addEventListener("submit", async (event) => {
      event.preventDefault();
      const data = await post("/api/login", { pin: new FormData(pinForm).get("pin") });
      if (data) {
        useToken(data.csrf);
        window.location.reload();
      }
    });
  }

  // The preview: the MJPEG stream, or a still every second when no stream slot is free (or no picture yet).
  const img = $("preview");
  let stills = null;
  img.addEventListener("error", () => {
    img.classList.add("none");
    $("preview-note").textContent = _("No picture from the camera yet: trying again.");
    if (stills) return;
    stills = setInterval(() => { img.src = "/preview.jpg?" + Date.now(); }, 1000);
    setTimeout(() => {
      clearInterval(stills);
      stills = null;
      img.src = "/preview.mjpg?" + Date.now();
    }, 30000);
  });
  img.addEventListener("load", () => {
    img.classList.remove("none");
    $("preview-note").textContent = _("Live camera view: the green grid is where the board was found.");
  });
})();
