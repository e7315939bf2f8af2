"""Locking the camera's exposure, white balance and focus to what calibration measured on the empty board.

A camera left on automatic drifts with the room (someone walks past the window, a lamp goes on), and
the colours the reader was calibrated for drift with it; an autofocus lens hunts whenever a hand
passes. So after calibration the sources measure what the automatics settled on (``measure``), keep it
in the calibration profile (``CameraSettings.to_json``, the profile's ``camera``) and hold the camera
there (``lock``); ``unlock`` hands control back to the automatics, for a new measurement on request.

* The Pi camera (picamera2): ``AeEnable``/``AwbEnable`` off with the measured ``ExposureTime``,
  ``AnalogueGain`` and ``ColourGains``; on a camera with autofocus (Camera Module 3) one autofocus
  cycle at measurement, then ``AfMode`` manual at the ``LensPosition`` it found.
* USB cameras (OpenCV, V4L2): ``CAP_PROP_AUTO_EXPOSURE``/``EXPOSURE``, ``AUTO_WB``/``WB_TEMPERATURE``,
  ``AUTOFOCUS``/``FOCUS``, each only where the driver takes it (``lock`` says which it took).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Any, Protocol

import cv2

#: libcamera's ``AfModeEnum``: Manual, Auto (one cycle when triggered), Continuous.
AF_MANUAL, AF_AUTO = 0, 1
#: V4L2's ``V4L2_CID_EXPOSURE_AUTO`` as OpenCV passes it: 1 manual, 3 aperture priority (automatic).
V4L2_EXPOSURE_MANUAL, V4L2_EXPOSURE_AUTO = 1, 3


@dataclass(frozen=True)
class CameraSettings:
    """What the automatics settled on over the empty board; None where the camera does not say.

    Pi camera: ``exposure_time_us``, ``analogue_gain``, ``colour_gains`` (red, blue) and, with
    autofocus, ``lens_position`` (dioptres). USB camera: ``usb_exposure``, ``usb_wb_temperature``
    (kelvin) and ``usb_focus``, in the driver's own units.
    """

    exposure_time_us: int | None = None
    analogue_gain: float | None = None
    colour_gains: tuple[float, float] | None = None
    lens_position: float | None = None
    usb_exposure: float | None = None
    usb_wb_temperature: float | None = None
    usb_focus: float | None = None

    def to_json(self) -> dict:
        """The measured values only (the profile's ``camera``)."""
        out = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is not None:
                out[f.name] = list(value) if isinstance(value, tuple) else value
        return out

    @classmethod
    def from_json(cls, data: object) -> CameraSettings:
        """Settings from a profile's ``camera``; ValueError when malformed (unknown keys are ignored)."""
        if not isinstance(data, dict):
            raise ValueError("camera settings must be a JSON object")
        values: dict[str, Any] = {}
        try:
            for f in fields(cls):
                if data.get(f.name) is None:
                    continue
                raw = data[f.name]
                if f.name == "colour_gains":
                    red, blue = (float(v) for v in raw)
                    values[f.name] = (red, blue)
                elif f.name == "exposure_time_us":
                    values[f.name] = int(raw)
                else:
                    values[f.name] = float(raw)
        except (TypeError, ValueError) as err:
            raise ValueError(f"camera settings are malformed: {err}") from None
        numbers = [v for value in values.values() for v in (value if isinstance(value, tuple) else (value,))]
        if not all(math.isfinite(v) for v in numbers) or values.get("exposure_time_us", 1) <= 0:
            raise ValueError("camera settings are out of range")
        return cls(**values)


class Lockable(Protocol):
    """A camera source whose exposure, white balance and focus can be measured and held (Pi, USB)."""

    def measure(self) -> CameraSettings: ...

    def lock(self, settings: CameraSettings) -> Any: ...

    def unlock(self) -> None: ...


# -- the Pi camera ------------------------------------------------------------------------------------

def pi_has_autofocus(camera: Any) -> bool:
    """Whether a ``Picamera2`` has a focus motor (Camera Module 3)."""
    return "AfMode" in (getattr(camera, "camera_controls", None) or {})


def pi_measure(camera: Any) -> CameraSettings:
    """What the Pi camera's automatics settled on; with autofocus, one autofocus cycle first."""
    autofocus = pi_has_autofocus(camera)
    if autofocus:
        camera.set_controls({"AfMode": AF_AUTO})
        camera.autofocus_cycle()
    metadata = camera.capture_metadata()
    gains = metadata.get("ColourGains")
    lens = metadata.get("LensPosition") if autofocus else None
    return CameraSettings(
        exposure_time_us=int(metadata["ExposureTime"]) if metadata.get("ExposureTime") else None,
        analogue_gain=float(metadata["AnalogueGain"]) if metadata.get("AnalogueGain") else None,
        colour_gains=(float(gains[0]), float(gains[1])) if gains else None,
        lens_position=float(lens) if lens is not None else None,
    )


def pi_lock_controls(settings: CameraSettings) -> dict:
    """The picamera2 controls that hold the camera at ``settings`` (automatics off where a value is known)."""
    controls: dict[str, Any] = {}
    if settings.exposure_time_us is not None and settings.analogue_gain is not None:
        controls.update(AeEnable=False, ExposureTime=settings.exposure_time_us, AnalogueGain=settings.analogue_gain)
    if settings.colour_gains is not None:
        controls.update(AwbEnable=False, ColourGains=settings.colour_gains)
    if settings.lens_position is not None:
        controls.update(AfMode=AF_MANUAL, LensPosition=settings.lens_position)
    return controls


def pi_auto_controls(camera: Any) -> dict:
    """The picamera2 controls that hand exposure, white balance (and focus) back to the automatics."""
    controls: dict[str, Any] = {"AeEnable": True, "AwbEnable": True}
    if pi_has_autofocus(camera):
        controls["AfMode"] = AF_AUTO
    return controls


# -- USB cameras (OpenCV) -----------------------------------------------------------------------------

def _usb_value(capture: Any, prop: int) -> float | None:
    value = capture.get(prop)
    return float(value) if isinstance(value, int | float) and math.isfinite(value) and value != -1 else None


def usb_measure(capture: Any) -> CameraSettings:
    """What a USB camera's automatics settled on, as far as the driver reports it."""
    return CameraSettings(usb_exposure=_usb_value(capture, cv2.CAP_PROP_EXPOSURE),
                          usb_wb_temperature=_usb_value(capture, cv2.CAP_PROP_WB_TEMPERATURE),
                          usb_focus=_usb_value(capture, cv2.CAP_PROP_FOCUS))


def usb_lock(capture: Any, settings: CameraSettings) -> list[str]:
    """Hold a USB camera at ``settings``; the names of the settings the driver took."""
    taken = []
    pairs = (("exposure", cv2.CAP_PROP_AUTO_EXPOSURE, V4L2_EXPOSURE_MANUAL, cv2.CAP_PROP_EXPOSURE,
              settings.usb_exposure),
             ("white balance", cv2.CAP_PROP_AUTO_WB, 0, cv2.CAP_PROP_WB_TEMPERATURE, settings.usb_wb_temperature),
             ("focus", cv2.CAP_PROP_AUTOFOCUS, 0, cv2.CAP_PROP_FOCUS, settings.usb_focus))
    for name, auto, manual, prop, value in pairs:
        if value is None:
            continue
        # The automatic must be off before the driver accepts a manual value.
        if capture.set(auto, manual) and capture.set(prop, value):
            taken.append(name)
    return taken


def usb_unlock(capture: Any) -> None:
    """Hand a USB camera's exposure, white balance and focus back to its automatics (where it has them)."""
    capture.set(cv2.CAP_PROP_AUTO_EXPOSURE, V4L2_EXPOSURE_AUTO)
    capture.set(cv2.CAP_PROP_AUTO_WB, 1)
    capture.set(cv2.CAP_PROP_AUTOFOCUS, 1)
