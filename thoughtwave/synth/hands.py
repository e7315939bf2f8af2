"""Hands over the board: a player's hand and forearm, their outline in board mm, mask, shadow and shading."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, replace

import cv2
import numpy as np

from thoughtwave.engine.cells import Cell
from thoughtwave.synth.camera import Projector
from thoughtwave.vision.artwork import BoardLayout

#: Skin tones (BGR) from light to dark, for hands.
SKIN_TONES: tuple[tuple[int, int, int], ...] = (
    (160, 180, 228), (132, 158, 210), (105, 135, 190), (78, 105, 150), (55, 75, 110), (42, 55, 80),
)


@dataclass(frozen=True)
class Hand:
    """A hand and forearm over the board, flat in its plane: the middle fingertip at ``tip_mm``, the
    arm going out toward ``angle_deg`` (board mm, 90 = south), casting a shadow ``shadow_px`` away."""

    tip_mm: tuple[float, float]
    angle_deg: float
    skin_bgr: tuple[int, int, int] = SKIN_TONES[1]
    length_mm: float = 185.0
    width_mm: float = 85.0
    right: bool = True
    shadow_px: tuple[float, float] = (12.0, 10.0)
    shadow_depth: float = 0.35



def hand_over(cell: Cell, hand: Hand, layout: BoardLayout) -> Hand:
    """``hand`` moved so that its fingers cover ``cell`` (fingertips a little past the centre), arm as before."""
    a = math.radians(hand.angle_deg)
    cx, cy = layout.cell_center_mm(cell)
    reach = 0.35 * layout.cell_mm
    return replace(hand, tip_mm=(cx - math.cos(a) * reach, cy - math.sin(a) * reach))


def random_hand(rnd: random.Random, layout: BoardLayout) -> Hand:
    """A hand reaching in from a random side with its fingertips over (or near) the grid."""
    gx, gy = layout.grid_origin_mm
    c = layout.cell_mm
    tip = (gx + c * (-0.5 + 11 * rnd.random()), gy + c * (-0.5 + 11 * rnd.random()))
    side = rnd.choice((90.0, 270.0, 90.0, 270.0, 0.0, 180.0))  # players sit south and north, mostly
    return Hand(
        tip_mm=tip, angle_deg=side + rnd.uniform(-35, 35), skin_bgr=rnd.choice(SKIN_TONES),
        length_mm=rnd.uniform(165, 200), width_mm=rnd.uniform(75, 95), right=rnd.random() < 0.85,
        shadow_px=(rnd.uniform(-25, 25), rnd.uniform(-25, 25)), shadow_depth=rnd.uniform(0.2, 0.5),
    )


def _capsule(a: np.ndarray, b: np.ndarray, radius: float, steps: int = 8) -> np.ndarray:
    """Outline of a rounded bar from ``a`` to ``b`` (2D points), as a polygon."""
    d = b - a
    angle = math.atan2(d[1], d[0])
    arc1 = [a + radius * np.array([math.cos(t), math.sin(t)])
            for t in np.linspace(angle + math.pi / 2, angle + 3 * math.pi / 2, steps)]
    arc2 = [b + radius * np.array([math.cos(t), math.sin(t)])
            for t in np.linspace(angle - math.pi / 2, angle + math.pi / 2, steps)]
    return np.array(arc1 + arc2)


def hand_outline_mm(hand: Hand) -> list[np.ndarray]:
    """The hand's convex parts (fingers, thumb, palm) as polygons in board mm."""
    tip = np.asarray(hand.tip_mm, float)
    a = math.radians(hand.angle_deg)
    along = np.array([math.cos(a), math.sin(a)])    # from the fingertips toward the wrist
    across = np.array([-along[1], along[0]])
    length, width = hand.length_mm, hand.width_mm
    side = 1.0 if hand.right else -1.0

    def at(u: float, v: float) -> np.ndarray:
        return tip + along * (u * length) + across * (v * width * side)

    parts = []
    finger_r = 0.115 * width
    for offset, start in ((-0.33, 0.07), (-0.11, 0.0), (0.11, 0.04), (0.33, 0.15)):
        parts.append(_capsule(at(start, offset) + along * finger_r, at(0.5, offset), finger_r))
    # The palm: a rounded box (a superellipse) from the knuckles to the wrist, a little narrower there.
    palm = []
    for t in np.linspace(0, 2 * math.pi, 32, endpoint=False):
        c, s = math.cos(t), math.sin(t)
        u = 0.71 - 0.29 * math.copysign(abs(c) ** 0.5, c)
        palm.append(at(u, 0.5 * math.copysign(abs(s) ** 0.5, s) * (1.0 - 0.2 * (u - 0.42))))
    parts.append(np.array(palm))
    parts.append(_capsule(at(0.78, -0.42), at(0.45, -0.68), 0.13 * width))
    return parts


