"""The light over the synthetic scene: lamp colour, exposure, gradient and vignette, a shadow band, glare."""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True)
class Shadow:
    """A soft dark band across the frame (a lamp arm, a bottle): a line at ``angle_deg`` through a point
    ``offset`` (share of the diagonal) from the centre, ``width`` (share of the diagonal), ``depth`` 0..1."""

    angle_deg: float
    offset: float
    width: float
    depth: float


@dataclass(frozen=True)
class Glare:
    """A specular blob: ``centre`` as shares of the frame (x, y), ``radius`` share of the diagonal,
    ``strength`` grey levels added at its middle, stretched ``stretch`` times along ``angle_deg``."""

    centre: tuple[float, float]
    radius: float
    strength: float
    stretch: float = 1.0
    angle_deg: float = 0.0


@dataclass(frozen=True)
class Light:
    """Illumination: ``exposure`` gain, a linear ``gradient`` (gain change across the frame) toward
    ``gradient_angle_deg``, ``vignette`` (darkening at the corners), a colour cast as per-channel gains."""

    exposure: float = 0.94
    gradient: float = 0.0
    gradient_angle_deg: float = 0.0
    vignette: float = 0.0
    cast_bgr: tuple[float, float, float] = (1.0, 1.0, 1.0)
    shadow: Shadow | None = None
    glare: tuple[Glare, ...] = ()



def cast_gains(kelvin: float, fluorescent: bool = False, strength: float = 1.0) -> tuple[float, float, float]:
    """Per-channel gains (B, G, R) of a lamp of colour temperature ``kelvin`` that the camera's white balance
    corrects all but ``strength`` of (0: none left, 1: none corrected); green is kept at 1."""
    t = kelvin / 100.0
    red = 1.0 if t <= 66 else min(1.0, 1.292936 * (t - 60) ** -0.1332047592)
    green = (0.39008157 * math.log(t) - 0.63184144) if t <= 66 else 1.129890861 * (t - 60) ** -0.0755148492
    blue = 1.0 if t >= 66 else (0.0 if t <= 19 else 0.54320679 * math.log(t - 10) - 1.19625409)
    bgr = np.clip(np.array([blue, green, red]), 0.05, 1.0)
    if fluorescent:
        bgr = bgr * np.array([0.95, 1.08, 0.9])
    bgr = bgr / bgr[1]
    gains = 1.0 + strength * (bgr - 1.0)
    return tuple(float(g) for g in gains)


_cast_gains = cast_gains  # the name tests/test_calibration.py imports


def lit(image: np.ndarray, light: Light, size: tuple[int, int]) -> np.ndarray:
    """Multiply by the illumination field (gradient, vignette, shadow band, cast, exposure), add glare."""
    w, h = size
    cw, ch = 64, 48
    ys, xs = np.mgrid[0:ch, 0:cw].astype(np.float32)
    # coarse sample positions in frame shares (0..1), aligned as cv2.resize expects
    fx, fy = (xs + 0.5) / cw, (ys + 0.5) / ch
    diag = math.hypot(w, h)
    px, py = (fx - 0.5) * w / diag, (fy - 0.5) * h / diag   # centred, in diagonals
    a = math.radians(light.gradient_angle_deg)
    gain = 1.0 + light.gradient * (px * math.cos(a) + py * math.sin(a)) * 2.0
    gain *= 1.0 - light.vignette * (px * px + py * py) * 4.0
    if light.shadow is not None:
        s = light.shadow
        b = math.radians(s.angle_deg)
        distance = -px * math.sin(b) + py * math.cos(b) - s.offset
        gain *= 1.0 - s.depth * np.exp(-0.5 * (distance / max(1e-3, s.width / 2)) ** 2)
    glare = np.zeros_like(gain)
    for g in light.glare:
        gx, gy = (fx - g.centre[0]) * w / diag, (fy - g.centre[1]) * h / diag
        c, sn = math.cos(math.radians(g.angle_deg)), math.sin(math.radians(g.angle_deg))
        u, v = (gx * c + gy * sn) / g.stretch, -gx * sn + gy * c
        glare += g.strength * np.exp(-0.5 * (u * u + v * v) / (g.radius ** 2))
    field_gain = gain[..., None] * (light.exposure * np.asarray(light.cast_bgr, np.float32))
    full_gain = cv2.resize(field_gain.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    out = image * full_gain
    if light.glare:
        out += cv2.resize(glare.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)[..., None]
    return out
