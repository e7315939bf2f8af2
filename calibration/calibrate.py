"""Calibrate: one frame of the board in, the checks and a profile out.

The colour model is learnt from the sample tiles (a red tile on E5, a black one on F6) when they are
there: each threshold of the reader is moved to sit between what this print looks like under this
light, so an orange-brown red or a greyish black still reads. Without samples the reader's defaults stay.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from thoughtwave.calibration.checks import BLACK_SAMPLE, RED_SAMPLE, LightMap, Samples, light_map, run_all
from thoughtwave.calibration.profile import CheckResult, Profile
from thoughtwave.engine.cells import CELLS, Cell
from thoughtwave.vision.artwork import BoardLayout
from thoughtwave.vision.camera_control import Lockable
from thoughtwave.vision.finder import BoardFinder
from thoughtwave.vision.tiles import ColourModel, TileReader

if TYPE_CHECKING:
    from thoughtwave.calibration.lens import LensModel

#: Share of a cell's middle that must be tile body for a sample tile to count as present.
SAMPLE_BODY = 0.3


@dataclass
class Calibration:
    """The outcome: every check, the profile (None when no board was found) and the glare and shadow
    map of the board (None without a board; its verdict is the "glare" check)."""

    checks: list[CheckResult]
    profile: Profile | None
    light: LightMap | None = None

    @property
    def ok(self) -> bool:
        """Whether every check passed (warnings allowed)."""
        return self.profile is not None and all(c.ok for c in self.checks)


def _cell_block(a: np.ndarray, cell: Cell, p: int, m: int, inset: float = 0.1) -> np.ndarray:
    k = int(round(inset * p))
    y, x = m + cell.row * p, m + cell.col * p
    return a[y + k:y + p - k, x + k:x + p - k]


def measure_samples(normalised: np.ndarray, p: int, m: int) -> Samples | None:
    """Body colours of the sample tiles on E5 (red) and F6 (black) and the paper, or None when absent."""
    low = normalised.min(axis=2)
    high = normalised.max(axis=2)
    redness = normalised[..., 2] - np.maximum(normalised[..., 0], normalised[..., 1])
    stats = {}
    for cell in (RED_SAMPLE, BLACK_SAMPLE):
        body = _cell_block(low, cell, p, m) < 0.5
        if body.mean() < SAMPLE_BODY:
            return None
        stats[cell] = (float(np.median(_cell_block(redness, cell, p, m)[body])),
                       float(np.median(_cell_block(low, cell, p, m)[body])),
                       float(np.percentile(_cell_block(high, cell, p, m)[body], 90)))
    papers = []
    for cell in CELLS:
        if cell in (RED_SAMPLE, BLACK_SAMPLE):
            continue
        block = _cell_block(low, cell, p, m, inset=0.2)
        if np.mean(block < 0.5) < 0.02:
            papers.append(float(np.median(block)))
    if not papers:
        return None
    red, black = stats[RED_SAMPLE], stats[BLACK_SAMPLE]
    return Samples(red_redness=red[0], red_low=red[1], black_redness=black[0], black_high=black[2],
                   paper_low=float(np.median(papers)))


def learn_colour_model(samples: Samples) -> dict[str, float]:
    """Reader thresholds placed between this print's red, black and paper (see vision.tiles.ColourModel)."""
    s = samples
    default = ColourModel()

    def between(a: float, b: float, share: float, lo: float, hi: float) -> float:
        return float(np.clip(a + share * (b - a), lo, hi))

    learnt = {
        "redness_split": between(s.black_redness, s.red_redness, 0.5, 0.08, 0.40),
        "red_min": between(s.black_redness, s.red_redness, 0.45, 0.10, 0.35),
    }
    # Only thresholds the reader has; never loosen one past its default by more than it can bear.
    return {k: v for k, v in learnt.items() if hasattr(default, k)}


def calibrate_image(image: np.ndarray, layout: BoardLayout | None = None, lens: LensModel | None = None) -> Calibration:
    """Run every check on one frame of the board and, when the board is found, make a profile.

    With a ``lens`` model (calibration.lens), the board is found through it, the model is judged as the first
    check, and it is written into the profile; it must have been made at this frame's resolution."""
    if image is None or image.ndim != 3 or image.shape[2] != 3 or min(image.shape[:2]) < 32:
        raise ValueError("calibration needs a colour picture (BGR, at least 32 px each way)")
    h, w = image.shape[:2]
    if lens is not None and tuple(lens.image_size) != (w, h):
        raise ValueError(f"the lens pictures are {lens.image_size[0]}x{lens.image_size[1]} but the board picture is "
                         f"{w}x{h}: take both at the resolution the camera plays at")
    lens_checks = [lens.check()] if lens is not None else []
    finder = BoardFinder(layout, lens=lens.as_pair() if lens is not None else None)
    found = finder.find(image)
    if found.pose is None:
        return Calibration(lens_checks + run_all(image, finder, found, None, None), None)
    grid = finder.warp(image, found.pose)
    reader = TileReader(finder.geometry, tile=finder.layout.tile)
    normalised, _glare = reader.normalise(grid)
    lights = light_map(reader.cell_light(grid))
    samples = measure_samples(normalised, finder.geometry.px_per_cell, finder.geometry.margin_px)
    checks = lens_checks + run_all(image, finder, found, grid, samples, lights)
    colour_ok = next(c.ok for c in checks if c.name == "colour separation")
    model = learn_colour_model(samples) if samples is not None and colour_ok else {}
    profile = Profile(
        resolution=(w, h),
        homography=tuple(tuple(float(v) for v in row) for row in found.pose.homography),
        cell_px=round(finder.cell_px(found.pose), 2),
        colour_model=model,
        lens=lens.to_profile() if lens is not None else None,
        checks=tuple(checks),
        created=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
    )
    return Calibration(checks, profile, lights)


def lock_camera(profile: Profile, source: Lockable) -> Profile:
    """After calibrating on the empty board: measure what the camera's automatics settled on, hold the
    camera there, and give ``profile`` with those settings (``Profile.camera``), so that the next start
    opens the camera locked the same way (``thoughtwave.config.open_camera(..., settings=profile.camera_settings())``).
    Measuring again on request is the same call (the source hands control back to the automatics
    first with ``unlock``; ``remeasure`` also waits for them to settle)."""
    settings = source.measure()
    source.lock(settings)
    return replace(profile, camera=settings.to_json())


def calibrate_frames(frames: Iterable[np.ndarray], layout: BoardLayout | None = None,
                     lens: LensModel | None = None) -> Calibration:
    """Calibrate on the best of several frames: the one whose checks pass most, later frames winning ties
    (a camera's first frames are often still adjusting exposure)."""
    best: Calibration | None = None
    best_score: tuple = ()
    for image in frames:
        result = calibrate_image(image, layout, lens)
        score = (result.profile is not None, sum(c.ok for c in result.checks), -sum(c.warning for c in result.checks))
        if best is None or score >= best_score:
            best, best_score = result, score
    if best is None:
        raise ValueError("no frames to calibrate on")
    return best