def hand_mask(hand: Hand, projector: Projector, size: tuple[int, int]) -> np.ndarray:
    """Where the hand and forearm cover the frame: float32 0..1, soft-edged."""
    w, h = size
    mask = np.zeros((h, w), np.uint8)
    shift = 4
    one = 1 << shift
    for part in hand_outline_mm(hand):
        px = projector.project(part)
        if np.isnan(px).any():
            continue
        cv2.fillConvexPoly(mask, np.round(px * one).astype(np.int32), 255, cv2.LINE_AA, shift)
    # The forearm runs on from the wrist, straight out of the frame.
    a = math.radians(hand.angle_deg)
    along = np.array([math.cos(a), math.sin(a)])
    across = np.array([-along[1], along[0]])
    wrist = np.asarray(hand.tip_mm) + along * 0.92 * hand.length_mm
    ends = projector.project(np.array([wrist - across * 0.4 * hand.width_mm, wrist + across * 0.4 * hand.width_mm,
                                       wrist + along * 40.0]))
    if not np.isnan(ends).any():
        centre = (ends[0] + ends[1]) / 2
        out = ends[2] - centre
        out /= max(1e-6, float(np.linalg.norm(out)))
        far = 2.5 * math.hypot(w, h)
        spread = (ends[1] - ends[0]) * 0.12
        arm = np.array([ends[0], ends[1], ends[1] + out * far + spread, ends[0] + out * far - spread])
        cv2.fillConvexPoly(mask, np.round(arm * one).astype(np.int32), 255, cv2.LINE_AA, shift)
    soft = cv2.GaussianBlur(mask, (0, 0), 1.2)
    return soft.astype(np.float32) * (1.0 / 255.0)


def composite_hand(image: np.ndarray, mask: np.ndarray, hand: Hand) -> np.ndarray:
    """The hand's shadow on the table and board, then the hand itself, rounded by shading."""
    h, w = mask.shape
    qw, qh = max(1, w // 4), max(1, h // 4)
    small = cv2.resize(mask, (qw, qh), interpolation=cv2.INTER_AREA)
    dx, dy = hand.shadow_px
    moved = cv2.warpAffine(small, np.float32([[1, 0, dx / 4], [0, 1, dy / 4]]), (qw, qh))
    moved = cv2.GaussianBlur(moved, (0, 0), 3.0)
    # Brighter along the middle of the fingers and arm, darker at the rims: a cheap roundness.
    depth = cv2.distanceTransform((small > 0.5).astype(np.uint8), cv2.DIST_L2, 3)
    shade = 0.72 + 0.33 * np.sqrt(np.minimum(depth / 6.0, 1.0))
    # Work on quarter-size fields and build the two full-size factors once: image * keep + skin * cover.
    shadow = cv2.resize(moved, (w, h), interpolation=cv2.INTER_LINEAR)
    keep = (1.0 - mask) * (1.0 - hand.shadow_depth * shadow)
    cover = cv2.resize(shade, (w, h), interpolation=cv2.INTER_LINEAR) * mask
    out = image * cv2.merge([keep, keep, keep])
    out += cv2.merge([cover * float(c) for c in hand.skin_bgr])
    return out
