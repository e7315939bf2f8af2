"""The calibration page: ``/calibrate`` walks through setting up the camera with the live preview and the
results of the last check; ``/api/calibrate/...`` checks the camera's latest pictures, saves the profile
and switches the running companion to it without losing the game.

Anyone may look (``GET /calibrate``, ``GET /api/calibrate``); ``check``, ``save`` and ``reset`` need the
PIN and the CSRF token like every other change. Every refusal is a 4xx JSON ``{"error": ...}``. The
desk (``webui.calibration_desk``) does the measuring; it is the app's (``web().desk``).
"""

from __future__ import annotations

import logging
from pathlib import Path

from flask import Blueprint, Response, jsonify, render_template

from thoughtwave.calibration.profile import save_profile
from thoughtwave.game import Companion, vision_watcher_factory
from thoughtwave.vision.watch import Watcher
from thoughtwave.webui.apierrors import json_body, refused
from thoughtwave.webui.auth import requires_pin
from thoughtwave.webui.calibration_desk import CalibrationDesk, profile_summary
from thoughtwave.webui.context import web
from thoughtwave.webui.language import text

log = logging.getLogger(__name__)

bp = Blueprint("calibrate", __name__)


def _switch(companion: Companion, desk: CalibrationDesk, reader_profile: dict | None) -> None:
    """Read with ``reader_profile`` from now on; the game goes on."""
    companion.use_watchers(vision_watcher_factory(desk.stable_seconds, reader_profile))


def _require_camera(companion: Companion, desk: CalibrationDesk) -> Path:
    """The profile's path, once sure the companion reads a camera (a scripted game has no profile to switch)."""
    if not isinstance(companion.watcher, Watcher):
        raise refused(409, "not-a-camera", "the companion is not reading a camera: there is no profile to change")
    if desk.profile_path is None:
        raise refused(409, "no-state-dir", "no state directory is configured: the profile cannot be kept")
    return desk.profile_path


@bp.get("/calibrate")
def page() -> str:
    desk = web().desk
    return render_template("calibrate.html", last=desk.last(text()), profile=profile_summary(desk.profile_path, text()))


@bp.get("/api/calibrate")
def api_summary() -> Response:
    desk = web().desk
    return jsonify(profile=profile_summary(desk.profile_path, text()), last_check=desk.last(text()))


@bp.post("/api/calibrate/check")
@requires_pin
def api_check() -> Response:
    json_body()
    images = web().companion.recent_images()
    if not images:
        raise refused(409, "no-picture", "no picture from the camera yet")
    return jsonify(web().desk.check(images, text()))


@bp.post("/api/calibrate/save")
@requires_pin
def api_save() -> Response:
    data = json_body()
    force = data.get("force", False)
    if not isinstance(force, bool):
        raise refused(400, "field-not-bool", "force must be true or false", field="force")
    companion, desk = web().companion, web().desk
    path = _require_camera(companion, desk)
    profile = desk.candidate(force)
    try:
        save_profile(profile, path)
    except OSError as err:
        raise refused(409, "cannot-write", f"cannot write {path}: {err.strerror or err}", path=str(path),
                      error=str(err.strerror or err)) from None
    _switch(companion, desk, profile.reader_profile())
    desk.mark_saved(profile)
    log.info("calibration profile saved to %s and in use", path)
    return jsonify(saved=True, file=str(path), profile=profile_summary(path, text()))


@bp.post("/api/calibrate/reset")
@requires_pin
def api_reset() -> Response:
    json_body()
    companion, desk = web().companion, web().desk
    path = _require_camera(companion, desk)
    existed = path.exists()
    try:
        path.unlink(missing_ok=True)
    except OSError as err:
        raise refused(409, "cannot-remove", f"cannot remove {path}: {err.strerror or err}", path=str(path),
                      error=str(err.strerror or err)) from None
    _switch(companion, desk, None)
    log.info("calibration profile %s removed; reading with the defaults", path)
    return jsonify(removed=existed, profile=profile_summary(path, text()))
