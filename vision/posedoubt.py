"""How far a pose fitted to marker corners may misplace each cell.

The corners a pose is fitted to are off by about the fit's reprojection error (a shaken camera drags them along
the smear). Few markers, or markers bunched on one part of the board, pass that error on magnified to the cells far
from them: ``cell_shifts`` is the shift of every cell per pixel of corner noise (the normalised direct linear fit,
differentiated, every corner coordinate's share added in quadrature). Two or three markers leave the error few
degrees of freedom to be measured by: ``noise_bound`` is how far above the measured residual the noise may be.
``BoardFinder.cell_doubt`` multiplies the two by the residual.
"""

from __future__ import annotations

import numpy as np


def _normaliser(points: np.ndarray) -> tuple[np.ndarray, float]:
    """The similarity that centres ``points`` at the origin at a mean distance of sqrt(2), and its scale."""
    centre = points.mean(axis=0)
    scale = float(np.sqrt(2) / max(np.mean(np.linalg.norm(points - centre, axis=1)), 1e-9))
    return np.array([[scale, 0, -scale * centre[0]], [0, scale, -scale * centre[1]], [0, 0, 1]]), scale


def noise_bound(corners: int) -> float:
    """How many times a fit's RMS corner residual the corner noise may be (one-sided 95%, at least 1): the homography
    takes 8 of the 2 x ``corners`` coordinates' degrees of freedom (chi-square quantile after Wilson and Hilferty)."""
    dof = 2 * corners - 8
    low = dof * (1 - 2 / (9 * dof) - 1.645 * np.sqrt(2 / (9 * dof))) ** 3
    return max(1.0, float(np.sqrt(corners / low)))


def cell_shifts(src_mm: np.ndarray, seen_px: np.ndarray, centres_mm: np.ndarray) -> np.ndarray:
    """(len(centres_mm),) how many image px each point of the board moves per px of noise on every corner, for the
    homography fitted from ``src_mm`` (N, 2) board points to ``seen_px`` (N, 2) image points."""
    (ts, _), (td, scale) = _normaliser(src_mm), _normaliser(seen_px)
    xy1 = np.c_[src_mm, np.ones(len(src_mm))] @ ts.T
    dst = seen_px @ td[:2, :2].T + td[:2, 2]
    a = np.zeros((2 * len(src_mm), 9))
    a[0::2, 0:3], a[0::2, 6:9] = xy1, -dst[:, :1] * xy1
    a[1::2, 3:6], a[1::2, 6:9] = xy1, -dst[:, 1:] * xy1
    _, sv, vt = np.linalg.svd(a)
    h = vt[-1]
    inverse = (vt[:-1].T / sv[:-1] ** 2) @ vt[:-1]          # (A^T A)^+ away from the solution
    # A corner coordinate moved by d changes its row of A by d [x, y, 1] in the last three columns.
    rows = a.T * np.repeat(xy1 @ h[6:9], 2)[None, :]
    rows[6:9] += np.repeat(xy1.T, 2, axis=1) * (a @ h)[None, :]
    dh = (inverse @ rows * scale).T.reshape(-1, 3, 3)        # per px of each corner coordinate
    centres = np.c_[centres_mm, np.ones(len(centres_mm))] @ ts.T
    back = np.linalg.inv(td).T

    def place(hs: np.ndarray) -> np.ndarray:
        q = centres @ np.swapaxes(hs, -1, -2) @ back
        return q[..., :2] / q[..., 2:]

    step = 1e-6
    shifts = (place(h.reshape(3, 3)[None] + step * dh) - place(h.reshape(3, 3))) / step
    return np.sqrt((shifts ** 2).sum(axis=(0, 2)))
