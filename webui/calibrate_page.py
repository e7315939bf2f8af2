"""The calibration page: ``/calibrate`` walks through setting up the camera with the live preview and the
results of the last check; ``/api/calibrate/...`` checks the camera's latest pictures, saves the profile
and switches the running companion to it without losing the game.

Anyone may look (``GET /calibrate``, ``GET /api/calibrate``); ``check``, ``save`` and ``reset`` need the
PIN and the CSRF token like every other change. Every refusal is a 4xx JSON ``{"error": ...}``.

A check runs in the request's own thread, never on the camera thread: it takes about 0.3 s per picture at
1280x960, and only one check runs at a time (a second one is refused with 409), so at most one of the
server's threads is busy with it while streams are capped below the thread count (webui.app): the
display and the control API always keep a thread.
"""

from __future__ import annotations

import dataclasses
import datetime
import logging
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flask import Blueprint, Response, current_app, jsonify, render_template

from thoughtwave.webui.app import ApiError, json_body, requires_pin

if TYPE_CHECKING:
    from thoughtwave.calibration.calibrate import Calibration
    from thoughtwave.calibration.lens import LensModel
    from thoughtwave.calibration.profile import CheckResult, Profile
    from thoughtwave.webui.companion import Companion

log = logging.getLogger(__name__)

#: A checked profile older than this is not saved: the camera or the light may have moved since.
CANDIDATE_SECONDS = 15 * 60
#: Used when the app is made without a configuration (as vision.watch.Watcher's default).
DEFAULT_STABLE_SECONDS = 0.4


def check_json(check: CheckResult) -> dict:
    """One check for the page: ``status`` is ``ok``, ``warn`` or ``FAIL``."""
    status = "FAIL" if not check.ok else ("warn" if check.warning else "ok")
    return {"name": check.name, "status": status, "ok": check.ok, "warning": check.warning,
            "measured": check.measured, "advice": check.advice}


def profile_path_of(config: Any) -> Path | None:
    """Where the profile lives, as ``serve`` resolves it: ``[vision] profile``, else profile.json in the state
    directory; None without a configuration (nothing can be saved then)."""
    from thoughtwave.calibration.profile import FILE_NAME

    if config is None:
        return None
    configured = getattr(getattr(config, "vision", None), "profile", None)
    if configured:
        return Path(configured)
    state_dir = getattr(config, "state_dir", None)
    return Path(state_dir) / FILE_NAME if state_dir else None


def profile_summary(path: Path | None) -> dict:
    """What the page shows of the profile on disk: whether it exists, when it was made, cell size, checks."""
    from thoughtwave.calibration.profile import ProfileError, load_profile

    if path is None:
        return {"exists": False, "file": None, "error": "no state directory is configured: profiles are not kept"}
    if not path.exists():
        return {"exists": False, "file": path.name}
    try:
        profile = load_profile(path)
    except ProfileError as err:
        return {"exists": True, "file": path.name, "error": f"{err}; the default colours are used"}
    return {"exists": True, "file": path.name, "created": profile.created, "cell_px": profile.cell_px,
            "resolution": list(profile.resolution), "lens": profile.lens is not None,
            "colour_model": profile.colour_model, "checks": [check_json(c) for c in profile.checks]}


