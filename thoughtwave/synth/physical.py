"""What the flat synthetic camera misses about a real table: a lamp somewhere above it, card tiles with
thickness (a cut edge the camera sees from the side, a cast shadow away from the lamp, a contact shadow
where they sit), glossy paper whose highlight moves with the lamp, two light colours mixed across the
board (a window on one side, a warm lamp on the other), depth of field, and the hand's shadow thrown
from the lamp.

``Physical`` holds them, each optional; ``Scene.physical`` None renders exactly as before. Draw one with
``Physical.random(seed, amount, only=...)`` (``only`` names one disturbance of ``DISTURBANCES`` for a
per-disturbance benchmark). The fields are computed on a coarse grid of board points seen by each
frame pixel (``board_points``) and scaled up: all of them vary slowly across the frame.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

import cv2
import numpy as np

from thoughtwave.synth.camera import Camera, undistorted
from thoughtwave.synth.light import cast_gains

#: The disturbances ``Physical.random(only=...)`` can draw alone.
DISTURBANCES = ("thickness", "gloss", "mixed-light", "depth-of-field", "lamp-shadows")


@dataclass(frozen=True)
class Lamp:
    """A lamp above the table: ``position_mm`` (x, y) over the board, ``height_mm`` above it, its colour."""

    position_mm: tuple[float, float] = (177.0, -150.0)
    height_mm: float = 500.0
    kelvin: float = 3000.0


@dataclass(frozen=True)
class Relief:
    """Card tiles ``thickness_mm`` thick: their cut edge (``edge_bgr``), cast shadow (``shadow_depth``)
    and contact shadow (``contact_depth``)."""

    thickness_mm: float = 0.9
    edge_bgr: tuple[int, int, int] = (176, 190, 200)
    shadow_depth: float = 0.45
    contact_depth: float = 0.25


@dataclass(frozen=True)
class Gloss:
    """A specular highlight of the lamp on glossy or laminated paper: ``strength`` grey levels at its
    peak, ``shininess`` (Phong exponent: higher is a smaller, sharper spot)."""

    strength: float = 180.0
    shininess: float = 400.0


@dataclass(frozen=True)
class MixedLight:
    """Two light colours across the board: ``kelvin_a`` toward ``angle_deg`` (board), ``kelvin_b`` the
    other way, blending over ``spread`` (share of the board); the camera balances their mean."""

    kelvin_a: float = 6500.0
    kelvin_b: float = 2700.0
    angle_deg: float = 0.0
    spread: float = 0.5
    strength: float = 0.8


@dataclass(frozen=True)
class Physical:
    """The physically motivated disturbances of a scene; each None when absent. ``depth_of_field`` is the
    defocus (Gaussian sigma, px) per 100 mm off the focused distance; ``lamp_shadows`` throws the
    hand's shadow from the lamp (the hand ``hand_height_mm`` above the board)."""

    lamp: Lamp = Lamp()
    relief: Relief | None = None
    gloss: Gloss | None = None
    mixed: MixedLight | None = None
    depth_of_field: float | None = None
    lamp_shadows: bool = False
    hand_height_mm: float = 60.0

    @classmethod
    def random(cls, seed: int, amount: float = 1.0, only: str | None = None) -> Physical:
        """Drawn from ``seed``; ``amount`` 0..1 scales each; ``only`` keeps one of ``DISTURBANCES``."""
        if only is not None and only not in DISTURBANCES:
            raise ValueError(f"not a disturbance: {only!r} (one of {', '.join(DISTURBANCES)})")
        rnd = random.Random(seed * 7919 + 17)

        def u(lo: float, hi: float) -> float:
            return lo + (hi - lo) * rnd.random()

        side = u(0, 2 * math.pi)
        reach = u(150, 450)
        lamp = Lamp((177.0 + reach * math.cos(side), 177.0 + reach * math.sin(side)), u(350, 800), u(2700, 4500))
        relief = Relief(u(0.6, 1.2), (int(u(150, 200)), int(u(170, 205)), int(u(185, 215))),
                        u(0.25, 0.6) * amount, u(0.1, 0.35) * amount)
        gloss = Gloss(u(60, 260) * amount, u(80, 1500))
        mixed = MixedLight(u(5500, 7500), u(2600, 3300), u(0, 360), u(0.2, 0.8), u(0.4, 1.0) * amount)
        dof = u(0.5, 3.0) * amount
        draws = {"thickness": relief, "gloss": gloss, "mixed-light": mixed, "depth-of-field": dof,
                 "lamp-shadows": True}
        keep = {name: (only is None or only == name) and amount > 0 for name in DISTURBANCES}
        return cls(lamp=lamp, relief=relief if keep["thickness"] else None, gloss=gloss if keep["gloss"] else None,
                   mixed=mixed if keep["mixed-light"] else None,
                   depth_of_field=dof if keep["depth-of-field"] else None,
                   lamp_shadows=bool(draws["lamp-shadows"] and keep["lamp-shadows"]), hand_height_mm=u(30, 120))


