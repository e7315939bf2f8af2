"""The display and its JSON/SSE API: ``create_app(companion, pin=..., secret_key=...)`` wires the blueprints.

Anyone on the network may watch (``live``: the board and the camera preview; ``api``: the state and its
events; ``games``: past games). Changing anything (``control``, ``calibrate``) needs the PIN and the CSRF
token (``auth``). Every refusal is a 4xx JSON answer (``apierrors``). The shared state (the companion,
rendered states, stream slots, the calibration desk) is a ``WebContext`` in ``app.extensions``.
"""

from __future__ import annotations

import logging
import os
import secrets
import time
from collections.abc import Callable
from pathlib import Path

from flask import Flask
from werkzeug.routing import IntegerConverter, ValidationError

from thoughtwave.config import Config
from thoughtwave.game import Companion
from thoughtwave.webui import api, apierrors, auth, calibrate_page, control, games, language, live
from thoughtwave.webui.auth import Logins, PinLimiter
from thoughtwave.webui.calibration_desk import CalibrationDesk, desk_for
from thoughtwave.webui.context import EXTENSION, StreamSlots, WebContext

log = logging.getLogger(__name__)

#: Server threads kept for pages and control: streams get the rest.
KEPT_THREADS = 2
#: The largest id a URL may name (SQLite's 64 bits): a larger one is simply not found.
MAX_ID = 2**63 - 1


class BoundedInt(IntegerConverter):
    """``<int:...>`` that matches only ids SQLite can hold, so ``/games/99999999999999999999`` is a 404."""

    def __init__(self, map: object, *args: object, **kwargs: object) -> None:
        kwargs.setdefault("max", MAX_ID)
        super().__init__(map, *args, **kwargs)  # type: ignore[arg-type]

    def to_python(self, value: str) -> int:
        if len(value) > len(str(MAX_ID)):   # also spares int() a number of thousands of digits
            raise ValidationError()
        return super().to_python(value)


def load_secret_key(state_dir: Path) -> bytes:
    """The session signing key kept (mode 0600) in ``state_dir``, made on first use. A key others can read
    is made private again, with a warning (whoever read it could sign cookies, but not log in: logins are
    kept on the server)."""
    state_dir.mkdir(parents=True, exist_ok=True)
    path = state_dir / "secret_key"
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        mode = path.stat().st_mode & 0o777
        if mode & 0o077:
            log.warning("%s was readable by others (mode %o): made private (0600)", path, mode)
            os.chmod(path, 0o600)
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
               limiter: PinLimiter | None = None, clock: Callable[[], float] = time.time) -> Flask:
    """The Flask app serving ``companion``. ``pin`` None: nothing can be changed from the network; logins
    made with another PIN end. ``config`` gives the server's thread count, the streams one client may
    hold and where the calibration profile lives; ``desk``, ``limiter`` and ``clock`` (wall seconds, for
    logins' idle time) replace the calibration desk, the PIN limiter and the clock (tests)."""
    app = Flask(__name__)
    app.url_map.converters["int"] = BoundedInt   # before any blueprint's rules are made
    if threads is None:
        threads = config.server.threads if config is not None else 8
    per_client = config.server.streams_per_client if config is not None else None
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
    app.extensions[EXTENSION] = WebContext(companion, StreamSlots(max(1, threads - KEPT_THREADS), per_client),
                                           desk or desk_for(config), preview_fps)
    apierrors.install(app)
    language.install(app, config.display.language if config is not None else "auto")
    auth.install(app, pin, Logins(companion.store, pin, secret_key, clock), limiter)
    for blueprint in (live.bp, api.bp, games.bp, control.bp, calibrate_page.bp):
        app.register_blueprint(blueprint)
    return app
