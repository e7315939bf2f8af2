"""The reading API: the state as JSON (``/api/state``) and as Server-Sent Events (``/api/events``: the
whole state on connecting, then each new version, with keep-alives between)."""

from __future__ import annotations

from collections.abc import Iterator

from flask import Blueprint, Response, jsonify

from thoughtwave.webui.context import web
from thoughtwave.webui.language import current_language
from thoughtwave.webui.live import KEEPALIVE_SECONDS

#: How long a browser waits before reconnecting a dropped event stream, in milliseconds.
RETRY_MS = 2000

bp = Blueprint("api", __name__)


@bp.get("/api/state")
def state() -> Response:
    return jsonify(web().state(current_language()))


@bp.get("/api/events")
def events() -> Response:
    context = web()
    companion, messages = context.companion, context.messages
    lang = current_language()   # the stream runs after the request: decide its language now

    def chunks() -> Iterator[bytes]:
        snapshot = companion.state()
        yield f"retry: {RETRY_MS}\n".encode() + messages.event(snapshot, lang)
        while not companion.stopping:
            changed = companion.wait_for_change(snapshot.version, KEEPALIVE_SECONDS)
            if changed is None:
                if companion.stopping:
                    return
                yield b": keep-alive\n\n"
                continue
            # The latest, not the one that woke us: a slow client skips versions, never falls behind.
            snapshot = companion.state()
            yield messages.event(snapshot, lang)

    return context.stream(chunks(), "text/event-stream")