def kept_lens(path: Path | None) -> tuple[LensModel | None, CheckResult | None]:
    """The lens model of the profile on disk (made by ``thoughtwave calibrate --lens-...``), so a check on this
    page keeps it, with the check it was judged by; (None, None) without one."""
    from thoughtwave.calibration.lens import LensModel
    from thoughtwave.calibration.profile import ProfileError, load_profile

    if path is None or not path.exists():
        return None, None
    try:
        profile = load_profile(path)
    except ProfileError:
        return None, None
    lens = profile.lens
    if not lens:
        return None, None
    import numpy as np

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
    """The page's memory: where the profile goes, the last check and its candidate profile. Thread-safe."""

    def __init__(self, profile_path: Path | None, stable_seconds: float) -> None:
        self.profile_path = profile_path
        self.stable_seconds = stable_seconds
        self._busy = threading.Lock()      # one check at a time
        self._lock = threading.Lock()      # the last check
        self._last: Calibration | None = None
        self._last_json: dict | None = None
        self._checked_at = 0.0             # monotonic time of the last check

    def last(self) -> dict | None:
        """The last check as the page shows it, or None before the first."""
        with self._lock:
            return self._last_json

    def check(self, images: tuple) -> dict:
        """Calibrate on ``images`` (the camera's latest pictures) and keep the result as the candidate."""
        import cv2
        import numpy as np

        from thoughtwave.calibration.calibrate import calibrate_frames

        if not self._busy.acquire(blocking=False):
            raise ApiError(409, "a check is already running: wait for its results")
        try:
            # Only colour pictures of the newest size (a camera restarted at another resolution leaves older
            # ones); copies, once per check, as a camera driver may reuse its buffers while we measure.
            colour = [im for im in images if isinstance(im, np.ndarray) and im.ndim == 3 and im.shape[2] == 3]
            if not colour:
                raise ApiError(409, "cannot check: calibration needs colour pictures from the camera")
            frames = [np.array(im, copy=True) for im in colour if im.shape == colour[-1].shape]
            lens, judged = kept_lens(self.profile_path)
            size = (frames[-1].shape[1], frames[-1].shape[0])
            note = None
            if lens is not None and tuple(lens.image_size) != size:
                note = _lens_misfit(lens, size)
                lens, judged = None, None
            started = time.perf_counter()
            try:
                result = calibrate_frames(frames, lens=lens)
            except (ValueError, cv2.error) as err:
                raise ApiError(409, f"cannot check this picture: {err}") from None
            ms = (time.perf_counter() - started) * 1e3
            result = _with_lens_checks(result, judged, note)
            h, w = frames[-1].shape[:2]
            data = {
                "ok": result.ok,
                "board_found": result.profile is not None,
                "checks": [check_json(c) for c in result.checks],
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
                self._last, self._last_json, self._checked_at = result, data, time.monotonic()
            return data
        finally:
            self._busy.release()

    def candidate(self, force: bool) -> Profile:
        """The profile the last check made, if it may be saved; else ApiError(409) saying why."""
        with self._lock:
            last, age = self._last, time.monotonic() - self._checked_at
        if last is None:
            raise ApiError(409, "press Check first: there is no checked profile to save")
        if last.profile is None:
            raise ApiError(409, "the last check found no board: nothing to save")
        if age > CANDIDATE_SECONDS:
            raise ApiError(409, f"the last check is {age / 60:.0f} minutes old: check again before saving")
        if not last.ok and not force:
            failed = ", ".join(c.name for c in last.checks if not c.ok)
            raise ApiError(409, f"the last check failed ({failed}): put that right and check again, "
                                "or save anyway (force)")
        return last.profile

    def mark_saved(self, profile: Profile) -> None:
        with self._lock:
            if self._last is not None and self._last.profile is profile and self._last_json is not None:
                self._last_json = {**self._last_json, "saved": True}


def _lens_misfit(lens: LensModel, size: tuple[int, int] | None) -> CheckResult:
    from thoughtwave.calibration.profile import CheckResult

    w, h = lens.image_size
    now = f"{size[0]}x{size[1]}" if size else "another size"
    return CheckResult("lens model", True, f"the saved lens model was made at {w}x{h}, the camera now gives {now}: "
                       "not used", "make a new one with thoughtwave calibrate --lens-camera", warning=True)


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


def _companion() -> Companion:
    return current_app.extensions["thoughtwave"]["companion"]


def _switch(companion: Companion, desk: CalibrationDesk, reader_profile: dict | None) -> None:
    """Read with ``reader_profile`` from now on; the game goes on."""
    from thoughtwave.webui.companion import vision_watcher_factory

    companion.use_watchers(vision_watcher_factory(desk.stable_seconds, reader_profile))


def _require_camera(companion: Companion, desk: CalibrationDesk) -> Path:
    """The profile's path, once sure the companion reads a camera (a scripted game has no profile to switch)."""
    try:
        from thoughtwave.vision.watch import Watcher
    except ImportError as err:
        raise ApiError(409, f"the vision pipeline is not available: {err}") from None
    if not isinstance(companion.watcher, Watcher):
        raise ApiError(409, "the companion is not reading a camera: there is no profile to change")
    if desk.profile_path is None:
        raise ApiError(409, "no state directory is configured: the profile cannot be kept")
    return desk.profile_path


def calibration_blueprint(config: Any = None) -> Blueprint:
    """The page and its API for one app; ``config`` (webui.config.Config, with the state directory serve
    uses) says where the profile lives and how long the board must hold still."""
    desk = CalibrationDesk(profile_path_of(config),
                           float(getattr(getattr(config, "vision", None), "stable_seconds", None)
                                 or DEFAULT_STABLE_SECONDS))
    bp = Blueprint("calibrate", __name__)

    @bp.record_once
    def remember(state: Any) -> None:   # the page's state, reachable from the app (tests, tools)
        state.app.extensions["calibration"] = desk

    @bp.get("/calibrate")
    def page() -> str:
        return render_template("calibrate.html", last=desk.last(), profile=profile_summary(desk.profile_path))

    @bp.get("/api/calibrate")
    def api_summary() -> Response:
        return jsonify(profile=profile_summary(desk.profile_path), last_check=desk.last())

    @bp.post("/api/calibrate/check")
    @requires_pin
    def api_check() -> Response:
        json_body()
        images = _companion().recent_images()
        if not images:
            raise ApiError(409, "no picture from the camera yet")
        return jsonify(desk.check(images))

    @bp.post("/api/calibrate/save")
    @requires_pin
    def api_save() -> Response:
        from thoughtwave.calibration.profile import save_profile

        data = json_body()
        force = data.get("force", False)
        if not isinstance(force, bool):
            raise ApiError(400, "force must be true or false")
        companion = _companion()
        path = _require_camera(companion, desk)
        profile = desk.candidate(force)
        try:
            save_profile(profile, path)
        except OSError as err:
            raise ApiError(409, f"cannot write {path}: {err.strerror or err}") from None
        _switch(companion, desk, profile.reader_profile())
        desk.mark_saved(profile)
        log.info("calibration profile saved to %s and in use", path)
        return jsonify(saved=True, file=str(path), profile=profile_summary(path))

    @bp.post("/api/calibrate/reset")
    @requires_pin
    def api_reset() -> Response:
        json_body()
        companion = _companion()
        path = _require_camera(companion, desk)
        existed = path.exists()
        try:
            path.unlink(missing_ok=True)
        except OSError as err:
            raise ApiError(409, f"cannot remove {path}: {err.strerror or err}") from None
        _switch(companion, desk, None)
        log.info("calibration profile %s removed; reading with the defaults", path)
        return jsonify(removed=existed, profile=profile_summary(path))

    return bp
