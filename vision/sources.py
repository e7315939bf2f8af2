"""Camera sources: where frames come from (a folder of images, a video file, a USB camera, the Pi camera).

Every source gives ``Frame``s (index, time in seconds, BGR image) through ``read()`` until it returns
None, and is closed with ``close()``. ``thoughtwave.config.open_camera`` picks one from a parsed camera spec. The Pi
camera's ``picamera2`` is imported inside ``PiSource`` only, so everything else runs on any machine.

>>> source = ImageDirSource("frames")          # doctest: +SKIP
>>> while (frame := source.read()) is not None:  # doctest: +SKIP
...     print(frame.index, frame.t, frame.image.shape)
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import cv2
import numpy as np

from thoughtwave.vision.camera_control import (
    CameraSettings,
    pi_auto_controls,
    pi_lock_controls,
    pi_measure,
    usb_lock,
    usb_measure,
    usb_unlock,
)
from thoughtwave.vision.imageio import ImageError, read_image

#: What image files a frames directory may hold (any case).
IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp", ".ppm", ".pgm"})

PI_INSTALL_HINT = (
    "the Pi camera needs picamera2: on Raspberry Pi OS install it with `sudo apt install python3-picamera2` "
    "and make the venv with `python3 -m venv --system-site-packages .venv`"
)

DEFAULT_RESOLUTION = (1280, 960)


class CameraError(Exception):
    """A source cannot be opened or has stopped giving frames; the message says what to do."""


@dataclass(frozen=True)
class Frame:
    """One picture: its position in the stream, its time in seconds from the start, the BGR image."""

    index: int
    t: float
    image: np.ndarray


@runtime_checkable
class FrameSource(Protocol):
    """Anything that gives frames: ``read()`` returns None at the end of the stream."""

    fps: float

    def read(self) -> Frame | None: ...

    def close(self) -> None: ...


class ImageDirSource:
    """The image files of a directory, sorted by name, as frames ``1/fps`` seconds apart.

    A file that cannot be decoded is skipped (its index is used up, so times stay true) and
    (index, message) is added to ``warnings``, which the caller drains with ``take_warnings()``.
    """

    def __init__(self, path: str | Path, fps: float = 10.0) -> None:
        if fps <= 0:
            raise CameraError(f"fps must be positive, not {fps}")
        self.path = Path(path)
        if not self.path.is_dir():
            raise CameraError(f"{self.path} is not a directory of images")
        self.files = sorted(p for p in self.path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file())
        if not self.files:
            raise CameraError(f"{self.path} holds no image files ({', '.join(sorted(IMAGE_SUFFIXES))})")
        self.fps = float(fps)
        self.warnings: list[tuple[int, str]] = []
        self._next = 0

    def read(self) -> Frame | None:
        """The next decodable image, or None after the last file."""
        while self._next < len(self.files):
            index, path = self._next, self.files[self._next]
            self._next += 1
            try:
                image = read_image(path)
            except ImageError as err:   # too large, damaged or not a picture: one line, and go on
                self.warnings.append((index, f"skipped {path.name}: not a readable image ({err.reason})"))
                continue
            return Frame(index, index / self.fps, image)
        return None

    def take_warnings(self) -> list[tuple[int, str]]:
        """The warnings since the last call (and forget them)."""
        out, self.warnings = self.warnings, []
        return out

    def close(self) -> None:
        self._next = len(self.files)


class _CaptureSource:
    """What the OpenCV-backed sources share: one cv2.VideoCapture, released once."""

    _capture: cv2.VideoCapture | None = None

    def close(self) -> None:
        if self._capture is not None:
            self._capture.release()
            self._capture = None


class VideoSource(_CaptureSource):
    """The frames of a video file; ``t`` comes from ``fps`` if given, else the file's own frame rate."""

    def __init__(self, path: str | Path, fps: float | None = None) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise CameraError(f"{self.path} is not a video file")
        if fps is not None and fps <= 0:
            raise CameraError(f"fps must be positive, not {fps}")
        self._capture = cv2.VideoCapture(str(self.path))
        if not self._capture.isOpened():
            self._capture.release()
            raise CameraError(f"cannot open {self.path} as a video")
        file_fps = self._capture.get(cv2.CAP_PROP_FPS)
        # Some containers report 0 or nonsense; 10 fps is what the companion runs at.
        self.fps = float(fps) if fps else (float(file_fps) if 0 < file_fps < 1000 else 10.0)
        self._index = 0

    def read(self) -> Frame | None:
        """The next frame, or None at the end of the file."""
        if self._capture is None:
            return None
        ok, image = self._capture.read()
        if not ok or image is None:
            return None
        frame = Frame(self._index, self._index / self.fps, image)
        self._index += 1
        return frame



class _Remeasurable:
    """``remeasure`` for a camera whose automatics can be locked: ``unlock``, ``read``, ``measure``, ``lock``."""

    def remeasure(self, settle_frames: int = 15) -> CameraSettings:
        """Measure again on request: automatics on for ``settle_frames`` frames, then measured and locked."""
        self.unlock()                  # type: ignore[attr-defined]
        for _ in range(settle_frames):
            self.read()                # type: ignore[attr-defined]
        settings = self.measure()      # type: ignore[attr-defined]
        self.lock(settings)            # type: ignore[attr-defined]
        return settings


