"""The calibration page's memory and measures: where the profile lives, what it holds, and the last
check of the camera's pictures with its candidate profile (``CalibrationDesk``). No routes here: the page
(``webui.calibrate_page``) serves it; a refusal is an ``ApiError`` (409 with the reason).

A check runs in the request's own thread, never on the camera thread: it takes about 0.3 s per picture at
1280x960, and only one check runs at a time (a second one is refused with 409), so at most one of the
server's threads is busy with it while streams are capped below the thread count (``webui.context``): the
display and the control API always keep a thread.
"""

from __future__ import annotations

import dataclasses
import datetime
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import cv2
import numpy as np

from thoughtwave.calibration.calibrate import Calibration, calibrate_frames
from thoughtwave.calibration.checks import LightMap
from thoughtwave.calibration.lens import LensModel
from thoughtwave.calibration.profile import FILE_NAME, CheckResult, Profile, ProfileError, load_profile
from thoughtwave.config import Config, VisionConfig
from thoughtwave.engine.phrases import Phrase, Words
from thoughtwave.i18n import Text
from thoughtwave.i18n.calibration import check_mark, check_name, words
from thoughtwave.webui.apierrors import refused

#: A checked profile older than this is not saved: the camera or the light may have moved since.
CANDIDATE_SECONDS = 15 * 60


def _status(check: CheckResult) -> str:
    return "FAIL" if not check.ok else ("warn" if check.warning else "ok")


def check_json(check: CheckResult, t: Text | None = None) -> dict:
    """One check for the page: ``name`` and ``status`` (``ok``, ``warn`` or ``FAIL``) as the API keys them,
    ``label`` and ``mark`` as the page shows them, ``measured`` and ``advice`` in ``t``'s language (English
    by default, as the CLI says them)."""
    t = t or Text()
    status = _status(check)
    return {"name": check.name, "status": status, "ok": check.ok, "warning": check.warning,
            "measured": words(t, check.measured), "advice": words(t, check.advice),
            "label": check_name(t, check.name), "mark": check_mark(t, status)}


def check_summary(data: dict, t: Text | None = None) -> dict:
    """What a check's results add up to, for the page: ``level`` (``ok``, ``warn`` or ``fail``: the worst
    check decides), ``warned`` (the checks that passed with a warning) and ``summary``, a sentence in ``t``'s
    language with the local time of the check."""
    t = t or Text()
    warned = [c["name"] for c in data["checks"] if c["status"] == "warn"]
    when = datetime.datetime.fromisoformat(data["when"]).astimezone().strftime("%H:%M:%S")
    size = "x".join(str(n) for n in data["resolution"])
    if not data["board_found"]:
        level, verdict = "fail", t.gettext("No board found: see the advice below.")
    elif not data["ok"]:
        failed = ", ".join(check_name(t, name) for name in data["failed"])
        level, verdict = "fail", t.gettext("Failed: %(failed)s. Put that right as the advice says and check again.",
                                           failed=failed)
    elif warned:
        level, verdict = "warn", t.gettext("Passed with warnings: %(warned)s. Read the advice below: the camera may "
                                           "misread some tiles.", warned=", ".join(check_name(t, n) for n in warned))
    else:
        level, verdict = "ok", t.gettext("Every check passed.")
    when_said = t.ngettext("Checked at %(when)s on %(num)d picture of %(size)s.",
                           "Checked at %(when)s on %(num)d pictures of %(size)s.", data["frames"], when=when, size=size)
    return {"level": level, "warned": warned, "summary": f"{verdict} {when_said}"}


def light_json(light: LightMap | None, t: Text | None = None) -> dict | None:
    """The glare and shadow map for the page (None without one): ``rows`` of ``"ok"``/``"glare"``/``"shadow"``
    (row 1 first, column A first, as the board is drawn), the cells of each kind, and in ``t``'s language
    ``glare_text``/``shadow_text`` (which cells, for readers that do not see the colours) and the verdict."""
    if light is None:
        return None
    t = t or Text()
    glare, shadow = [str(c) for c in light.of("glare")], [str(c) for c in light.of("shadow")]
    status = _status(light.check)
    return {
        "rows": [list(row) for row in light.cells], "glare": glare, "shadow": shadow, "status": status,
        "mark": check_mark(t, status), "measured": words(t, light.check.measured),
        "advice": words(t, light.check.advice),
        "glare_text": (t.ngettext("Glare on %(num)d cell: %(cells)s.", "Glare on %(num)d cells: %(cells)s.",
                                  len(glare), cells=", ".join(glare)) if glare else t.gettext("No glare on any cell.")),
        "shadow_text": (t.ngettext("Shadow on %(num)d cell: %(cells)s.", "Shadow on %(num)d cells: %(cells)s.",
                                   len(shadow), cells=", ".join(shadow)) if shadow
                        else t.gettext("No shadow on any cell.")),
    }


