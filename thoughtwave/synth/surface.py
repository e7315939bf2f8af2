"""What the camera films besides light: the printed paper (printer colour shift, ink lift, paper grain) and
the desk the board lies on (a wood-like or plain top)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from thoughtwave.synth.camera import line_kernel
from thoughtwave.synth.recent import Recent

#: Desk tops (BGR) and how much grain each shows: oak, walnut, grey laminate, white laminate, slate, baize.
DESK_TONES: tuple[tuple[tuple[int, int, int], float], ...] = (
    ((95, 145, 190), 0.9), ((45, 70, 105), 0.9), ((150, 150, 145), 0.25), ((215, 218, 220), 0.15),
    ((60, 60, 58), 0.3), ((60, 110, 50), 0.2),
)


@dataclass(frozen=True)
class Printing:
    """How the home printer did: ``paper_texture`` (relative grain), ``colour_shift`` 0..1 (red comes out
    orange-brown, black greyish), ``ink_lift`` (grey levels the darkest ink is lifted by)."""

    paper_texture: float = 0.0
    colour_shift: float = 0.0
    ink_lift: float = 0.0



@dataclass(frozen=True)
class Desk:
    """The desk (table top) the board lies on: base colour, wood grain strength 0..1 and direction, its own seed."""

    bgr: tuple[int, int, int] = DESK_TONES[0][0]
    grain: float = 0.5
    angle_deg: float = 0.0
    seed: int = 0



def _smooth_noise(rng: np.random.Generator, size: tuple[int, int], cells: tuple[int, int]) -> np.ndarray:
    """Smooth random field in -1..1-ish of ``size`` (w, h) from a ``cells`` grid of random values."""
    coarse = rng.standard_normal((cells[1], cells[0])).astype(np.float32)
    return cv2.resize(coarse, size, interpolation=cv2.INTER_CUBIC)


def printed(board: np.ndarray, alpha: np.ndarray, printing: Printing, seed: int,
             size: tuple[int, int]) -> np.ndarray:
    """The board layer (premultiplied by ``alpha``) as the home printer and paper made it."""
    out = board
    s = printing.colour_shift
    if s > 0:
        # Rows sum to one, so white paper stays white while saturated red drifts to orange-brown.
        matrix = np.array([
            [1 - 0.10 * s, 0.10 * s, 0.0],
            [0.0, 1 - 0.22 * s, 0.22 * s],
            [0.0, 0.12 * s, 1 - 0.12 * s],
        ], np.float32)
        out = cv2.transform(out, matrix)
    if printing.ink_lift > 0:
        lift = printing.ink_lift
        out = out * (1 - lift / 255.0) + lift * alpha
    if printing.paper_texture > 0:
        out = out * _paper_grain(seed, size, printing.paper_texture)
    return out


@lru_cache(maxsize=2)
def _paper_grain(seed: int, size: tuple[int, int], amount: float) -> np.ndarray:
    """Multiplicative paper grain, (h, w, 3) float32 (cached: a fixed camera sees the same paper every frame)."""
    rng = np.random.default_rng(seed)
    w, h = size
    fine = rng.standard_normal((h // 2 + 1, w // 2 + 1)).astype(np.float32)
    fine = cv2.resize(fine, size, interpolation=cv2.INTER_LINEAR)
    blotch = _smooth_noise(rng, size, (24, 18))
    grain = 1.0 + amount * (0.6 * fine + 0.8 * blotch)
    out = cv2.merge([grain, grain, grain])
    out.setflags(write=False)
    return out


_DESK_CACHE = Recent(4)


def desk_texture(desk: Desk, size: tuple[int, int]) -> np.ndarray:
    """The desk top as float32 BGR: streaky wood-like grain along ``angle_deg`` (cached per desk)."""
    return _DESK_CACHE.get((desk, size), lambda: _make_desk_texture(desk, size))


def _make_desk_texture(desk: Desk, size: tuple[int, int]) -> np.ndarray:
    w, h = size
    rng = np.random.default_rng(desk.seed)
    # The grain is broad, so a quarter-size field scaled up loses nothing.
    qw, qh = max(2, w // 4), max(2, h // 4)
    ys, xs = np.mgrid[0:qh, 0:qw].astype(np.float32)
    a = math.radians(desk.angle_deg)
    across = (-xs * math.sin(a) + ys * math.cos(a)) / max(qw, qh)
    along = (xs * math.cos(a) + ys * math.sin(a)) / max(qw, qh)
    # Grain lines run along the board's planks: a gently wandering stripe pattern plus fine streaks.
    wander = cv2.resize(rng.standard_normal((4, 4)).astype(np.float32), (qw, qh), interpolation=cv2.INTER_CUBIC)
    rings = np.sin(across * 160.0 + 2.0 * wander + 1.5 * np.sin(along * 7.0 + wander)) * 0.5 + 0.5
    fine = cv2.GaussianBlur(rng.standard_normal((qh, qw)).astype(np.float32), (0, 0), 0.7)
    streaks = cv2.filter2D(fine, -1, line_kernel(25.0, desk.angle_deg)) * 3.0
    shade = cv2.resize(1.0 + desk.grain * (0.16 * rings ** 3 - 0.05 + 0.07 * streaks), size,
                       interpolation=cv2.INTER_LINEAR)
    out = cv2.merge([shade * float(c) for c in desk.bgr])
    out.setflags(write=False)
    return out
