"""How the web layer answers: every refusal is a 4xx JSON ``{"error": ...}`` (``ApiError``), anything
unexpected a logged 500, and every answer carries the security headers (a strict CSP: no inline script)."""

from __future__ import annotations

import logging

from flask import Flask, Response, jsonify, request
from werkzeug.exceptions import HTTPException

log = logging.getLogger(__name__)

#: The largest request body taken, in bytes.
MAX_BODY = 16 * 1024
NAME_LENGTH = 40

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'")


class ApiError(Exception):
    """A 4xx answer with a message for the caller."""

    def __init__(self, status: int, message: str, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.retry_after = status, message, retry_after


def json_body() -> dict:
    """The request's JSON object ({} for an empty body); ApiError 400 for anything else."""
    if not request.get_data(cache=True):
        return {}
    data = request.get_json(force=True, silent=True)
    if not isinstance(data, dict):
        raise ApiError(400, "the body must be a JSON object")
    return data


def text_field(data: dict, name: str, limit: int = NAME_LENGTH) -> str:
    """A short text field of a JSON body, its spaces tidied; ApiError 400 when it is not text or too long."""
    value = data.get(name, "")
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ApiError(400, f"{name} must be a string")
    value = " ".join(value.split())
    if len(value) > limit:
        raise ApiError(400, f"{name} must be at most {limit} characters")
    return value


def api_error(err: ApiError) -> Response:
    response = jsonify(error=err.message)
    response.status_code = err.status
    if err.retry_after:
        response.headers["Retry-After"] = str(err.retry_after)
    return response


def http_error(err: HTTPException) -> Response:
    messages = {400: "bad request", 404: "not found", 405: "method not allowed",
                413: f"the body is too large (at most {MAX_BODY // 1024} KB)"}
    response = jsonify(error=messages.get(err.code or 500, err.description or "error"))
    response.status_code = err.code or 500
    return response


def bug(err: Exception) -> Response:
    log.exception("unexpected error on %s %s", request.method, request.path)
    response = jsonify(error="internal error (it has been logged)")
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
    app.register_error_handler(Exception, bug)
    app.after_request(security_headers)
