"""Who may change anything: anyone may watch; a change needs the PIN, entered once, plus the session's CSRF
token on every POST (header ``X-CSRF-Token`` for JSON, field ``csrf`` for forms). Failed PINs are
rate-limited per client. Without a PIN nothing can be changed.

A login lives on the server (``Logins``, kept in the state database): the signed cookie only carries its
random token. Logging out ends it (a copied cookie stops working too); so do 12 idle hours, and a start
with another PIN ends every earlier login.

``requires_pin`` guards a view; the ``auth`` blueprint holds the login and logout page and API.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import wraps
from typing import Any

from flask import (
    Blueprint,
    Flask,
    Response,
    current_app,
    g,
    jsonify,
    redirect,
    render_template,
    request,
    session,
    url_for,
)

from thoughtwave.game import StorageError, Store
from thoughtwave.webui.apierrors import ApiError
from thoughtwave.webui.schemas import Empty, Login, body

log = logging.getLogger(__name__)

PIN_ATTEMPTS = 5          # failed PIN attempts allowed per client ...
PIN_WINDOW = 60.0         # ... per this many seconds
EXTENSION = "thoughtwave.auth"
IDLE_SECONDS = 12 * 3600  # a login unused this long has ended
TOUCH_SECONDS = 60.0      # a login's last use is written at most this often (each write is an fsync)


class PinLimiter:
    """At most ``attempts`` failed PIN attempts per client per ``window`` seconds (``clock``: monotonic)."""

    def __init__(self, attempts: int = PIN_ATTEMPTS, window: float = PIN_WINDOW,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.attempts, self.window = attempts, window
        self._clock = clock
        self._failures: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def wait_seconds(self, client: str) -> int:
        """0 when ``client`` may try now, else how long to wait."""
        now = self._clock()
        with self._lock:
            recent = self._failures.get(client)
            while recent and recent[0] <= now - self.window:
                recent.popleft()
            if recent and len(recent) >= self.attempts:
                return max(1, int(recent[0] + self.window - now) + 1)
            return 0

    def failed(self, client: str) -> None:
        now = self._clock()
        with self._lock:
            if len(self._failures) > 10_000:  # a flood of addresses must not grow memory forever
                self._failures = {k: v for k, v in self._failures.items() if v and v[-1] > now - self.window}
            self._failures.setdefault(client, deque()).append(now)

    def succeeded(self, client: str) -> None:
        with self._lock:
            self._failures.pop(client, None)


class Logins:
    """The logins made with this app's PIN, kept in ``store``: each a random token in the signed cookie, its
    digest in the store with a digest of the PIN it was made with and when it was last used (``clock``:
    wall seconds). Made, the logins of any other PIN and those idle for ``idle`` seconds are ended."""

    def __init__(self, store: Store, pin: str | None, secret_key: bytes, clock: Callable[[], float] = time.time,
                 idle: float = IDLE_SECONDS) -> None:
        self.store, self.idle, self._clock = store, idle, clock
        self._pin = hmac.new(secret_key, b"pin:" + pin.encode(), hashlib.sha256).hexdigest() if pin else None
        try:
            store.end_logins(self._pin, clock() - idle)
        except StorageError as err:   # the store then refuses logins too: nobody is let in by mistake
            log.warning("could not end the earlier logins: %s", err)

    def start(self) -> str:
        """A new login's token (for the cookie); ApiError 503 when it cannot be kept."""
        token = secrets.token_urlsafe(32)
        try:
            self.store.add_login(_digest(token), self._pin or "", self._clock())
        except StorageError as err:
            raise ApiError(503, f"could not keep the login ({err}): try again") from None
        return token

    def valid(self, token: Any) -> bool:
        """Whether ``token`` is a login made with this PIN and used in the last ``idle`` seconds."""
        if self._pin is None or not isinstance(token, str):
            return False
        digest, now = _digest(token), self._clock()
        try:
            found = self.store.login_seen(digest)
            if found is None or not hmac.compare_digest(found[0], self._pin) or found[1] < now - self.idle:
                return False
            if now - found[1] >= TOUCH_SECONDS:
                self.store.touch_login(digest, now)
        except StorageError as err:
            log.warning("could not check a login: %s", err)
            return False
        return True

    def end(self, token: Any) -> None:
        """End the login ``token`` (and so every copy of its cookie)."""
        if isinstance(token, str):
            try:
                self.store.end_login(_digest(token))
            except StorageError as err:
                raise ApiError(503, f"could not end the login ({err}): try again") from None


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class Guard:
    """An app's PIN (None: changes are locked), its logins and its limiter."""

    pin: str | None
    logins: Logins
    limiter: PinLimiter = field(default_factory=PinLimiter)


