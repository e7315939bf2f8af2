"""The display and its JSON/SSE API: ``create_app(companion, pin=..., secret_key=...)``.

Anyone on the network may watch (pages, ``/api/state``, ``/api/events``, the camera preview).
Changing anything needs the PIN, entered once (a signed session cookie), plus the session's CSRF
token on every POST (header ``X-CSRF-Token`` for JSON, field ``csrf`` for forms). Streams (SSE and
MJPEG) each hold a server thread, so they are capped below the thread count: the control API can
never be starved by open displays.
"""

from __future__ import annotations

import hmac
import json
import logging
import os
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from functools import wraps
from pathlib import Path
from typing import Any

from flask import Flask, Response, current_app, jsonify, redirect, render_template, request, session, url_for
from werkzeug.exceptions import HTTPException

from thoughtwave.engine import Colour, GameRecord, Rules
from thoughtwave.engine.record import parse_inventory
from thoughtwave.webui.boardsvg import board_svg
from thoughtwave.webui.companion import Companion, ControlError
from thoughtwave.webui.opponent import Opponent

log = logging.getLogger(__name__)

MAX_BODY = 16 * 1024
KEEPALIVE_SECONDS = 15.0
RETRY_MS = 2000
PIN_ATTEMPTS = 5          # failed PIN attempts allowed per client ...
PIN_WINDOW = 60.0         # ... per this many seconds
NAME_LENGTH = 40

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'")