class UsbSource(_Remeasurable, _CaptureSource):
    """A USB (V4L2) camera by index; ``t`` is wall-clock seconds since opening. Failures raise CameraError.

    ``settings`` (from the calibration profile) locks exposure, white balance and focus where the driver
    allows (``locked`` names what it took); ``measure``, ``lock``, ``unlock`` and ``remeasure`` as for
    ``PiSource``. ``capture_factory`` opens the camera (tests pass a fake ``cv2.VideoCapture``).
    """

    def __init__(self, index: int = 0, resolution: tuple[int, int] = DEFAULT_RESOLUTION,
                 settings: CameraSettings | None = None, capture_factory: Any = cv2.VideoCapture) -> None:
        self.index = index
        self.locked: list[str] = []
        self._capture = capture_factory(index)
        if not self._capture.isOpened():
            self._capture.release()
            raise CameraError(f"no USB camera at index {index} (is it plugged in? try `ls /dev/video*`)")
        width, height = resolution
        self._capture.set(cv2.CAP_PROP_FRAME_WIDTH, width)
        self._capture.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
        reported = self._capture.get(cv2.CAP_PROP_FPS)
        self.fps = float(reported) if 0 < reported < 1000 else 30.0
        self._start = time.monotonic()
        self._index = 0
        if settings is not None:
            self.lock(settings)

    def read(self) -> Frame | None:
        """The next frame; a camera that stops answering raises CameraError rather than ending quietly."""
        if self._capture is None:
            raise CameraError(f"USB camera {self.index} is closed")
        ok, image = self._capture.read()
        if not ok or image is None:
            raise CameraError(f"USB camera {self.index} gave no frame (unplugged?)")
        frame = Frame(self._index, time.monotonic() - self._start, image)
        self._index += 1
        return frame

    def measure(self) -> CameraSettings:
        """What the camera's automatics settled on (as far as the driver says)."""
        return usb_measure(self._open())

    def lock(self, settings: CameraSettings) -> list[str]:
        """Hold exposure, white balance and focus at ``settings``; what the driver took."""
        self.locked = usb_lock(self._open(), settings)
        return self.locked

    def unlock(self) -> None:
        """Back to the automatics."""
        usb_unlock(self._open())
        self.locked = []

    def _open(self) -> Any:
        if self._capture is None:
            raise CameraError(f"USB camera {self.index} is closed")
        return self._capture


class PiSource(_Remeasurable):
    """The Raspberry Pi camera through picamera2; frames are BGR like every other source.

    ``settings`` (from the calibration profile's ``camera``) are locked at once: exposure, white
    balance and, on a Camera Module 3, focus stay where calibration measured them. ``measure`` reads
    what the automatics settled on (one autofocus cycle first), ``lock`` holds the camera there,
    ``unlock`` hands it back, ``remeasure`` does all three on request. ``picamera2`` is the module
    (tests pass a fake); by default it is imported here, so other sources run on any machine.
    """

    def __init__(self, resolution: tuple[int, int] = DEFAULT_RESOLUTION, fps: float = 10.0,
                 settings: CameraSettings | None = None, picamera2: Any = None) -> None:
        if picamera2 is None:
            try:
                import picamera2
            except ImportError:
                raise CameraError(PI_INSTALL_HINT) from None
        try:
            self._camera = picamera2.Picamera2()
            # picamera2's "RGB888" is stored as B, G, R bytes per pixel (its manual, appendix on
            # formats): exactly OpenCV's order, so no conversion is needed.
            config = self._camera.create_video_configuration(
                main={"size": tuple(resolution), "format": "RGB888"},
                controls={"FrameRate": float(fps)},
            )
            self._camera.configure(config)
            self._camera.start()
        except Exception as err:  # libcamera raises plain RuntimeErrors for a missing or busy camera
            raise CameraError(f"cannot start the Pi camera: {err}") from None
        self.fps = float(fps)
        self._start = time.monotonic()
        self._index = 0
        self.settings: CameraSettings | None = None
        if settings is not None:
            self.lock(settings)

    def measure(self) -> CameraSettings:
        """What the automatics settled on (exposure, gains, white balance; the lens after one autofocus)."""
        try:
            return pi_measure(self._open())
        except CameraError:
            raise
        except Exception as err:
            raise CameraError(f"the Pi camera could not be measured: {err}") from None

    def lock(self, settings: CameraSettings) -> None:
        """Hold exposure, white balance and focus at ``settings``."""
        controls = pi_lock_controls(settings)
        if controls:
            self._set(controls)
        self.settings = settings

    def unlock(self) -> None:
        """Back to the automatics (auto exposure, auto white balance, autofocus)."""
        self._set(pi_auto_controls(self._open()))
        self.settings = None

    def _open(self) -> Any:
        if self._camera is None:
            raise CameraError("the Pi camera is closed")
        return self._camera

    def _set(self, controls: dict) -> None:
        try:
            self._open().set_controls(controls)
        except CameraError:
            raise
        except Exception as err:
            raise CameraError(f"the Pi camera refused its settings: {err}") from None

    def read(self) -> Frame | None:
        """The next frame; a camera failure raises CameraError."""
        if self._camera is None:
            raise CameraError("the Pi camera is closed")
        try:
            image = self._camera.capture_array("main")
        except Exception as err:
            raise CameraError(f"the Pi camera gave no frame: {err}") from None
        if image.ndim == 3 and image.shape[2] == 4:  # XRGB8888 if a caller reconfigured it
            image = image[:, :, :3]
        frame = Frame(self._index, time.monotonic() - self._start, np.ascontiguousarray(image))
        self._index += 1
        return frame

    def close(self) -> None:
        if self._camera is not None:
            try:
                self._camera.stop()
                self._camera.close()
            finally:
                self._camera = None
