"""The printed grid lines at the borders of empty cells: paper shows them, a hand or anything over the board does not.

The board is printed with a grid line 0.3 mm wide between every two cells (``artwork.GRID_BGR`` on
``artwork.PAPER_BGR``). Across a border, the line takes a known share of the paper's light: in linear light (where blur
only moves light about, never adds or takes it) the integral of ``1 - light / paper`` across the line is its width
times its contrast, about 0.15 px of the grid image at 32 px a cell, however blurred or shaded the picture. A cell
read as paper whose borders with other paper show none of it, where the borders elsewhere on the board show it well
above the noise, is something paper-pale over the board (the palm of a hand in warm light, a sleeve), not paper.

Two things make the line's place uncertain: lens distortion, which the pose's homography does not follow (a few pixels
in the grid image), and noise. So each border's line is looked for a little either side of where the pose puts it,
and a smooth displacement (a quadratic over the board, one for the lines of each direction) is fitted to the borders
where it clearly shows; every border is then measured where that displacement puts its line, not where its own noise
is darkest. Where too few borders show a line (a small, blurred or compressed picture), nothing is said.
"""

from __future__ import annotations

import cv2
import numpy as np

from thoughtwave.vision.cellmeasures import LINEAR
from thoughtwave.vision.finder import GridGeometry

#: Along each border, the share of it (from its start) that is measured: clear of the crossing lines at its ends and of
#: the cell's printed name near its north-west corner.
ALONG = (0.2, 0.95)
#: The line is looked for this many px either side of where the pose puts it (lens distortion) ...
SHIFT = 6
#: ... in a window this many px either side of it (a blurred line spreads), against the paper this many px beyond.
WINDOW, FLANK = 2, 3
#: A border shows its line clearly where its integrated dip (px of full dark) is above this: such borders place lines.
CLEAR_DIP = 0.07
#: A displacement is fitted to no fewer borders than this (of a direction); a border this many px off it is left out.
FIT_MIN, FIT_OFF = 8, 1.5
#: A cell shows no line where the mean dip of its borders with paper is under this share of the board's median dip ...
LINE_SHARE = 0.3
#: ... as long as the board's lines stand this many times above the noise of the cell's measure.
LINE_SNR = 3.0

_SHIFTS = np.arange(-SHIFT, SHIFT + 1)
_SUM = np.ones((1, 3), np.float32)
_REACH = SHIFT + WINDOW + FLANK


def _profiles(light: np.ndarray, geometry: GridGeometry) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Mean profiles across the 90 vertical borders (10 rows, 9) and the 90 horizontal ones (9, 10 columns): (..., 2 *
    ``_REACH``) px centred on the border, and the noise of one pixel (its spread along the border beyond the line)."""
    p, m = geometry.px_per_cell, geometry.margin_px
    a, b = int(round(ALONG[0] * p)), int(round(ALONG[1] * p))
    offsets = np.arange(-_REACH, _REACH)
    borders = m + p * np.arange(1, 10)
    across = (borders[:, None] + offsets[None, :]).ravel()
    along = m + p * np.arange(10)[:, None] + np.arange(a, b)[None, :]                         # (10, L)
    vertical = light[:, across].reshape(light.shape[0], 9, -1)[along].transpose(0, 2, 1, 3)  # (10, 9, L, 2R)
    horizontal = light[across, :].reshape(9, -1, light.shape[1])[:, :, along].transpose(0, 2, 3, 1)  # (9, 10, L, 2R)
    out = []
    for seg in (vertical, horizontal):
        out.append(seg.mean(axis=-2))
        ends = seg[..., [0, 1, 2, -3, -2, -1]]
        out.append(np.diff(ends, axis=-2).std(axis=(-2, -1)) / np.sqrt(2))
    return out[0], out[2], out[1], out[3]


def _dips(profile: np.ndarray) -> np.ndarray:
    """(..., shifts): the integrated dip (px of full dark) of a line centred ``shift`` px off the border, against the
    paper's light on either side of it taken as a straight slope."""
    sums = np.concatenate([np.zeros(profile.shape[:-1] + (1,)), np.cumsum(profile, axis=-1)], axis=-1)
    centre = _REACH + _SHIFTS                              # the border between px centre - 1 and centre
    lo0, lo1 = centre - WINDOW - FLANK, centre - WINDOW
    hi0, hi1 = centre + WINDOW, centre + WINDOW + FLANK
    before = (sums[..., lo1] - sums[..., lo0]) / FLANK
    after = (sums[..., hi1] - sums[..., hi0]) / FLANK
    inside = sums[..., hi0] - sums[..., lo1]
    paper = np.maximum(0.5 * (before + after), 1e-4)       # the slope's mean over the window is its middle
    return (2 * WINDOW) - inside / paper