def camera_centre(camera: Camera) -> np.ndarray:
    """The camera's centre in board coordinates (mm; z into the table, so above the board is negative)."""
    rotation, t = camera.pose()
    return -rotation.T @ t


# -- the tiles' relief (drawn into the top-down board texture) -----------------------------------------

@dataclass(frozen=True)
class TileRelief:
    """How one tile's relief shows in the texture (px): its face moved by ``parallax`` (the camera sees
    the top of a thick card a little off its footprint, and the cut edge between), its shadow cast by
    ``shadow`` and softened by ``soft``."""

    parallax: tuple[float, float]
    shadow: tuple[float, float]
    soft: float


def tile_relief(physical: Physical, camera: Camera, centre_mm: tuple[float, float], ppm: float) -> TileRelief:
    """The relief of a tile centred at ``centre_mm`` seen by ``camera`` under ``physical.lamp``."""
    relief = physical.relief
    assert relief is not None
    t = relief.thickness_mm
    cam = camera_centre(camera)
    x, y = centre_mm
    height = max(50.0, -cam[2])
    parallax = (t * (x - cam[0]) / height * ppm, t * (y - cam[1]) / height * ppm)
    lamp = physical.lamp
    shadow = (t * (x - lamp.position_mm[0]) / lamp.height_mm * ppm,
              t * (y - lamp.position_mm[1]) / lamp.height_mm * ppm)
    return TileRelief(parallax, shadow, max(0.5, 0.35 * ppm * t))


def draw_relief(roi: np.ndarray, tile: np.ndarray, cover: np.ndarray, m: np.ndarray, relief: Relief,
                how: TileRelief) -> np.ndarray:
    """``roi`` (float BGR) with one thick tile laid: cast and contact shadow, the cut edge, then the face.
    ``tile`` is the tile's picture (its own pixels), ``m`` places it at its footprint in ``roi``, where
    it covers ``cover``."""
    size = (roi.shape[1], roi.shape[0])
    ones = np.ones(tile.shape[:2], np.float32)

    def moved(dx: float, dy: float, image: np.ndarray, flags: int = cv2.INTER_LINEAR) -> np.ndarray:
        shifted = m.copy()
        shifted[:, 2] += (dx, dy)
        return cv2.warpAffine(image, shifted, size, flags=flags, borderMode=cv2.BORDER_CONSTANT)

    cast = cv2.GaussianBlur(moved(*how.shadow, ones), (0, 0), how.soft)
    contact = cv2.GaussianBlur(cover, (0, 0), max(0.6, 0.5 * how.soft))
    roi = roi * (1.0 - relief.shadow_depth * cast - relief.contact_depth * contact)[..., None]
    top = moved(*how.parallax, ones)
    # The cut edge: the card's side between its footprint and its top, seen where the top has moved off.
    wall = np.clip(np.maximum(cover, top) - top, 0, 1)
    roi = roi * (1.0 - wall[..., None]) + wall[..., None] * (0.8 * np.asarray(relief.edge_bgr, np.float32))
    top_face = moved(*how.parallax, tile).astype(np.float32)
    return roi * (1.0 - top[..., None]) + top_face


# -- light and blur over the frame -------------------------------------------------------------------

_STEP = 16


