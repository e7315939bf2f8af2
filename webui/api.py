"""The reading API: the state as JSON (``/api/state``) and as Server-Sent Events (``/api/events``: the
whole state on connecting, then each new version, with keep-alives between), and the API's OpenAPI
description (``/api/openapi.json``)."""

from __future__ import annotations

from collections.abc import Iterator

from flask import Blueprint, Response, jsonify, request

from thoughtwave.webui.context import web
from thoughtwave.webui.language import current_language
from thoughtwave.webui.live import KEEPALIVE_SECONDS
from thoughtwave.webui.openapi import describe_api

#: How long a browser waits before reconnecting a dropped event stream, in milliseconds.
RETRY_MS = 2000
#: How often a stream wakes to see whether its client has gone (its slot is then freed at once).
WAKE_SECONDS = 0.5

bp = Blueprint("api", __name__)


@bp.get("/api/state")
def state() -> Response:
    return jsonify(web().state(current_language()))


@bp.get("/api/events")
def events() -> Response:
    context = web()
    companion, messages = context.companion, context.messages
    lang = current_language()   # the stream runs after the request: decide its language now

    # waitress reads the connection while the stream runs (channel_request_lookahead) and says when the
    # client has gone; without it (other servers) a gone client is found at the next keep-alive.
    gone = request.environ.get("waitress.client_disconnected") or (lambda: False)

    def chunks() -> Iterator[bytes]:
        snapshot = companion.state()
        yield f"retry: {RETRY_MS}\n".encode() + messages.event(snapshot, lang)
        quiet = 0.0
        while not companion.stopping and not gone():
            changed = companion.wait_for_change(snapshot.version, WAKE_SECONDS)
            if changed is None:
                quiet += WAKE_SECONDS
                if quiet >= KEEPALIVE_SECONDS:
                    quiet = 0.0
                    yield b": keep-alive\n\n"
                continue
            # The latest, not the one that woke us: a slow client skips versions, never falls behind.
            quiet = 0.0
            snapshot = companion.state()
            yield messages.event(snapshot, lang)

    return context.stream(chunks(), "text/event-stream")


@bp.get("/api/openapi.json")
def openapi() -> Response:
    return jsonify(describe_api())
