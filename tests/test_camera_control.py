"""Exposure, white balance and focus locked after calibration: a fake picamera2 and a fake cv2.VideoCapture
record what the sources ask of the camera; the settings travel through the profile and back."""

import json
import types

import cv2
import numpy as np
import pytest

from thoughtwave.calibration.calibrate import lock_camera
from thoughtwave.calibration.profile import Profile, ProfileError, load_profile, save_profile
from thoughtwave.vision.camera_control import (
    AF_AUTO,
    AF_MANUAL,
    V4L2_EXPOSURE_AUTO,
    V4L2_EXPOSURE_MANUAL,
    CameraSettings,
)
from thoughtwave.vision.sources import CameraError, PiSource, UsbSource


class FakePicamera2:
    """picamera2.Picamera2 as far as the source uses it; records every ``set_controls`` call."""

    def __init__(self, autofocus: bool):
        self.controls_set: list[dict] = []
        self.camera_controls = {"ExposureTime": (1, 1_000_000, None), "AnalogueGain": (1.0, 16.0, None)}
        if autofocus:
            self.camera_controls |= {"AfMode": (0, 2, 0), "LensPosition": (0.0, 15.0, 1.0)}
        self.af_cycles = 0
        self.config = None
        self.lens = 2.5

    def create_video_configuration(self, main, controls=None):
        return {"main": main, "controls": controls}

    def configure(self, config):
        self.config = config

    def start(self):
        pass

    def set_controls(self, controls):
        self.controls_set.append(dict(controls))

    def autofocus_cycle(self):
        self.af_cycles += 1
        self.lens = 3.25          # the board's distance, found by the cycle
        return True

    def capture_metadata(self):
        data = {"ExposureTime": 16_650, "AnalogueGain": 2.5, "ColourGains": (1.9, 1.6), "Lux": 300.0}
        if "AfMode" in self.camera_controls:
            data["LensPosition"] = self.lens
        return data

    def capture_array(self, name="main"):
        width, height = self.config["main"]["size"]
        return np.zeros((height, width, 3), np.uint8)

    def stop(self):
        pass

    def close(self):
        pass


def fake_module(autofocus: bool) -> tuple[types.SimpleNamespace, list]:
    made = []

    def factory():
        made.append(FakePicamera2(autofocus))
        return made[-1]

    return types.SimpleNamespace(Picamera2=factory), made


def test_a_camera_module_3_is_measured_after_one_autofocus_then_locked_with_manual_focus():
    module, made = fake_module(autofocus=True)
    source = PiSource((640, 480), picamera2=module)
    camera = made[0]
    settings = source.measure()
    assert camera.af_cycles == 1 and camera.controls_set == [{"AfMode": AF_AUTO}]
    assert settings == CameraSettings(16_650, 2.5, (1.9, 1.6), 3.25)
    source.lock(settings)
    assert camera.controls_set[-1] == {"AeEnable": False, "ExposureTime": 16_650, "AnalogueGain": 2.5,
                                       "AwbEnable": False, "ColourGains": (1.9, 1.6),
                                       "AfMode": AF_MANUAL, "LensPosition": 3.25}


def test_a_camera_without_autofocus_never_gets_focus_controls():
    module, made = fake_module(autofocus=False)
    source = PiSource((640, 480), picamera2=module)
    settings = source.measure()
    assert settings.lens_position is None and made[0].af_cycles == 0
    source.lock(settings)
    assert not any("AfMode" in c or "LensPosition" in c for c in made[0].controls_set)
    assert made[0].controls_set[-1]["AeEnable"] is False and made[0].controls_set[-1]["AwbEnable"] is False


def test_settings_from_the_profile_are_locked_when_the_camera_opens_and_remeasured_on_request():
    module, made = fake_module(autofocus=True)
    stored = CameraSettings(20_000, 1.5, (2.0, 1.4), 2.0)
    source = PiSource((320, 240), settings=stored, picamera2=module)
    camera = made[0]
    assert camera.controls_set == [{"AeEnable": False, "ExposureTime": 20_000, "AnalogueGain": 1.5,
                                    "AwbEnable": False, "ColourGains": (2.0, 1.4), "AfMode": AF_MANUAL,
                                    "LensPosition": 2.0}]
    fresh = source.remeasure(settle_frames=3)
    # the automatics back on, one autofocus cycle, then held at what they found
    assert camera.controls_set[1] == {"AeEnable": True, "AwbEnable": True, "AfMode": AF_AUTO}
    assert camera.af_cycles == 1 and fresh.lens_position == 3.25
    assert camera.controls_set[-1]["LensPosition"] == 3.25 and source.settings == fresh