def board_points(camera: Camera) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Coarse (h/16, w/16) fields of the board point (x, y mm) each frame pixel sees and its depth (mm)."""
    w, h = camera.resolution
    cw, ch = math.ceil(w / _STEP) + 1, math.ceil(h / _STEP) + 1
    xs, ys = np.meshgrid(np.arange(cw) * _STEP, np.arange(ch) * _STEP)
    ix, iy = undistorted(camera, xs.astype(np.float64), ys.astype(np.float64))
    inverse = np.linalg.inv(camera.board_to_image())
    bw = inverse[2, 0] * ix + inverse[2, 1] * iy + inverse[2, 2]
    bw = np.where(np.abs(bw) < 1e-9, 1e-9, bw)
    bx = (inverse[0, 0] * ix + inverse[0, 1] * iy + inverse[0, 2]) / bw
    by = (inverse[1, 0] * ix + inverse[1, 1] * iy + inverse[1, 2]) / bw
    rotation, t = camera.pose()
    depth = rotation[2, 0] * bx + rotation[2, 1] * by + t[2]
    return bx, by, depth


def _full(field: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """A coarse field (samples every ``_STEP`` px from 0) at full frame size."""
    w, h = size
    cw, ch = field.shape[1], field.shape[0]
    big = cv2.resize(field.astype(np.float32), ((cw - 1) * _STEP + 1, (ch - 1) * _STEP + 1),
                     interpolation=cv2.INTER_LINEAR)
    return big[:h, :w]


def physical_light(image: np.ndarray, physical: Physical, camera: Camera) -> np.ndarray:
    """Mixed light colours (multiplied) and the lamp's specular highlight (added) over the frame."""
    if physical.mixed is None and physical.gloss is None:
        return image
    bx, by, _ = board_points(camera)
    size = camera.resolution
    if physical.mixed is not None:
        mix = physical.mixed
        a = math.radians(mix.angle_deg)
        along = ((bx - 177.0) * math.cos(a) + (by - 177.0) * math.sin(a)) / 354.0
        share = 1.0 / (1.0 + np.exp(np.clip(-along / max(0.05, mix.spread / 4), -50, 50)))
        warm = np.asarray(cast_gains(mix.kelvin_b, False, mix.strength), np.float32)
        cold = np.asarray(cast_gains(mix.kelvin_a, False, mix.strength), np.float32)
        gains = share[..., None] * cold + (1.0 - share[..., None]) * warm
        gains /= gains.reshape(-1, 3).mean(axis=0)          # the camera balances the mean
        image = image * cv2.merge([_full(gains[..., k], size) for k in range(3)])
    if physical.gloss is not None:
        gloss, lamp = physical.gloss, physical.lamp
        cam = camera_centre(camera)
        to_cam = np.stack([cam[0] - bx, cam[1] - by, np.full_like(bx, cam[2])], axis=-1)
        to_lamp = np.stack([lamp.position_mm[0] - bx, lamp.position_mm[1] - by, np.full_like(bx, -lamp.height_mm)],
                           axis=-1)
        half = to_cam / np.linalg.norm(to_cam, axis=-1, keepdims=True) + to_lamp / np.linalg.norm(
            to_lamp, axis=-1, keepdims=True)
        cos = np.clip(-half[..., 2] / np.linalg.norm(half, axis=-1), 0.0, 1.0)   # the board's normal is -z
        spec = gloss.strength * cos ** gloss.shininess
        colour = np.asarray(cast_gains(lamp.kelvin, False, 0.3), np.float32)
        highlight = _full(spec, size)
        image = image + cv2.merge([highlight * float(c) for c in colour])
    return image


#: The strongest defocus blur drawn (Gaussian sigma, px).
MAX_DEFOCUS_SIGMA = 12.0


def depth_of_field(image: np.ndarray, physical: Physical, camera: Camera) -> np.ndarray:
    """Defocus growing with distance from the focused depth (the aim point's): a blend toward a blurred copy."""
    if not physical.depth_of_field:
        return image
    _, _, depth = board_points(camera)
    focus = float(np.median(depth))
    sigma = np.abs(depth - focus) / 100.0 * physical.depth_of_field
    top = float(sigma.max())
    if top < 0.3:
        return image
    # A tilted camera's top rows can look past the table's horizon, where the depth (and so ``top``)
    # runs to thousands: cv2.GaussianBlur crashes on such a sigma, and past a dozen pixels a blurred
    # copy is mush anyway. The weights still use ``top``, so where ``top`` is that large the board near
    # focus still blends in only a sliver of the copy (a less blurred one than before).
    blurred = cv2.GaussianBlur(image, (0, 0), min(top, MAX_DEFOCUS_SIGMA))
    weight = _full(np.clip(sigma / top, 0.0, 1.0), camera.resolution)[..., None]
    return image * (1.0 - weight) + blurred * weight


def hand_shadow_px(physical: Physical, camera: Camera, tip_mm: tuple[float, float]) -> tuple[float, float]:
    """Where the lamp throws the shadow of a hand ``hand_height_mm`` above ``tip_mm``, in frame px."""
    lamp = physical.lamp
    lift = physical.hand_height_mm / max(1.0, lamp.height_mm - physical.hand_height_mm)
    dx = (tip_mm[0] - lamp.position_mm[0]) * lift
    dy = (tip_mm[1] - lamp.position_mm[1]) * lift
    a, b = camera.project(np.array([tip_mm, (tip_mm[0] + dx, tip_mm[1] + dy)], float))
    return float(b[0] - a[0]), float(b[1] - a[1])
