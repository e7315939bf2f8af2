"""Where the tile reader looks inside a tile: sample regions and ideal pictures in the tile's own frame.

A tile is read from a (``PATCH``, ``PATCH``) patch resampled in its own frame: u east, v south, in tile
edges, centre 0, edges at +-0.5. Every region here is placed from the artwork's ``TileGeometry`` (the
band, hub and dots the printer draws), pulled in by a margin so that a few degrees or pixels of pose
error still sample inside the part it stands for. ``sampling(tile)`` gives them for one geometry.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import cv2
import numpy as np

from thoughtwave.engine.pieces import E, N, S, W
from thoughtwave.vision.artwork import TILE, TileGeometry

#: Side of the resampled tile patch in samples.
PATCH = 32
#: The arms' bits in the order of the region names' n, e, s, w.
ARM_BITS = (N, E, S, W)

# Margins (tile edges) between a sample region and the edge of the part of the artwork it samples.
#: The hub is sampled this far inside its rim.
HUB_INSET = 0.06
#: An arm is sampled across this much less than half the band's width each side of its centre line...
ARM_INSET = 0.08
#: ... from this far outside the hub ...
ARM_CLEAR_OF_HUB = 0.04
#: ... to this far short of the tile's edge.
ARM_CLEAR_OF_EDGE = 0.06
#: The body sample starts this far off the bands (it ends where the corner dots begin).
BODY_CLEAR_OF_BAND = 0.04
#: A corner dot is sampled this far inside its rim, against a ring of body from ``DOT_RING[0]`` to
#: ``DOT_RING[1]`` outside its rim.
DOT_INSET = 0.01
DOT_RING = (0.015, 0.04)
#: Side of the body patches of the hub template, in tile edges.
BODY_PATCH = 0.10
#: The residual is judged inside the tile, away from its rim where a pixel of pose error or a
#: neighbour's edge would dominate.
RESIDUAL_HALF = 0.42
#: Edge directions are taken within the tile's outline (half a diagonal, a little more) in a patch
#: ``ANGLE_EXTENT`` tiles wide, so a neighbour's edges barely count.
ANGLE_EXTENT = 1.1
ANGLE_RADIUS = 0.56
#: ... and this far clear of the hub's and the corner dots' rims.
ROUND_CLEARANCE = 0.04


def frame_coords(n: int = PATCH) -> tuple[np.ndarray, np.ndarray]:
    """Sample positions (u, v) in tile edges, u east, v south, centre 0, edges at +-0.5."""
    t = (np.arange(n, dtype=np.float32) + 0.5) / n - 0.5
    return np.meshgrid(t, t)


def _body_span(tile: TileGeometry) -> tuple[float, float]:
    """Where the body is sampled along each axis (either side): off the bands, short of the dots."""
    return tile.wave_half + BODY_CLEAR_OF_BAND, tile.dot_offset - tile.dot_radius


def region_masks(tile: TileGeometry = TILE) -> dict[str, np.ndarray]:
    """Boolean (PATCH, PATCH) masks of the regions a reading is made from (ValueError if one is empty)."""
    u, v = frame_coords()
    r = np.hypot(u, v)
    au, av = np.abs(u), np.abs(v)
    across = tile.wave_half - ARM_INSET
    start = tile.hub_radius + ARM_CLEAR_OF_HUB
    end = 0.5 - ARM_CLEAR_OF_EDGE
    mid = (start + end) / 2
    body_lo, body_hi = _body_span(tile)
    masks = {
        "hub": r < tile.hub_radius - HUB_INSET,
        # Between the hub and the edge, narrower than the band; inner and outer halves separately, so
        # that a wave cut short (a neighbour's tile over it, a shadow) is seen as doubt, not as blank.
        "arm_n_in": (au < across) & (v > -mid) & (v < -start),
        "arm_e_in": (av < across) & (u > start) & (u < mid),
        "arm_s_in": (au < across) & (v > start) & (v < mid),
        "arm_w_in": (av < across) & (u > -mid) & (u < -start),
        "arm_n_out": (au < across) & (v > -end) & (v < -mid),
        "arm_e_out": (av < across) & (u > mid) & (u < end),
        "arm_s_out": (au < across) & (v > mid) & (v < end),
        "arm_w_out": (av < across) & (u > -end) & (u < -mid),
        # Always body: off the bands, out of the hub, short of the corner dots.
        "body": (au > body_lo) & (au < body_hi) & (av > body_lo) & (av < body_hi),
    }
    # Beside each arm half, both sides: body at the same distance from the hub. A wave stands out from
    # its flanks; a blank arm lifted by a glare spot is lifted with them.
    flank = (np.abs(u) > body_lo) & (np.abs(u) < body_hi), (np.abs(v) > body_lo) & (np.abs(v) < body_hi)
    for part, (lo, hi) in {"in": (start, mid), "out": (mid, end)}.items():
        masks[f"flank_n_{part}"] = flank[0] & (v > -hi) & (v < -lo)
        masks[f"flank_e_{part}"] = flank[1] & (u > lo) & (u < hi)
        masks[f"flank_s_{part}"] = flank[0] & (v > lo) & (v < hi)
        masks[f"flank_w_{part}"] = flank[1] & (u > -hi) & (u < -lo)
    # Each corner dot against the ring of body around it: a local contrast, so light falling off
    # across the tile or blur from the bands does not matter.
    d0 = tile.dot_offset
    for name, (su, sv) in {"nw": (-1, -1), "ne": (1, -1), "se": (1, 1), "sw": (-1, 1)}.items():
        d = np.hypot(u - su * d0, v - sv * d0)
        masks[f"dot_{name}"] = d < tile.dot_radius - DOT_INSET
        masks[f"ring_{name}"] = (d > tile.dot_radius + DOT_RING[0]) & (d < tile.dot_radius + DOT_RING[1])
    empty = [name for name, mask in masks.items() if not mask.any()]
    if empty:
        raise ValueError(f"the tile geometry leaves no room to sample {', '.join(empty)}: {tile}")
    return masks


def ideal_pictures(tile: TileGeometry = TILE) -> np.ndarray:
    """(16, 2, PATCH, PATCH) cream maps of every arms mask (0 unused) and colour (0 black, 1 red)."""
    over = 4  # supersampled, so edges are partial like in a camera image
    u, v = frame_coords(PATCH * over)
    hub = np.hypot(u, v) < tile.hub_radius
    w = tile.wave_half
    bands = {N: (np.abs(u) < w) & (v < 0), E: (np.abs(v) < w) & (u > 0),
             S: (np.abs(u) < w) & (v > 0), W: (np.abs(v) < w) & (u < 0)}
    dots = np.zeros_like(hub)
    for su in (-1, 1):
        for sv in (-1, 1):
            dots |= np.hypot(u - su * tile.dot_offset, v - sv * tile.dot_offset) < tile.dot_radius
    out = np.zeros((16, 2, PATCH, PATCH), np.float32)
    for arms in range(1, 16):
        cream = hub.copy()
        for bit, band in bands.items():
            if arms & bit:
                cream |= band
        for red in (0, 1):
            pic = (cream | dots) if red else cream
            out[arms, red] = pic.reshape(PATCH, over, PATCH, over).mean(axis=(1, 3))
    return out


class TileSampling:
    """Everything the reader samples a tile with, for one ``TileGeometry``.

    ``masks`` are the named regions (``regions`` their names in order); ``ideal`` the pictures a patch is
    compared with; ``hub_kernel``, ``body_patch`` and ``body_offset`` size the hub template (tile edges):
    a box over the hub against four body patches on the diagonals.
    """

    def __init__(self, tile: TileGeometry = TILE) -> None:
        self.tile = tile
        self.masks = region_masks(tile)
        self.regions = list(self.masks)
        self.ideal = ideal_pictures(tile)
        self.hub_kernel = 2 * (tile.hub_radius - HUB_INSET)
        self.body_patch = BODY_PATCH
        self.body_offset = sum(_body_span(tile)) / 2
        self.angle_weight = angle_weight(tile)
        # Every region's sample indices, one after another, and where each region starts: one gather
        # and one ``np.add.reduceat`` give every region's mean for all cells.
        masks = list(self.masks.values())
        self._index = np.concatenate([np.flatnonzero(m.ravel()) for m in masks])
        self._start = np.cumsum([0] + [int(m.sum()) for m in masks])[:-1]
        self._size = np.array([m.sum() for m in masks], np.float32)
        # The body's four corner squares (nw, ne, se, sw) apart: sample indices, (4, samples a square).
        u, v = frame_coords()
        body = self.masks["body"]
        self.body_quarters = np.stack([np.flatnonzero((body & (su * u > 0) & (sv * v > 0)).ravel())
                                       for su, sv in ((-1, -1), (1, -1), (1, 1), (-1, 1))])

    def region_means(self, samples: np.ndarray) -> np.ndarray:
        """(cells, regions) means of (cells, PATCH*PATCH) samples over each region of ``masks``."""
        # A gather and a segmented sum: no BLAS, whose threads cost more to wake than these sums take.
        return np.add.reduceat(samples[:, self._index], self._start, axis=1) / self._size


@lru_cache(maxsize=8)
def sampling(tile: TileGeometry = TILE) -> TileSampling:
    """The ``TileSampling`` of ``tile`` (cached: it never changes)."""
    return TileSampling(tile)


_u, _v = frame_coords()
#: Patch samples the residual is judged on.
RESIDUAL_INDEX = np.flatnonzero(((np.abs(_u) < RESIDUAL_HALF) & (np.abs(_v) < RESIDUAL_HALF)).ravel())


def angle_weight(tile: TileGeometry = TILE) -> np.ndarray:
    """Weights of the gradient samples (an ``ANGLE_EXTENT`` patch less its rim) a tile's angle is measured from:
    inside the tile's outline, and off its round parts (the hub and the corner dots). A disc has edges in
    every direction; smeared by motion blur only those across the motion stay sharp, and they would pull
    the angle toward the motion's direction. Straight edges keep their direction however they are smeared."""
    u, v = _u[1:-1, 1:-1] * ANGLE_EXTENT, _v[1:-1, 1:-1] * ANGLE_EXTENT
    keep = np.hypot(u, v) < ANGLE_RADIUS
    keep &= np.hypot(u, v) > tile.hub_radius + ROUND_CLEARANCE
    d0 = tile.dot_offset
    for su in (-1, 1):
        for sv in (-1, 1):
            keep &= np.hypot(u - su * d0, v - sv * d0) > tile.dot_radius + ROUND_CLEARANCE
    return keep.astype(np.float32)