def install(app: Flask, pin: str | None, logins: Logins, limiter: PinLimiter | None = None) -> None:
    """Guard ``app``'s changes with ``pin`` and ``logins``; pages get ``csrf``, ``authorised`` and ``pin_set``."""
    app.extensions[EXTENSION] = Guard(pin, logins, limiter or PinLimiter())
    app.context_processor(page_values)
    app.register_blueprint(bp)


def guard() -> Guard:
    return current_app.extensions[EXTENSION]


def page_values() -> dict:
    return {"csrf": csrf_token(), "authorised": is_authorised(), "pin_set": guard().pin is not None}


def csrf_token() -> str:
    """This session's CSRF token (made on first use)."""
    token = session.get("csrf")
    if not isinstance(token, str):
        token = secrets.token_urlsafe(32)
        session["csrf"] = token
    return token


def check_csrf() -> None:
    """Refuse (403) a POST without this session's CSRF token (header ``X-CSRF-Token`` or form field ``csrf``)."""
    sent = request.headers.get("X-CSRF-Token") or request.form.get("csrf") or ""
    token = session.get("csrf")
    if not isinstance(token, str) or not hmac.compare_digest(sent.encode(), token.encode()):
        raise ApiError(403, "missing or wrong CSRF token: reload the page")


def is_authorised() -> bool:
    """Whether this session has entered the PIN and its login still stands (never, when no PIN is set)."""
    if "thoughtwave_authorised" not in g:
        g.thoughtwave_authorised = guard().pin is not None and guard().logins.valid(session.get("login"))
    return g.thoughtwave_authorised


def _log_out() -> None:
    guard().logins.end(session.get("login"))
    session.clear()
    g.thoughtwave_authorised = False


def requires_pin(view: Callable) -> Callable:
    """Decorate a view that changes anything (new game, undo, calibration...): CSRF token, then PIN session.

    Every blueprint uses it on its POST views: ``@bp.post(...) @requires_pin``.
    """
    @wraps(view)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        check_csrf()
        if not is_authorised():
            pin_set = guard().pin is not None
            raise ApiError(401, "enter the PIN first" if pin_set else "changes are locked: no PIN is set")
        return view(*args, **kwargs)
    return wrapped


def try_pin(given: Any) -> None:
    """Log this session in with ``given``; ApiError 429 while rate-limited, 403 for a wrong PIN."""
    rules, client = guard(), request.remote_addr or "?"
    wait = rules.limiter.wait_seconds(client)
    if wait:
        raise ApiError(429, f"too many wrong PINs: try again in {wait} s", retry_after=wait)
    if rules.pin is None:
        raise ApiError(403, "changes are locked: no PIN is set")
    if not isinstance(given, str) or not hmac.compare_digest(given.strip().encode(), rules.pin.encode()):
        rules.limiter.failed(client)
        raise ApiError(403, "wrong PIN")
    rules.limiter.succeeded(client)
    token = rules.logins.start()
    rules.logins.end(session.get("login"))   # an earlier login of this cookie ends
    session.clear()
    session["login"] = token
    session["csrf"] = secrets.token_urlsafe(32)  # a fresh token once authorised
    g.thoughtwave_authorised = True


bp = Blueprint("auth", __name__)


@bp.route("/login", methods=["GET", "POST"])
def login_page() -> Any:
    if request.method == "POST":
        try:
            check_csrf()
            try_pin(request.form.get("pin", ""))
            return redirect(url_for("control.page"), code=303)
        except ApiError as err:
            return render_template("login.html", error=err.message), err.status
    return render_template("login.html", error=None)


@bp.post("/logout")
def logout_page() -> Any:
    check_csrf()
    _log_out()
    return redirect(url_for("live.page"), code=303)


@bp.get("/api/session")
def api_session() -> Response:
    return jsonify(authorised=is_authorised(), csrf=csrf_token(), pin_set=guard().pin is not None)


@bp.post("/api/login")
def api_login() -> Response:
    check_csrf()
    try_pin(body(Login).get("pin"))
    return jsonify(ok=True, csrf=session["csrf"])


@bp.post("/api/logout")
def api_logout() -> Response:
    check_csrf()
    body(Empty)
    _log_out()
    return jsonify(ok=True, csrf=csrf_token())