def test_a_camera_refusing_its_controls_is_a_camera_error():
    module, made = fake_module(autofocus=False)
    source = PiSource((320, 240), picamera2=module)

    def refuse(controls):
        raise RuntimeError("control out of range")

    made[0].set_controls = refuse
    with pytest.raises(CameraError, match="refused its settings"):
        source.lock(CameraSettings(1000, 1.0, (1.0, 1.0)))


class FakeCapture:
    """cv2.VideoCapture for a webcam whose driver takes exposure and focus but has no white-balance control."""

    refuses = {cv2.CAP_PROP_AUTO_WB, cv2.CAP_PROP_WB_TEMPERATURE}

    def __init__(self, index):
        self.sets: list[tuple[int, float]] = []
        self.values = {cv2.CAP_PROP_EXPOSURE: 156.0, cv2.CAP_PROP_FOCUS: 30.0, cv2.CAP_PROP_FPS: 30.0,
                       cv2.CAP_PROP_WB_TEMPERATURE: -1}

    def isOpened(self):  # noqa: N802 - OpenCV's name
        return True

    def set(self, prop, value):
        self.sets.append((prop, value))
        return prop not in self.refuses

    def get(self, prop):
        return self.values.get(prop, 0.0)

    def read(self):
        return True, np.zeros((48, 64, 3), np.uint8)

    def release(self):
        pass


def test_a_usb_camera_is_locked_where_its_driver_allows_and_says_what_it_took():
    made = []
    source = UsbSource(0, (640, 480), capture_factory=lambda i: made.append(FakeCapture(i)) or made[-1])
    settings = source.measure()
    assert settings == CameraSettings(usb_exposure=156.0, usb_focus=30.0)      # no white balance reported
    taken = source.lock(CameraSettings(usb_exposure=156.0, usb_wb_temperature=4500.0, usb_focus=30.0))
    assert taken == ["exposure", "focus"]
    sets = made[0].sets
    # each automatic is turned off before its manual value is given
    assert sets.index((cv2.CAP_PROP_AUTO_EXPOSURE, V4L2_EXPOSURE_MANUAL)) < sets.index((cv2.CAP_PROP_EXPOSURE, 156.0))
    assert sets.index((cv2.CAP_PROP_AUTOFOCUS, 0)) < sets.index((cv2.CAP_PROP_FOCUS, 30.0))
    source.remeasure(settle_frames=2)
    assert (cv2.CAP_PROP_AUTO_EXPOSURE, V4L2_EXPOSURE_AUTO) in sets and (cv2.CAP_PROP_AUTOFOCUS, 1) in sets


def profile(**extra) -> Profile:
    return Profile((640, 480), ((1.0, 0, 0), (0, 1.0, 0), (0, 0, 1.0)), 30.0, **extra)


def test_the_settings_travel_through_the_profile_and_old_profiles_still_load(tmp_path):
    module, _ = fake_module(autofocus=True)
    source = PiSource((320, 240), picamera2=module)
    locked = lock_camera(profile(), source)
    assert locked.camera == {"exposure_time_us": 16_650, "analogue_gain": 2.5, "colour_gains": [1.9, 1.6],
                             "lens_position": 3.25}
    assert source.settings == locked.camera_settings()
    path = tmp_path / "profile.json"
    save_profile(locked, path)
    assert load_profile(path).camera_settings() == CameraSettings(16_650, 2.5, (1.9, 1.6), 3.25)
    old = profile().to_json()
    del old["camera"]                         # written before the field existed
    path.write_text(json.dumps(old))
    assert load_profile(path).camera is None and load_profile(path).camera_settings() is None


def test_malformed_camera_settings_make_the_profile_damaged(tmp_path):
    data = profile().to_json() | {"camera": {"exposure_time_us": "soon", "colour_gains": [1.0]}}
    path = tmp_path / "profile.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ProfileError, match="damaged"):
        load_profile(path)
    with pytest.raises(ValueError):
        CameraSettings.from_json({"analogue_gain": float("nan")})
