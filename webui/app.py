"""The display and its JSON/SSE API: ``create_app(companion, pin=..., secret_key=...)`` wires the blueprints.

Anyone on the network may watch (``live``: the board and the camera preview; ``api``: the state and its
events; ``games``: past games). Changing anything (``control``, ``calibrate``) needs the PIN and the CSRF
token (``auth``). Every refusal is a 4xx JSON answer (``apierrors``). The shared state (the companion,
rendered states, stream slots, the calibration desk) is a ``WebContext`` in ``app.extensions``.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from flask import Flask

from thoughtwave.config import Config
from thoughtwave.game import Companion
from thoughtwave.webui import api, apierrors, auth, calibrate_page, control, games, language, live
from thoughtwave.webui.auth import PinLimiter
from thoughtwave.webui.calibration_desk import CalibrationDesk, desk_for
from thoughtwave.webui.context import EXTENSION, StreamSlots, WebContext

#: Server threads kept for pages and control: streams get the rest.
KEPT_THREADS = 2


def load_secret_key(state_dir: Path) -> bytes:
    """The session signing key kept (mode 0600) in ``state_dir``, made on first use."""
    state_dir.mkdir(parents=True, exist_ok=True)
    path = state_dir / "secret_key"
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        key = path.read_bytes()
        if len(key) >= 32:
            return key
        path.unlink()  # a truncated key (power cut while writing): make a new one
        return load_secret_key(state_dir)
    key = secrets.token_bytes(32)
    with os.fdopen(fd, "wb") as out:
        out.write(key)
        out.flush()
        os.fsync(out.fileno())
    return key


def create_app(companion: Companion, *, pin: str | None, secret_key: bytes, config: Config | None = None,
               threads: int | None = None, preview_fps: float = 5.0, desk: CalibrationDesk | None = None,
               limiter: PinLimiter | None = None) -> Flask:
    """The Flask app serving ``companion``. ``pin`` None: nothing can be changed from the network.
    ``config`` gives the server's thread count and where the calibration profile lives; ``desk`` and
    ``limiter`` replace the calibration desk and the PIN limiter (tests)."""
    app = Flask(__name__)
    if threads is None:
        threads = config.server.threads if config is not None else 8
    app.config.update(
        SECRET_KEY=secret_key,
        MAX_CONTENT_LENGTH=apierrors.MAX_BODY,
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Strict",
        SESSION_COOKIE_NAME="thoughtwave",
        JSON_SORT_KEYS=False,
        TEMPLATES_AUTO_RELOAD=False,
    )
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.extensions[EXTENSION] = WebContext(companion, StreamSlots(max(1, threads - KEPT_THREADS)),
                                           desk or desk_for(config), preview_fps)
    apierrors.install(app)
    language.install(app, config.display.language if config is not None else "auto")
    auth.install(app, pin, limiter)
    for blueprint in (live.bp, api.bp, games.bp, control.bp, calibrate_page.bp):
        app.register_blueprint(blueprint)
    return app
