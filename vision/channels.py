"""Per-pixel channel helpers of the tile reader: the smallest and largest channel (faster than numpy's
reductions over the colour axis), the median colour, and the smooth hue field of the paper white across the board."""

from __future__ import annotations

import functools

import cv2
import numpy as np


def darkest(image: np.ndarray) -> np.ndarray:
    """The smallest channel of each pixel (numpy's ``min(axis=2)`` is several times slower on BGR)."""
    b, g, r = cv2.split(image)
    return cv2.min(cv2.min(b, g), r)


def brightest(image: np.ndarray) -> np.ndarray:
    """The largest channel of each pixel."""
    b, g, r = cv2.split(image)
    return cv2.max(cv2.max(b, g), r)


def median_colour(samples: np.ndarray) -> np.ndarray:
    """The median (float32, per channel) of (N, channels) ``samples`` of whole numbers (uint8): a sample, or the mean of
    two, which float32 holds exactly however it is summed, so numpy's ``median`` of them as float32 gives the same
    numbers, at several times the cost (the few dozen samples of a marker's quiet zone)."""
    n = len(samples)
    middle = [n // 2 - 1, n // 2] if n % 2 == 0 else [n // 2]
    part = np.partition(samples, middle, axis=0)[middle].astype(np.float32)
    return part[0] if len(middle) == 1 else (part[0] + part[1]) / 2


def hue_field(ratio: np.ndarray, luma: np.ndarray, outlier: float) -> np.ndarray:
    """The smooth hue of the paper white across the board (per channel, relative to its brightness): a
    plane fitted, robustly, to the local whites' hues. Light of two colours from two sides follows
    it; a hand, a blob a few cells wide, cannot bend it. ``ratio`` (h, w, 3) is each local white over the
    board's median white, ``luma`` its mean over the channels; a sample whose hue is ``outlier`` (log) or
    more off a fit is left out of the next. In ``ratio``'s units (the fitted hue times ``luma``)."""
    h, w = luma.shape
    step = max(1, min(h, w) // 24)
    chroma = np.log(np.maximum(ratio[::step, ::step], 1e-3) / np.maximum(luma[::step, ::step, None], 1e-3))
    design, full_design = _planes(h, w, step)
    values = chroma.reshape(-1, 3)
    keep = ((luma[::step, ::step] > 0.55) & (luma[::step, ::step] < 1.6)).ravel()
    coef = np.zeros((3, 3))
    for _ in range(3):
        if keep.sum() < 12:
            return np.ones_like(ratio)
        coef, *_ = np.linalg.lstsq(design[keep], values[keep], rcond=None)
        keep &= (np.abs(values - design @ coef) < outlier).all(axis=1)
    full = full_design @ coef
    return np.exp(full).reshape(h, w, 3).astype(np.float32) * luma[..., None]


@functools.lru_cache(maxsize=4)
def _planes(h: int, w: int, step: int) -> tuple[np.ndarray, np.ndarray]:
    """The design matrices (1, x, y) of ``hue_field``'s plane at its samples (every ``step`` px) and at every px of an
    ``h`` x ``w`` picture, x and y from -0.5 to 0.5 across it: the same for every frame of a size, so made once."""
    ys, xs = np.mgrid[0:h:step, 0:w:step]
    yy, xx = np.mgrid[0:h, 0:w]
    out = []
    for x, y in ((xs.ravel() / w - 0.5, ys.ravel() / h - 0.5), (xx.ravel() / w - 0.5, yy.ravel() / h - 0.5)):
        design = np.column_stack([np.ones_like(x), x, y])
        design.flags.writeable = False      # kept for the next call (a cache)
        out.append(design)
    return out[0], out[1]


def off_paper_hue(whites: np.ndarray, x: np.ndarray, y: np.ndarray, at: np.ndarray, papers: np.ndarray, size: float,
                  spread: float) -> np.ndarray | None:
    """(N,) bool: which local whites ``whites`` (N, 3, BGR) at grid-image px (``x``, ``y``) are of another hue than the
    board's paper there by more than ``spread`` (the channel most above the paper's hue over the one most below).

    The paper's hue is taken from the quiet zones round the decoded markers, ``papers`` (M, 3, BGR) at grid-image px
    ``at`` (M, 2; ``size`` the grid image's side): a plane through their log chromaticities follows lights of two
    colours from two sides, and no hand over the board bends it, as it is fitted to the markers' own paper only (the
    board's ``hue_field`` is fitted to its local whites, and an arm across a third of the board pulls it toward skin,
    which a warm lamp leaves within its ``spread`` of the fit). None under three markers or with them all in a line.
    """
    off = paper_hue_offsets(whites, x, y, at, papers, size)
    return None if off is None else (off.max(axis=1) - off.min(axis=1)) > np.log(spread)


def paper_hue_offsets(whites: np.ndarray, x: np.ndarray, y: np.ndarray, at: np.ndarray, papers: np.ndarray,
                      size: float) -> np.ndarray | None:
    """(N, 3) how far the log chromaticity (B, G, R, each channel's log less their mean) of each of ``whites`` (N, 3,
    BGR) at grid-image px (``x``, ``y``) lies from the board's paper's there: the plane through the paper round the
    decoded markers (``papers`` at ``at``; ``size`` the grid image's side), as ``off_paper_hue`` takes it. None under
    three markers or with them all in a line."""
    if len(papers) < 3:
        return None
    design = np.column_stack([np.ones(len(at)), np.asarray(at, np.float64) / size - 0.5])
    chroma = np.log(np.asarray(papers, np.float64) + 1.0)
    chroma -= chroma.mean(axis=1, keepdims=True)
    coef, _, rank, _ = np.linalg.lstsq(design, chroma, rcond=None)
    if rank < 3:
        return None
    local = np.log(np.asarray(whites, np.float64) + 1.0)
    local -= local.mean(axis=1, keepdims=True)
    return local - np.column_stack([np.ones(len(x)), np.asarray(x) / size - 0.5, np.asarray(y) / size - 0.5]) @ coef
