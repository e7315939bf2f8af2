"""What the web layer shares for one app: the companion it shows, its rendered states and preview JPEGs,
the stream slots and the calibration desk. Kept in ``app.extensions`` and reached with ``web()``."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

from flask import Response, current_app, request

from thoughtwave.game import Companion
from thoughtwave.i18n import DEFAULT
from thoughtwave.webui.apierrors import ApiError
from thoughtwave.webui.calibration_desk import CalibrationDesk
from thoughtwave.webui.view import PreviewJpegs, StateMessages

EXTENSION = "thoughtwave"


class StreamSlots:
    """Open streams, capped overall (``cap``) and per client address (``per_client``)."""

    def __init__(self, cap: int, per_client: int | None = None) -> None:
        self.cap = cap
        self.per_client = cap if per_client is None else per_client
        self.open = 0
        self._by_client: dict[str, int] = {}
        self._lock = threading.Lock()

    def take(self, client: str = "") -> bool:
        """Take a slot for ``client``; False when it or everyone holds as many as allowed."""
        with self._lock:
            held = self._by_client.get(client, 0)
            if self.open >= self.cap or held >= self.per_client:
                return False
            self.open += 1
            self._by_client[client] = held + 1
            return True

    def give_back(self, client: str = "") -> None:
        with self._lock:
            self.open -= 1
            held = self._by_client.get(client, 0) - 1
            if held > 0:
                self._by_client[client] = held
            else:
                self._by_client.pop(client, None)


class _Stream:
    """A streamed body that gives its slot back when the server closes it, even if never started."""

    def __init__(self, chunks: Iterator[bytes], slots: StreamSlots, client: str) -> None:
        self._chunks, self._slots, self._client, self._closed = chunks, slots, client, False

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
                self._slots.give_back(self._client)


@dataclass
class WebContext:
    """One app's shared state. Streams (SSE, MJPEG) each hold a server thread, so ``slots`` caps them below
    the thread count: the control API is never starved by open displays."""

    companion: Companion
    slots: StreamSlots
    desk: CalibrationDesk
    preview_fps: float = 5.0
    messages: StateMessages = field(default_factory=StateMessages)
    jpegs: PreviewJpegs = field(default_factory=PreviewJpegs)

    def state(self, lang: str = DEFAULT) -> dict:
        """The companion's latest state as the display's JSON, its sentences in ``lang``."""
        return self.messages.state(self.companion.state(), lang)

    def stream(self, chunks: Iterator[bytes], mimetype: str) -> Response:
        """A streamed answer holding one of the slots until it is closed; 503 with ``Connection: close`` when
        this client or everyone holds all they may (the refused connection is not kept open either)."""
        client = request.remote_addr or "?"
        if not self.slots.take(client):
            raise ApiError(503, "too many open displays: try again shortly", retry_after=5, close=True)
        response = Response(_Stream(chunks, self.slots, client), mimetype=mimetype, direct_passthrough=True)
        response.headers["Cache-Control"] = "no-cache, no-store"
        response.headers["X-Accel-Buffering"] = "no"
        return response


def web() -> WebContext:
    """The shared state of the app handling this request."""
    return current_app.extensions[EXTENSION]