#: A blurred blank arm's inner half, lit by the hub's bleeding cream, reaches this scaled level at most.
BLEED_INNER_MAX = 0.7
#: In a blurred picture a side reads blank only with this margin (its level under a quarter of the way to cream).
BLUR_BLANK_MARGIN = 0.5


def read_arms(levels: np.ndarray, kept: np.ndarray, glare: np.ndarray, arm_margin: float,
              blurred: Callable[[], bool] | None = None, asks: np.ndarray | None = None
              ) -> tuple[np.ndarray, np.ndarray]:
    """Each tile's arms (bit mask) and the margin they were read with (0: in doubt), from the (100, 2, 4)
    scaled levels of each arm's inner and outer half, which halves were seen (``kept``) and which
    tiles lie under glare; ``arm_margin`` the least margin a reading needs.

    An arm is read from its halves seen, which must agree, each clearly wave or blank. Under glare one
    half clearly blank reads the arm blank even when the other is in doubt: glare only lifts dark ink
    toward cream, never the other way, so "blank" survives it and "wave" does not. In a blurred picture
    (``blurred()``, asked only when it matters) the hub's cream bleeds into the inner half of a blank arm:
    an outer half clearly blank reads the arm blank while the inner half is not clearly wave; and ink closes over
    a wave's narrow cream channel, so a side reads blank only by ``BLUR_BLANK_MARGIN``. ``asks`` (tiles, bool): the
    ones whose arms are used (all by default); ``blurred()`` is asked only where one of them needs it, and its answer
    then holds for every tile (measuring the picture's sharpness costs more than all of this)."""
    asks = np.ones(len(levels), bool) if asks is None else np.asarray(asks, bool)
    has_arm = levels > 0.5
    sure = np.abs(levels - 0.5) * 2
    # Each arm from its inner half, or its outer half where the inner one is washed out.
    bit = np.where(kept[:, 0], has_arm[:, 0], has_arm[:, 1])
    agree = (has_arm[:, 0] == has_arm[:, 1]) | ~kept.all(axis=1)
    margin = np.where(agree & kept.any(axis=1), np.where(kept, sure, np.inf).min(axis=1), 0.0)   # (100, 4)
    clear_blank = np.where(kept & ~has_arm, sure, 0.0).max(axis=1)
    rescue = glare[:, None] & (margin <= arm_margin) & (clear_blank > arm_margin)
    bit = np.where(rescue, False, bit)
    margin = np.where(rescue, clear_blank, margin)
    outer_blank = kept[:, 1] & ~has_arm[:, 1] & (sure[:, 1] > arm_margin)
    bled = (margin <= arm_margin) & outer_blank & (levels[:, 0] <= BLEED_INNER_MAX)
    if (bled & asks[:, None]).any() and blurred is not None and blurred():
        bit = np.where(bled, False, bit)
        margin = np.where(bled, sure[:, 1], margin)
    # Blur closes ink over a wave's narrow cream channel too (a smear of a quarter cell leaves it at 0.3): there a
    # blank side is said only where it is nearly as dark as ink, not merely darker than half.
    faint = ~bit & (margin > arm_margin) & (margin < BLUR_BLANK_MARGIN)
    if (faint & asks[:, None]).any() and blurred is not None and blurred():
        margin = np.where(faint, 0.0, margin)
    return (bit * np.array(ARM_BITS)).sum(axis=1), margin.min(axis=1)