def shown(data: dict | None, t: Text) -> dict | None:
    """A check (``CalibrationDesk.check``/``last``) as the page shows it in ``t``'s language: its checks,
    summary and light map worded again (the stored check keeps its phrases, so any language can say it)."""
    if data is None:
        return None
    out = {**data, "checks": [check_json(c, t) for c in data["results"]], "light": light_json(data["map"], t)}
    out.update(check_summary(out, t))
    return {k: v for k, v in out.items() if k not in ("results", "map")}


def profile_path_of(config: Config | None) -> Path | None:
    """Where the profile lives, as ``serve`` resolves it: ``[vision] profile``, else profile.json in the state
    directory; None without a configuration (nothing can be saved then)."""
    if config is None:
        return None
    if config.vision.profile:
        return Path(config.vision.profile)
    return Path(config.state_dir) / FILE_NAME if config.state_dir else None


def profile_summary(path: Path | None, t: Text | None = None) -> dict:
    """What the page shows of the profile on disk: whether it exists, when it was made, cell size, checks (in
    ``t``'s language as far as they can be: a profile's file keeps its checks' English words only)."""
    t = t or Text()
    if path is None:
        return {"exists": False, "file": None,
                "error": t.gettext("no state directory is configured: profiles are not kept")}
    if not path.exists():
        return {"exists": False, "file": path.name}
    try:
        profile = load_profile(path)
    except ProfileError as err:
        return {"exists": True, "file": path.name,
                "error": t.gettext("%(error)s; the default colours are used", error=err)}
    return {"exists": True, "file": path.name, "created": profile.created, "cell_px": profile.cell_px,
            "resolution": list(profile.resolution), "lens": profile.lens is not None,
            "colour_model": profile.colour_model, "checks": [check_json(c, t) for c in profile.checks]}


def kept_lens(path: Path | None) -> tuple[LensModel | None, CheckResult | None]:
    """The lens model of the profile on disk (made by ``thoughtwave calibrate --lens-...``), so a check on this
    page keeps it, with the check it was judged by; (None, None) without one."""
    if path is None or not path.exists():
        return None, None
    try:
        profile = load_profile(path)
    except ProfileError:
        return None, None
    lens = profile.lens
    if not lens:
        return None, None
    try:   # load_profile checked the matrices; the rest is only informative, and may be missing or odd
        size = lens.get("image_size") or profile.resolution
        views = int(lens.get("views_used", 0))
        model = LensModel(np.array(lens["camera_matrix"], dtype=np.float64),
                          np.array(lens["dist_coeffs"], dtype=np.float64),
                          float(lens.get("rms_px", 0.0)), (int(size[0]), int(size[1])), views, views)
    except (KeyError, TypeError, ValueError, IndexError):
        return None, None
    judged = next((c for c in profile.checks if c.name == "lens model"), None)
    return model, judged


