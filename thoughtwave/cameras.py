"""Opening a camera by its spec: the demo camera (``thoughtwave.synth``) or a real one (``vision.sources``).

The reader's package knows only real sources; the demo camera lives above it, with the synthetic
camera, so the spec that names it is opened here.

>>> camera = open_camera("demo", fps=5.0, resolution=(320, 240))    # doctest: +SKIP
"""

from __future__ import annotations

from thoughtwave.synth.demo import DemoCamera
from thoughtwave.vision.sources import SPEC_FORMS, CameraError, FrameSource, UnknownSpecError, open_source

#: The spec of the demo camera (any case).
DEMO_SPEC = "demo"
#: Every spec form ``open_camera`` opens, as the user is told them.
CAMERA_FORMS: tuple[str, ...] = (*SPEC_FORMS, DEMO_SPEC)

__all__ = ["CAMERA_FORMS", "DEMO_SPEC", "CameraError", "open_camera"]


def open_camera(spec: str, fps: float | None = None, resolution: tuple[int, int] | None = None) -> FrameSource:
    """The camera a spec names: ``demo`` or any spec of ``vision.sources.open_source`` (CameraError otherwise).

    ``fps`` and ``resolution``, when given, set the demo camera's rate and size as they do a real source's.
    """
    if spec.strip().lower() == DEMO_SPEC:
        kwargs: dict = {}
        if fps:
            kwargs["fps"] = fps
        if resolution:
            kwargs["resolution"] = resolution
        return DemoCamera(**kwargs)
    try:
        return open_source(spec, fps, resolution)
    except UnknownSpecError as err:
        raise UnknownSpecError(err.spec, CAMERA_FORMS) from None