class ApiError(Exception):
    """A 4xx answer with a message for the caller."""

    def __init__(self, status: int, message: str, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.retry_after = status, message, retry_after


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


class PinLimiter:
    """At most ``attempts`` failed PIN attempts per client per ``window`` seconds."""

    def __init__(self, attempts: int = PIN_ATTEMPTS, window: float = PIN_WINDOW) -> None:
        self.attempts, self.window = attempts, window
        self._failures: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def wait_seconds(self, client: str) -> int:
        """0 when ``client`` may try now, else how long to wait."""
        now = time.monotonic()
        with self._lock:
            recent = self._failures.get(client)
            while recent and recent[0] <= now - self.window:
                recent.popleft()
            if recent and len(recent) >= self.attempts:
                return max(1, int(recent[0] + self.window - now) + 1)
            return 0

    def failed(self, client: str) -> None:
        now = time.monotonic()
        with self._lock:
            if len(self._failures) > 10_000:  # a flood of addresses must not grow memory forever
                self._failures = {k: v for k, v in self._failures.items() if v and v[-1] > now - self.window}
            self._failures.setdefault(client, deque()).append(now)

    def succeeded(self, client: str) -> None:
        with self._lock:
            self._failures.pop(client, None)


class StreamSlots:
    """A counter of open streams with a cap."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.open = 0
        self._lock = threading.Lock()

    def take(self) -> bool:
        with self._lock:
            if self.open >= self.cap:
                return False
            self.open += 1
            return True

    def give_back(self) -> None:
        with self._lock:
            self.open -= 1


class _Stream:
    """A streamed body that gives its slot back when the server closes it, even if never started."""

    def __init__(self, chunks: Iterator[bytes], slots: StreamSlots) -> None:
        self._chunks, self._slots, self._closed = chunks, slots, False

    def __iter__(self) -> _Stream:
        return self

    def __next__(self) -> bytes:
        return next(self._chunks)

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            try:
                self._chunks.close()  # type: ignore[attr-defined]
            finally:
                self._slots.give_back()


def check_csrf() -> None:
    """Refuse (403) a POST without this session's CSRF token (header ``X-CSRF-Token`` or form field ``csrf``)."""
    sent = request.headers.get("X-CSRF-Token") or request.form.get("csrf") or ""
    token = session.get("csrf")
    if not isinstance(token, str) or not hmac.compare_digest(sent.encode(), token.encode()):
        raise ApiError(403, "missing or wrong CSRF token: reload the page")


def is_authorised() -> bool:
    """Whether this session has entered the PIN (never, when no PIN is set)."""
    return current_app.extensions["thoughtwave"]["pin"] is not None and session.get("auth") is True


def requires_pin(view: Callable) -> Callable:
    """Decorate a view that changes anything (new game, undo, calibration...): CSRF token, then PIN session.

    Other pages (the calibration page) use it on their POST views: ``@bp.post(...) @requires_pin``.
    """
    @wraps(view)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        check_csrf()
        if not is_authorised():
            pin_set = current_app.extensions["thoughtwave"]["pin"] is not None
            raise ApiError(401, "enter the PIN first" if pin_set else "changes are locked: no PIN is set")
        return view(*args, **kwargs)
    return wrapped


def json_body() -> dict:
    """The request's JSON object ({} for an empty body); ApiError 400 for anything else."""
    if not request.get_data(cache=True):
        return {}
    data = request.get_json(force=True, silent=True)
    if not isinstance(data, dict):
        raise ApiError(400, "the body must be a JSON object")
    return data


def _setting(config: Any, dotted: str, default: Any) -> Any:
    value = config
    for part in dotted.split("."):
        value = getattr(value, part, None)
        if value is None:
            return default
    return value


def create_app(companion: Companion, *, pin: str | None, secret_key: bytes, config: Any = None,
               threads: int | None = None, preview_fps: float = 5.0) -> Flask:
    """The Flask app serving ``companion``. ``pin`` None: nothing can be changed from the network."""
    app = Flask(__name__)
    threads = threads or int(_setting(config, "server.threads", 8))
    app.config.update(
        SECRET_KEY=secret_key,
        MAX_CONTENT_LENGTH=MAX_BODY,
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Strict",
        SESSION_COOKIE_NAME="thoughtwave",
        JSON_SORT_KEYS=False,
        TEMPLATES_AUTO_RELOAD=False,
    )
    app.json.sort_keys = False  # type: ignore[attr-defined]
    limiter = PinLimiter()
    slots = StreamSlots(max(1, threads - 2))
    app.extensions["thoughtwave"] = {"companion": companion, "slots": slots, "limiter": limiter, "pin": pin}
    message_cache: dict[str, Any] = {"version": None, "data": b""}
    cache_lock = threading.Lock()

    # ---- helpers -----------------------------------------------------------------------------
    def csrf_token() -> str:
        token = session.get("csrf")
        if not isinstance(token, str):
            token = secrets.token_urlsafe(32)
            session["csrf"] = token
        return token

    authorised = is_authorised
    control = requires_pin

    def client() -> str:
        return request.remote_addr or "?"

    def text_field(data: dict, name: str, limit: int = NAME_LENGTH) -> str:
        value = data.get(name, "")
        if value is None:
            return ""
        if not isinstance(value, str):
            raise ApiError(400, f"{name} must be a string")
        value = " ".join(value.split())
        if len(value) > limit:
            raise ApiError(400, f"{name} must be at most {limit} characters")
        return value

    def try_pin(given: Any) -> None:
        wait = limiter.wait_seconds(client())
        if wait:
            raise ApiError(429, f"too many wrong PINs: try again in {wait} s", retry_after=wait)
        if pin is None:
            raise ApiError(403, "changes are locked: no PIN is set")
        if not isinstance(given, str) or not hmac.compare_digest(given.strip().encode(), pin.encode()):
            limiter.failed(client())
            raise ApiError(403, "wrong PIN")
        limiter.succeeded(client())
        session.clear()
        session["auth"] = True
        session["csrf"] = secrets.token_urlsafe(32)  # a fresh token once authorised

    def state_message() -> tuple[int, bytes]:
        state = companion.state()
        version = state.get("version", 0)
        with cache_lock:
            if message_cache["version"] != version:
                message_cache["version"] = version
                message_cache["data"] = f"id: {version}\ndata: {json.dumps(state)}\n\n".encode()
            return version, message_cache["data"]

    def stream(chunks: Iterator[bytes], mimetype: str) -> Response:
        response = Response(_Stream(chunks, slots), mimetype=mimetype, direct_passthrough=True)
        response.headers["Cache-Control"] = "no-cache, no-store"
        response.headers["X-Accel-Buffering"] = "no"
        return response

    def take_slot() -> None:
        if not slots.take():
            raise ApiError(503, "too many open displays: try again shortly", retry_after=5)

    # ---- errors and headers --------------------------------------------------------------------
    @app.errorhandler(ApiError)
    def api_error(err: ApiError) -> Response:
        response = jsonify(error=err.message)
        response.status_code = err.status
        if err.retry_after:
            response.headers["Retry-After"] = str(err.retry_after)
        return response

    @app.errorhandler(HTTPException)
    def http_error(err: HTTPException) -> Response:
        messages = {400: "bad request", 404: "not found", 405: "method not allowed",
                    413: f"the body is too large (at most {MAX_BODY // 1024} KB)"}
        response = jsonify(error=messages.get(err.code or 500, err.description or "error"))
        response.status_code = err.code or 500
        return response

    @app.errorhandler(Exception)
    def bug(err: Exception) -> Response:
        log.exception("unexpected error on %s %s", request.method, request.path)
        response = jsonify(error="internal error (it has been logged)")
        response.status_code = 500
        return response

    @app.after_request
    def security_headers(response: Response) -> Response:
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Content-Security-Policy", CSP)
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        response.headers.setdefault("X-Frame-Options", "DENY")
        if request.path.startswith("/api/"):
            response.headers.setdefault("Cache-Control", "no-store")
        return response

    @app.context_processor
    def page_values() -> dict:
        return {"csrf": csrf_token(), "authorised": authorised(), "pin_set": pin is not None}

    # ---- pages ---------------------------------------------------------------------------------
    @app.get("/")
    def live() -> str:
        return render_template("live.html", state=companion.state())

    @app.get("/control")
    def control_page() -> str:
        state = companion.state()
        return render_template("control.html", state=state, rules=state.get("rules") or {})

    @app.route("/login", methods=["GET", "POST"])
    def login_page() -> Any:
        error = None
        if request.method == "POST":
            try:
                check_csrf()
                try_pin(request.form.get("pin", ""))
                return redirect(url_for("control_page"), code=303)
            except ApiError as err:
                error = err.message
                return render_template("login.html", error=error), err.status
        return render_template("login.html", error=error)

    @app.post("/logout")
    def logout_page() -> Any:
        check_csrf()
        session.clear()
        return redirect(url_for("live"), code=303)

    @app.get("/games")
    def games_page() -> str:
        rows = companion.store.games()
        return render_template("games.html", games=[g.to_json() for g in rows])

    @app.get("/games/<int:game_id>")
    def game_page(game_id: int) -> str:
        game, record, referee_state = game_view(game_id)
        return render_template("game.html", game=game, moves=[m for m in referee_state["moves"]],
                               svg=referee_state["svg"], record=record)

    @app.get("/games/<int:game_id>/record.txt")
    def game_record(game_id: int) -> Response:
        record = companion.store.record(game_id)
        if record is None:
            raise ApiError(404, f"there is no game {game_id}")
        response = Response(record.to_text(), mimetype="text/plain")
        response.headers["Content-Disposition"] = f'attachment; filename="thoughtwave-game-{game_id}.txt"'
        return response

    def game_view(game_id: int) -> tuple[dict, GameRecord, dict]:
        row = companion.store.game(game_id)
        record = companion.store.record(game_id)
        if row is None or record is None:
            raise ApiError(404, f"there is no game {game_id}")
        referee = record.replay()
        cells = {str(v.cell): (v.colour.value, str(v.piece)) for v in referee.verdicts
                 if v.outcome.value == "legal" and v.cell and v.colour and v.piece}
        wave = [str(c) for c in referee.winning_wave()]
        last = next((str(v.cell) for v in reversed(referee.verdicts) if v.cell), None)
        moves = [{k: v.to_json()[k] for k in ("n", "colour", "move", "verdict", "reason")} for v in referee.verdicts]
        svg = board_svg(cells, last=last, wave=wave, red_sides=row.rules.red_sides, title=f"Game {game_id}")
        return row.to_json(), record, {"moves": moves, "svg": svg, "result": referee.result,
                                       "cells": {k: {"colour": c, "piece": p} for k, (c, p) in cells.items()}}

    @app.get("/board.svg")
    def board_image() -> Response:
        response = Response(companion.state().get("svg", ""), mimetype="image/svg+xml")
        response.headers["Cache-Control"] = "no-store"
        return response

    # ---- reading API ---------------------------------------------------------------------------
    @app.get("/api/state")
    def api_state() -> Response:
        return jsonify(companion.state())

    @app.get("/api/session")
    def api_session() -> Response:
        return jsonify(authorised=authorised(), csrf=csrf_token(), pin_set=pin is not None)

    @app.get("/api/games")
    def api_games() -> Response:
        return jsonify(games=[g.to_json() for g in companion.store.games()])

    @app.get("/api/games/<int:game_id>")
    def api_game(game_id: int) -> Response:
        game, _, view = game_view(game_id)
        return jsonify(game=game, moves=view["moves"], cells=view["cells"], result=view["result"])

    @app.get("/api/events")
    def api_events() -> Response:
        take_slot()

        def chunks() -> Iterator[bytes]:
            version, data = state_message()
            yield f"retry: {RETRY_MS}\n".encode() + data
            while not companion.stopping:
                if companion.wait_for_change(version, KEEPALIVE_SECONDS) is None:
                    if companion.stopping:
                        return
                    yield b": keep-alive\n\n"
                    continue
                version, data = state_message()
                yield data

        return stream(chunks(), "text/event-stream")

    @app.get("/preview.jpg")
    def preview_jpeg() -> Response:
        _, jpeg = companion.preview()
        if jpeg is None:
            raise ApiError(503, "no camera picture yet", retry_after=5)
        response = Response(jpeg, mimetype="image/jpeg")
        response.headers["Cache-Control"] = "no-store"
        return response

    @app.get("/preview.mjpg")
    def preview_stream() -> Response:
        if companion.preview()[1] is None:
            raise ApiError(503, "no camera picture yet", retry_after=5)
        take_slot()
        period = 1.0 / preview_fps

        def chunks() -> Iterator[bytes]:
            seq = -1
            while not companion.stopping:
                started = time.monotonic()
                seq, jpeg = companion.wait_for_preview(seq, KEEPALIVE_SECONDS)
                if jpeg is None:
                    return
                head = b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: %d\r\n\r\n" % len(jpeg)
                yield head + jpeg + b"\r\n"
                rest = period - (time.monotonic() - started)
                if rest > 0:
                    time.sleep(rest)

        return stream(chunks(), "multipart/x-mixed-replace; boundary=frame")

    # ---- control API ---------------------------------------------------------------------------
    @app.post("/api/login")
    def api_login() -> Response:
        check_csrf()
        try_pin(json_body().get("pin"))
        return jsonify(ok=True, csrf=session["csrf"])

    @app.post("/api/logout")
    def api_logout() -> Response:
        check_csrf()
        session.clear()
        return jsonify(ok=True, csrf=csrf_token())

    @app.post("/api/game/new")
    @control
    def api_new_game() -> Response:
        data = json_body()
        base = companion.game_rules()
        rules_data: dict[str, Any] = {k: data[k] for k in ("penalty", "red_sides", "first") if k in data}
        inventory = data.get("inventory") or {}
        if not isinstance(inventory, dict):
            raise ApiError(400, "inventory must be an object: {\"red\": {\"bend\": 9}, ...}")
        inventory = dict(inventory)
        for colour in Colour:
            text = data.get(f"{colour.value}_pieces")
            if text:
                if not isinstance(text, str):
                    raise ApiError(400, f"{colour.value}_pieces must be text like 'cross=1 bend=9'")
                try:
                    inventory[colour.value] = {k.value: n for k, n in parse_inventory(text).items()}
                except ValueError as err:
                    raise ApiError(400, f"{colour.value}_pieces: {err}") from None
        rules_data["inventory"] = {**base.to_json()["inventory"], **inventory}
        try:
            rules = Rules.from_json(rules_data, base)
        except (ValueError, TypeError) as err:
            raise ApiError(400, str(err)) from None
        opponent = companion.game_opponent()      # absent: the same kind of game as now
        if "computer" in data:
            try:
                opponent = Opponent.from_json({"colour": data["computer"], "level": data.get("level", 3),
                                               "seconds": data.get("seconds", 1.0)})
            except ValueError as err:
                raise ApiError(400, str(err)) from None
        state = companion.new_game(rules, text_field(data, "red"), text_field(data, "black"), opponent)
        return jsonify(state)

    @app.post("/api/game/end")
    @control
    def api_end_game() -> Response:
        json_body()
        return jsonify(companion.end_game())

    @app.post("/api/undo")
    @control
    def api_undo() -> Response:
        json_body()
        try:
            return jsonify(companion.undo())
        except ControlError as err:
            raise ApiError(409, str(err)) from None

    @app.post("/api/correct")
    @control
    def api_correct() -> Response:
        data = json_body()
        cell, colour, piece = data.get("cell"), data.get("colour"), data.get("piece")
        if not isinstance(cell, str):
            raise ApiError(400, "cell must be a string like \"E5\"")
        for name, value in (("colour", colour), ("piece", piece)):
            if value is not None and not isinstance(value, str):
                raise ApiError(400, f"{name} must be a string or null")
        if piece in ("", "empty", "none"):
            piece = None
        try:
            return jsonify(companion.correct(cell, colour or None, piece))
        except ControlError as err:
            raise ApiError(400, str(err)) from None

    from thoughtwave.webui.calibrate_page import calibration_blueprint  # here, not at the top: it imports this module
    app.register_blueprint(calibration_blueprint(config))
    return app
