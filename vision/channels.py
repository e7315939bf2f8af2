"""Per-pixel channel helpers of the tile reader: the smallest and largest channel (faster than numpy's
reductions over the colour axis), and the smooth hue field of the paper white across the board."""

from __future__ import annotations

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


def hue_field(ratio: np.ndarray, luma: np.ndarray, outlier: float) -> np.ndarray:
    """The smooth hue of the paper white across the board (per channel, relative to its brightness): a
    plane fitted, robustly, to the local whites' hues. Light of two colours from two sides follows
    it; a hand, a blob a few cells wide, cannot bend it. ``ratio`` (h, w, 3) is each local white over the
    board's median white, ``luma`` its mean over the channels; a sample whose hue is ``outlier`` (log) or
    more off a fit is left out of the next. In ``ratio``'s units (the fitted hue times ``luma``)."""
    h, w = luma.shape
    step = max(1, min(h, w) // 24)
    ys, xs = np.mgrid[0:h:step, 0:w:step]
    chroma = np.log(np.maximum(ratio[::step, ::step], 1e-3) / np.maximum(luma[::step, ::step, None], 1e-3))
    x, y = xs.ravel() / w - 0.5, ys.ravel() / h - 0.5
    design = np.column_stack([np.ones_like(x), x, y])
    values = chroma.reshape(-1, 3)
    keep = ((luma[::step, ::step] > 0.55) & (luma[::step, ::step] < 1.6)).ravel()
    coef = np.zeros((3, 3))
    for _ in range(3):
        if keep.sum() < 12:
            return np.ones_like(ratio)
        coef, *_ = np.linalg.lstsq(design[keep], values[keep], rcond=None)
        keep &= (np.abs(values - design @ coef) < outlier).all(axis=1)
    yy, xx = np.mgrid[0:h, 0:w]
    x, y = xx.ravel() / w - 0.5, yy.ravel() / h - 0.5
    full = np.column_stack([np.ones_like(x), x, y]) @ coef
    return np.exp(full).reshape(h, w, 3).astype(np.float32) * luma[..., None]