def pale_sides(arm_red: np.ndarray, body_red: np.ndarray, share: float) -> np.ndarray:
    """(100, 4) the sides (n, e, s, w) that show too little red for a red tile's blank side: ``arm_red`` (100, 8) the
    redness of each arm's inner then outer half, ``body_red`` (100,) the body's; a blank half of a red tile is red ink
    like its body, so a side where neither half shows ``share`` of the body's redness is another thing: a wave, its end
    in a shadow (seed 53, frames 60 and 84), or something over it."""
    red = np.asarray(arm_red).reshape(-1, 2, 4).max(axis=1)
    return red < share * np.asarray(body_red)[:, None]


def in_tile_frames(image: np.ndarray, cx: np.ndarray, cy: np.ndarray, angle: np.ndarray, u: np.ndarray,
                   v: np.ndarray) -> np.ndarray:
    """(n, *u.shape, ch) ``image`` sampled at the offsets (``u`` east, ``v`` south, px) in each of n tiles' own
    frames (centre ``cx``, ``cy`` in image px, turned by ``angle``), bilinear, the border repeated: one remap."""
    n = np.size(cx)
    cos, sin = np.cos(angle).reshape(n, 1), np.sin(angle).reshape(n, 1)
    du, dv = np.ravel(u)[None, :], np.ravel(v)[None, :]
    cx, cy = np.reshape(cx, (n, 1)), np.reshape(cy, (n, 1))
    single = all(a.dtype == np.float32 for a in (cx, cy, cos, du, dv))
    if single and not np.any(angle):
        # Unturned (``TileReader._angles``' first look): ``du * 1 + cx - dv * 0`` is ``du + cx``, and ``du * 0 + cy +
        # dv * 1`` is ``cy + dv``: the same numbers (a zero's sign aside, which the remap does not tell apart).
        map_x, map_y = du + cx, dv + cy
    elif single:
        # All float32 (the reader's patches): the same sums in the same order, in place (half the time).
        map_x, turned = du * cos, dv * sin
        map_x += cx
        map_x -= turned
        map_y = np.multiply(du, sin, out=turned)
        map_y += cy
        map_y += dv * cos
    else:
        map_x = (cx + du * cos - dv * sin).astype(np.float32)
        map_y = (cy + du * sin + dv * cos).astype(np.float32)
    out = cv2.remap(image, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return out.reshape(n, *np.shape(u), -1)