class CalibrationDesk:
    """The page's memory: where the profile goes, the last check and its candidate profile. Thread-safe.
    ``clock`` (monotonic seconds) dates the checks; ``calibrate`` measures the pictures (``calibrate_frames``,
    or a test's own results)."""

    def __init__(self, profile_path: Path | None, stable_seconds: float,
                 clock: Callable[[], float] = time.monotonic,
                 calibrate: Callable[..., Calibration] = calibrate_frames) -> None:
        self.profile_path = profile_path
        self.stable_seconds = stable_seconds
        self._clock = clock
        self._calibrate = calibrate
        self._busy = threading.Lock()      # one check at a time
        self._lock = threading.Lock()      # the last check
        self._last: Calibration | None = None
        self._last_json: dict | None = None
        self._checked_at = 0.0             # monotonic time of the last check

    def last(self, t: Text | None = None) -> dict | None:
        """The last check as the page shows it in ``t``'s language (English by default), or None before the first."""
        with self._lock:
            return shown(self._last_json, t or Text())

    @contextmanager
    def checking(self) -> Iterator[None]:
        """Hold the desk for one check; ApiError 409 while another is running."""
        if not self._busy.acquire(blocking=False):
            raise refused(409, "check-running", "a check is already running: wait for its results")
        try:
            yield
        finally:
            self._busy.release()

    def check(self, images: tuple, t: Text | None = None) -> dict:
        """Calibrate on ``images`` (the camera's latest pictures) and keep the result as the candidate; the
        result as the page shows it in ``t``'s language (English by default)."""
        with self.checking():
            # Only colour pictures of the newest size (a camera restarted at another resolution leaves older
            # ones); copies, once per check, as a camera driver may reuse its buffers while we measure.
            colour = [im for im in images if isinstance(im, np.ndarray) and im.ndim == 3 and im.shape[2] == 3]
            if not colour:
                raise refused(409, "no-colour", "cannot check: calibration needs colour pictures from the camera")
            frames = [np.array(im, copy=True) for im in colour if im.shape == colour[-1].shape]
            lens, judged = kept_lens(self.profile_path)
            size = (frames[-1].shape[1], frames[-1].shape[0])
            note = None
            if lens is not None and tuple(lens.image_size) != size:
                note = _lens_misfit(lens, size)
                lens, judged = None, None
            started = time.perf_counter()
            try:
                result = self._calibrate(frames, lens=lens)
            except (ValueError, cv2.error) as err:
                raise refused(409, "cannot-check", f"cannot check this picture: {err}", error=str(err)) from None
            ms = (time.perf_counter() - started) * 1e3
            result = _with_lens_checks(result, judged, note)
            h, w = frames[-1].shape[:2]
            data = {
                "ok": result.ok,
                "board_found": result.profile is not None,
                "results": list(result.checks),
                "map": result.light,
                "failed": [c.name for c in result.checks if not c.ok],
                "frames": len(frames),
                "resolution": [int(w), int(h)],
                "cell_px": result.profile.cell_px if result.profile else None,
                "colour_model": result.profile.colour_model if result.profile else {},
                "lens": bool(result.profile and result.profile.lens),
                "when": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
                "ms": round(ms, 1),
                "saved": False,
            }
            with self._lock:
                self._last, self._last_json, self._checked_at = result, data, self._clock()
            return shown(data, t or Text())

    def candidate(self, force: bool) -> Profile:
        """The profile the last check made, if it may be saved; else ApiError(409) saying why."""
        with self._lock:
            last, age = self._last, self._clock() - self._checked_at
        if last is None:
            raise refused(409, "check-first", "press Check first: there is no checked profile to save")
        if last.profile is None:
            raise refused(409, "no-board-to-save", "the last check found no board: nothing to save")
        if age > CANDIDATE_SECONDS:
            raise refused(409, "check-too-old", f"the last check is {age / 60:.0f} minutes old: check again before "
                          "saving", minutes=round(age / 60))
        if not last.ok and not force:
            failed = [c.name for c in last.checks if not c.ok]
            raise refused(409, "check-failed", f"the last check failed ({', '.join(failed)}): put that right and "
                          "check again, or save anyway (force)", failed=tuple(failed))
        return last.profile

    def mark_saved(self, profile: Profile) -> None:
        with self._lock:
            if self._last is not None and self._last.profile is profile and self._last_json is not None:
                self._last_json = {**self._last_json, "saved": True}


def _lens_misfit(lens: LensModel, size: tuple[int, int] | None) -> CheckResult:
    w, h = lens.image_size
    now = f"{size[0]}x{size[1]}" if size else None
    measured = Phrase.of("lens-misfit", f"the saved lens model was made at {w}x{h}, the camera now gives "
                         f"{now or 'another size'}: not used", made=f"{w}x{h}", now=now)
    advice = Phrase.of("lens-misfit-advice", "make a new one with thoughtwave calibrate --lens-camera")
    return CheckResult("lens model", True, Words(measured), Words(advice), warning=True)


def _with_lens_checks(result: Calibration, judged: CheckResult | None, note: CheckResult | None) -> Calibration:
    """The result with the kept lens model's own check (its pictures' coverage and tilt are not stored, so
    re-judging it would lose them), or a note that an old lens model no longer fits."""
    checks = list(result.checks)
    if judged is not None and checks and checks[0].name == "lens model":
        checks[0] = judged
    elif note is not None:
        checks.insert(0, note)
    else:
        return result
    profile = dataclasses.replace(result.profile, checks=tuple(checks)) if result.profile else None
    return dataclasses.replace(result, checks=checks, profile=profile)


def desk_for(config: Config | None) -> CalibrationDesk:
    """The desk for an app serving with ``config`` (``thoughtwave.config.Config``, with the state directory serve
    uses): where the profile lives and how long the board must hold still."""
    stable = config.vision.stable_seconds if config is not None else VisionConfig().stable_seconds
    return CalibrationDesk(profile_path_of(config), stable)
