"""How the web layer answers: every refusal is a 4xx JSON ``{"error": ...}`` (``ApiError``), anything
unexpected a logged 500, and every answer carries the security headers (a strict CSP: no inline script).

A refusal made with ``refused`` carries its phrase, so its ``error`` is in the request's language (the
page's: Accept-Language, the switch's cookie); a client that asks for no language gets the English words."""

from __future__ import annotations

import json
import logging
import re
from typing import Any

from flask import Flask, Response, jsonify, request
from werkzeug.exceptions import HTTPException

from thoughtwave.engine.phrases import Phrase
from thoughtwave.game import StorageError
from thoughtwave.i18n.refusals import refusal
from thoughtwave.webui.language import text

log = logging.getLogger(__name__)

#: The largest request body taken, in bytes.
MAX_BODY = 16 * 1024
NAME_LENGTH = 40
#: The deepest nesting of arrays and objects a body may have (the deepest body we take has 3 levels).
MAX_DEPTH = 8
#: The largest whole number a body may hold: SQLite's and the ids' 64 bits.
MAX_INT = 2**63 - 1

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'")


class ApiError(Exception):
    """A 4xx answer with a message for the caller."""

    def __init__(self, status: int, message: str, retry_after: int | None = None, close: bool = False,
                 why: Phrase | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.retry_after, self.close = status, message, retry_after, close
        self.why = why


def refused(status: int, code: str, english: str, **values: object) -> ApiError:
    """The refusal ``code`` (``thoughtwave.i18n.refusals``) with its ``values``, worded ``english`` in English."""
    return ApiError(status, english, why=Phrase.of(code, english, **values))


def json_body() -> dict:
    """The request's JSON object ({} for an empty body); ApiError 400 for anything else: not UTF-8, not JSON,
    not an object, nested deeper than ``MAX_DEPTH``, ``NaN`` or ``Infinity``, a whole number past 64 bits,
    or text with a lone surrogate (SQLite cannot store it). Checked before and while parsing, never by
    recursing on the caller's nesting."""
    raw = request.get_data(cache=True)
    if not raw:
        return {}
    try:
        body = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise refused(400, "body-not-utf8", "the body must be UTF-8 JSON") from None
    if nesting(body) > MAX_DEPTH:
        raise refused(400, "body-too-deep", f"the body is nested too deeply (at most {MAX_DEPTH} levels)",
                      depth=MAX_DEPTH)
    try:
        data = json.loads(body, parse_constant=_no_constant, parse_float=_finite, parse_int=_bounded)
    except ValueError as err:   # JSONDecodeError and ours are both ValueError
        raise refused(400, "body-not-json", f"the body must be a JSON object: {err}", detail=str(err)) from None
    if not isinstance(data, dict):
        raise refused(400, "body-not-object", "the body must be a JSON object")
    bad = unstorable(data)
    if bad is not None:
        raise refused(400, "body-surrogate", f"{bad}: text with a lone surrogate (\\ud800-\\udfff) cannot be stored",
                      where=bad)
    return data


_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"')


def nesting(text: str) -> int:
    """How deeply the arrays and objects of JSON ``text`` nest (brackets inside strings do not count)."""
    depth = deepest = 0
    for char in _STRINGS.sub("", text):
        if char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def _finite(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"{text} is too large a number")
    return value


def _bounded(text: str) -> int:
    if len(text) > 20:
        raise ValueError("a whole number has too many digits")
    value = int(text)
    if not -MAX_INT - 1 <= value <= MAX_INT:
        raise ValueError(f"{text} is outside 64 bits")
    return value


def storable(text: str) -> bool:
    """Whether ``text`` can be stored (encoded as UTF-8): no lone surrogates."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def unstorable(data: Any, where: str = "") -> str | None:
    """The path (``red`` or ``inventory.red``) of the first text in ``data`` that cannot be stored, or None.
    ``data`` is at most ``MAX_DEPTH`` deep (checked before parsing), so the recursion is bounded."""
    if isinstance(data, str):
        return None if storable(data) else (where or "the body")
    items = data.items() if isinstance(data, dict) else enumerate(data) if isinstance(data, list) else ()
    for key, value in items:
        path = f"{where}.{key}" if where else str(key)
        if isinstance(key, str) and not storable(key):
            return where or "a field name"
        found = unstorable(value, path)
        if found is not None:
            return found
    return None


def text_field(data: dict, name: str, limit: int = NAME_LENGTH) -> str:
    """A short text field of a JSON body, its spaces tidied; ApiError 400 when it is not text or too long."""
    value = data.get(name, "")
    if value is None:
        return ""
    if not isinstance(value, str):
        raise refused(400, "field-not-text", f"{name} must be a string", field=name)
    value = " ".join(value.split())
    if len(value) > limit:
        raise refused(400, "field-too-long", f"{name} must be at most {limit} characters", field=name, limit=limit)
    return value


def _said(why: Phrase) -> str:
    return refusal(text(), why)


def api_error(err: ApiError) -> Response:
    response = jsonify(error=_said(err.why) if err.why is not None else err.message)
    response.status_code = err.status
    if err.retry_after:
        response.headers["Retry-After"] = str(err.retry_after)
    if err.close:
        # The connection is closed after this answer, so a refused client holds no connection either. A WSGI
        # app may not send `Connection` itself (PEP 3333, hop-by-hop); an answer of unknown length is one
        # a server must close after, and waitress then says `Connection: close`.
        body = response.get_data()
        response.response = iter([body])
        del response.headers["Content-Length"]
    return response


def http_error(err: HTTPException) -> Response:
    kb = MAX_BODY // 1024
    phrases = {400: Phrase.of("bad-request", "bad request"), 404: Phrase.of("not-found", "not found"),
               405: Phrase.of("method-not-allowed", "method not allowed"),
               413: Phrase.of("body-too-large", f"the body is too large (at most {kb} KB)", kb=kb)}
    phrase = phrases.get(err.code or 500)
    response = jsonify(error=_said(phrase) if phrase is not None else err.description or "error")
    response.status_code = err.code or 500
    return response


def not_stored(err: StorageError) -> Response:
    log.warning("a change could not be stored on %s %s: %s", request.method, request.path, err)
    said = Phrase.of("not-stored", f"the change could not be saved ({err}); nothing was changed", error=str(err))
    response = jsonify(error=_said(said))
    response.status_code = 400
    return response


def bug(err: Exception) -> Response:
    log.exception("unexpected error on %s %s", request.method, request.path)
    response = jsonify(error=_said(Phrase.of("internal-error", "internal error (it has been logged)")))
    response.status_code = 500
    return response


def security_headers(response: Response) -> Response:
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Content-Security-Policy", CSP)
    response.headers.setdefault("Referrer-Policy", "no-referrer")
    response.headers.setdefault("X-Frame-Options", "DENY")
    if request.path.startswith("/api/"):
        response.headers.setdefault("Cache-Control", "no-store")
    return response


def install(app: Flask) -> None:
    """Answer errors as JSON and add the security headers, for every view of ``app``."""
    app.register_error_handler(ApiError, api_error)
    app.register_error_handler(HTTPException, http_error)
    app.register_error_handler(StorageError, not_stored)
    app.register_error_handler(Exception, bug)
    app.after_request(security_headers)
