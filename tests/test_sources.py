"""Camera sources: frames from a folder, a video, a USB camera and the Pi camera (faked), opened by their spec."""

import sys
import types

import cv2
import numpy as np
import pytest

from thoughtwave.config import CameraSpec, open_camera
from thoughtwave.vision.sources import (
    PI_INSTALL_HINT,
    CameraError,
    Frame,
    FrameSource,
    ImageDirSource,
    PiSource,
    VideoSource,
)


def _open(spec: str, **kwargs):
    return open_camera(CameraSpec.parse(spec), **kwargs)


def _image(value: int, size=(48, 64)) -> np.ndarray:
    image = np.zeros((*size, 3), np.uint8)
    image[:, :, 0] = value          # blue channel carries the frame's number
    image[:, :, 2] = 255 - value
    return image


def _drain(source: FrameSource) -> list[Frame]:
    frames = []
    while (frame := source.read()) is not None:
        frames.append(frame)
    source.close()
    return frames


def test_image_dir_gives_frames_sorted_by_name_at_the_given_rate(tmp_path):
    for i in (2, 0, 1):
        cv2.imwrite(str(tmp_path / f"frame_{i:03d}.png"), _image(i * 50))
    (tmp_path / "notes.txt").write_text("not a frame")
    source = _open(f"dir:{tmp_path}", fps=4)
    assert isinstance(source, ImageDirSource) and isinstance(source, FrameSource)
    frames = _drain(source)
    assert [f.index for f in frames] == [0, 1, 2]
    assert [f.t for f in frames] == [0.0, 0.25, 0.5]
    assert [int(f.image[0, 0, 0]) for f in frames] == [0, 50, 100]


def test_an_unreadable_image_is_skipped_with_a_warning_and_time_stays_true(tmp_path):
    cv2.imwrite(str(tmp_path / "a.png"), _image(10))
    (tmp_path / "b.png").write_bytes(b"\x89PNG truncated garbage")
    cv2.imwrite(str(tmp_path / "c.png"), _image(20))
    source = ImageDirSource(tmp_path, fps=2)
    frames = _drain(source)
    assert [(f.index, f.t) for f in frames] == [(0, 0.0), (2, 1.0)]
    warnings = source.take_warnings()
    assert len(warnings) == 1 and warnings[0][0] == 1 and "b.png" in warnings[0][1]
    assert source.take_warnings() == []


@pytest.mark.parametrize("make", [lambda p: p / "missing", lambda p: p])
def test_a_missing_or_empty_directory_is_a_camera_error(tmp_path, make):
    with pytest.raises(CameraError):
        ImageDirSource(make(tmp_path))


def _write_video(path, count: int, fps: float) -> None:
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), fps, (64, 48))
    assert writer.isOpened()
    for i in range(count):
        writer.write(_image(i * 30))
    writer.release()


def test_video_file_frames_are_timed_by_the_file_rate_or_the_given_one(tmp_path):
    video = tmp_path / "game.avi"
    _write_video(video, 5, fps=5)
    frames = _drain(VideoSource(video))
    assert len(frames) == 5
    assert [f.t for f in frames] == pytest.approx([0.0, 0.2, 0.4, 0.6, 0.8])
    # MJPG is lossy, but the blue level still tells the frames apart, in order
    assert [round(int(f.image[20, 30, 0]) / 30) for f in frames] == [0, 1, 2, 3, 4]
    faster = _drain(_open(f"file:{video}", fps=10))
    assert faster[-1].t == pytest.approx(0.4)


def test_a_file_that_is_not_a_video_is_a_camera_error(tmp_path):
    bogus = tmp_path / "bogus.avi"
    bogus.write_bytes(b"this is not a video at all")
    with pytest.raises(CameraError):
        VideoSource(bogus)
    with pytest.raises(CameraError):
        VideoSource(tmp_path / "missing.avi")


def test_pi_camera_without_picamera2_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "picamera2", None)  # makes `import picamera2` raise ImportError
    with pytest.raises(CameraError) as err:
        PiSource((640, 480))
    assert str(err.value) == PI_INSTALL_HINT
    assert "python3-picamera2" in str(err.value) and "--system-site-packages" in str(err.value)


class _FakePicamera2:
    """Stands in for picamera2.Picamera2: records the configuration, gives BGR arrays."""

    last: "_FakePicamera2 | None" = None

    def __init__(self):
        self.config = None
        self.started = self.closed = False
        self.fail = False
        _FakePicamera2.last = self

    def create_video_configuration(self, main, controls=None):
        return {"main": main, "controls": controls}

    def configure(self, config):
        self.config = config

    def start(self):
        self.started = True

    def capture_array(self, name="main"):
        if self.fail:
            raise RuntimeError("camera timed out")
        width, height = self.config["main"]["size"]
        return np.full((height, width, 3), (200, 100, 0), np.uint8)

    def stop(self):
        self.started = False

    def close(self):
        self.closed = True


def test_pi_camera_asks_for_rgb888_and_passes_the_bgr_array_through(monkeypatch):
    monkeypatch.setitem(sys.modules, "picamera2", types.SimpleNamespace(Picamera2=_FakePicamera2))
    source = _open("pi@320x240")
    camera = _FakePicamera2.last
    assert camera.started and camera.config["main"] == {"size": (320, 240), "format": "RGB888"}
    frame = source.read()
    assert frame.index == 0 and frame.image.shape == (240, 320, 3)
    assert tuple(frame.image[0, 0]) == (200, 100, 0)   # untouched: already OpenCV's order
    camera.fail = True
    with pytest.raises(CameraError):
        source.read()
    source.close()
    assert camera.closed


def test_a_usb_camera_that_is_not_there_is_a_camera_error():
    with pytest.raises(CameraError):
        _open("usb:97")


@pytest.mark.parametrize("spec", ["", "usb", "usb:x", "file:", "dir:", "webcam", "pi@huge", "demo:7"])
def test_a_spec_that_names_no_camera_is_refused_with_every_form_named(spec):
    with pytest.raises(ValueError, match=r"must be demo, pi, usb:N, file:PATH or dir:PATH, got"):
        CameraSpec.parse(spec)


def test_open_camera_opens_a_folder_at_the_asked_rate(tmp_path):
    cv2.imwrite(str(tmp_path / "a.png"), _image(7))
    source = _open(f"dir:{tmp_path}", fps=2)
    assert isinstance(source, ImageDirSource) and source.fps == 2
    source.close()


def test_demo_spec_opens_the_demo_camera_at_the_asked_rate_and_size():
    source = _open("demo", fps=4, resolution=(320, 240))
    assert isinstance(source, FrameSource) and source.fps == 4
    frame = source.read()
    assert frame.index == 0 and frame.t == 0.0 and frame.image.shape == (240, 320, 3)
    source.close()
    assert source.read() is None
