"""The live display: the board page, the board as SVG, and the camera preview (one JPEG, or an MJPEG
stream at the preview rate)."""

from __future__ import annotations

import time
from collections.abc import Iterator

from flask import Blueprint, Response, render_template

from thoughtwave.webui.apierrors import ApiError
from thoughtwave.webui.context import web
from thoughtwave.webui.language import current_language

#: Seconds a stream waits for a change before it sends something to keep the connection.
KEEPALIVE_SECONDS = 15.0

bp = Blueprint("live", __name__)


@bp.get("/")
def page() -> str:
    return render_template("live.html", state=web().state(current_language()))


@bp.get("/board.svg")
def board_image() -> Response:
    response = Response(web().state()["svg"], mimetype="image/svg+xml")
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/preview.jpg")
def preview_jpeg() -> Response:
    context = web()
    jpeg = context.jpegs.jpeg(*context.companion.preview())
    if jpeg is None:
        raise ApiError(503, "no camera picture yet", retry_after=5)
    response = Response(jpeg, mimetype="image/jpeg")
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/preview.mjpg")
def preview_stream() -> Response:
    context = web()
    companion, jpegs = context.companion, context.jpegs
    if jpegs.jpeg(*companion.preview()) is None:
        raise ApiError(503, "no camera picture yet", retry_after=5)
    period = 1.0 / context.preview_fps

    def chunks() -> Iterator[bytes]:
        seq = -1
        while not companion.stopping:
            started = time.monotonic()
            seq, picture = companion.wait_for_preview(seq, KEEPALIVE_SECONDS)
            jpeg = jpegs.jpeg(seq, picture)
            if jpeg is None:
                return
            head = b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: %d\r\n\r\n" % len(jpeg)
            yield head + jpeg + b"\r\n"
            rest = period - (time.monotonic() - started)
            if rest > 0:
                time.sleep(rest)

    return context.stream(chunks(), "multipart/x-mixed-replace; boundary=frame")