def _basis(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    x, y = x - 5.0, y - 5.0
    return np.stack([np.ones_like(x), x, y, x * x, x * y, y * y], axis=-1)


def _aligned(dips: np.ndarray, usable: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray | None:
    """Each border's dip where a smooth displacement fitted to the clear ones puts its line; None with too few."""
    best = dips.argmax(axis=-1)
    clear = usable & (dips.max(axis=-1) > CLEAR_DIP)
    if clear.sum() < FIT_MIN:
        return None
    basis, shift = _basis(x[clear], y[clear]), _SHIFTS[best[clear]].astype(np.float64)
    keep = np.ones(len(shift), bool)
    for _ in range(4):
        if keep.sum() < FIT_MIN:
            return None
        coef = np.linalg.lstsq(basis[keep], shift[keep], rcond=None)[0]
        kept, keep = keep, np.abs(basis @ coef - shift) <= FIT_OFF
        if np.array_equal(keep, kept):
            break                               # the same borders: the same fit again
    at = np.clip(_basis(x, y) @ coef, -SHIFT, SHIFT) + SHIFT
    lo = np.minimum(np.floor(at).astype(int), 2 * SHIFT - 1)
    share = at - lo
    pick = np.take_along_axis
    return (pick(dips, lo[..., None], -1)[..., 0] * (1 - share) + pick(dips, lo[..., None] + 1, -1)[..., 0] * share)


_VX, _VY = np.meshgrid(np.arange(1, 10, dtype=np.float64), np.arange(10) + 0.5)      # (10, 9) border middles, cells
_HX, _HY = np.meshgrid(np.arange(10) + 0.5, np.arange(1, 10, dtype=np.float64))      # (9, 10)


def unlined(grid: np.ndarray, geometry: GridGeometry, paper: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For the cells read as ``paper`` (100,) bool: which show no printed line at their borders with other such cells
    where the board's lines show well above the noise, and (100,) each cell's line evidence as a share of the board's
    (NaN where it was not measured)."""
    empty = paper.reshape(10, 10)
    use_v, use_h = empty[:, :-1] & empty[:, 1:], empty[:-1, :] & empty[1:, :]
    none = np.zeros(100, bool), np.full(100, np.nan)
    if use_v.sum() + use_h.sum() < 2 * FIT_MIN:
        return none
    light = cv2.transform(cv2.LUT(grid, LINEAR), _SUM)       # linear light, the three channels summed
    prof_v, prof_h, noise_v, noise_h = _profiles(light, geometry)
    dip_v = _aligned(_dips(prof_v), use_v, _VX, _VY)
    dip_h = _aligned(_dips(prof_h), use_h, _HX, _HY)
    if dip_v is None or dip_h is None:
        return none
    length = int(round(ALONG[1] * geometry.px_per_cell)) - int(round(ALONG[0] * geometry.px_per_cell))
    # The noise of a dip: 2 * WINDOW pixels' noise over the paper's light, a little more for the flanks it is taken at.
    scale = np.sqrt(2 * WINDOW / length) * 1.3
    sd_v = noise_v * scale / np.maximum(prof_v.mean(axis=-1), 1e-4)
    sd_h = noise_h * scale / np.maximum(prof_h.mean(axis=-1), 1e-4)
    board = float(np.median(np.concatenate([dip_v[use_v], dip_h[use_h]])))
    # Per cell: the sum and count of its borders' dips and variances (north, south, west, east), usable ones only.
    total, count, var = np.zeros((10, 10)), np.zeros((10, 10)), np.zeros((10, 10))
    for dip, sd, use, before, after in ((dip_v, sd_v, use_v, np.s_[:, :-1], np.s_[:, 1:]),
                                        (dip_h, sd_h, use_h, np.s_[:-1, :], np.s_[1:, :])):
        d, v, u = np.where(use, dip, 0.0), np.where(use, sd * sd, 0.0), use.astype(float)
        for cells in (before, after):       # the cells a border comes after, then those it comes before
            total[cells] += d
            var[cells] += v
            count[cells] += u
    seen = count > 0
    mean = np.where(seen, total / np.maximum(count, 1), np.nan)
    noise = np.sqrt(var / np.maximum(count, 1) ** 2)
    missing = seen & empty & (board >= LINE_SNR * noise) & (mean < LINE_SHARE * board)
    return missing.ravel(), (mean / max(board, 1e-6)).ravel()
