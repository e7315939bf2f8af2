"""The checks that decide reading quality, each measured on one frame of the board.

Every check passes or says what to change, in words a new owner can act on. Its measure and advice are
``engine.phrases.Words``: the English text (what the CLI prints and the profile stores), each also a phrase
code with its values, which ``thoughtwave.i18n.calibration`` says in French or German. The limits come from
what the tile reader needs (see vision/tiles.py): cells of at least ~28 px, edges sharper than a
tenth of a cell, paper well lit but not clipped, and red, black and paper far apart.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from thoughtwave.calibration.profile import CheckResult
from thoughtwave.engine.cells import CELLS, Cell
from thoughtwave.engine.phrases import Phrase, Words
from thoughtwave.vision.artwork import BoardLayout
from thoughtwave.vision.causes import (
    DARK_PAPER,
    GLARE_SHARE,
    GOOD_CELL_PX,
    SHADOW_EDGE,
    SHADOW_LIGHT,
    CellLight,
    Lost,
    lost_cause,
    lost_reason,
)
from thoughtwave.vision.finder import BoardFinder, BoardPose, FinderResult

#: Cells on which calibration looks for one sample tile of each colour (printed on the kit's instructions).
RED_SAMPLE, BLACK_SAMPLE = Cell.parse("E5"), Cell.parse("F6")

#: Cells narrower than MIN_CELL_PX fail; the reader wants GOOD_CELL_PX (vision.causes: "too small" below it).
MIN_CELL_PX = 20.0
#: Edge width (blur) as a share of a cell: above WARN it costs accuracy, above FAIL arms smear together.
EDGE_WARN, EDGE_FAIL = 0.08, 0.12
#: Paper brightness (grey levels): below DARK the reader starves, above it is fine.
PAPER_DARK, PAPER_DIM = 60.0, 90.0
#: Share of grid pixels clipped white for the whole picture to count as over-exposed.
CLIPPED_FAIL = 0.20
#: Share of a cell clipped white for glare on that cell.
GLARE_CELL = 0.08
#: The light map refuses a board with more than this many cells in shadow (a few warn).
SHADOW_FAIL_CELLS = 10
#: Colour separation needed in the light-normalised image.
REDNESS_GAP, BODY_GAP = 0.15, 0.30


@dataclass(frozen=True)
class Samples:
    """Body colours of the sample tiles and the paper, in the light-normalised image (paper ~1)."""

    red_redness: float
    red_low: float
    black_redness: float
    black_high: float
    paper_low: float


def _w(code: str, english: str, **values: object) -> Words:
    """The English ``english``, also the phrase ``code`` with ``values`` (for the page's other languages)."""
    return Words(Phrase.of(code, english, **values))


def markers_check(found: FinderResult, lost: Lost | None = None) -> CheckResult:
    """Whether the markers place the board; with none found, ``lost`` (``vision.causes.lost_cause``) says why where
    the picture shows it, and the advice is its own (a lamp in view, too dark, washed out, blurred, too few markers)."""
    n = len(found.markers_seen)
    if found.pose is None:
        advice = (_w("markers-none-advice", "lay the printed board under the camera with its corner and edge markers "
                     "in view; if it is in view, the picture is too blurred or too dark: focus the lens and add light")
                  if lost is None else _w(f"lost-{lost.value}-advice", lost_reason(lost, n, 8), seen=n, markers=8))
        return CheckResult("markers", False, _w("markers-none", f"{n} of 8 board markers seen, no board found", n=n),
                           advice)
    if n < 8:
        missing = 8 - n
        return CheckResult("markers", True, _w("markers-some", f"{n} of 8 found", n=n),
                           _w("markers-missing-advice", f"uncover or bring into view the {missing} missing marker(s) "
                              "so that a hand over the board never hides too many", missing=missing), warning=True)
    return CheckResult("markers", True, _w("markers-all", "8 of 8 found"))


def in_frame_check(pose: BoardPose, layout: BoardLayout, shape: tuple[int, ...]) -> CheckResult:
    h, w = shape[:2]
    x0, y0 = layout.grid_origin_mm
    side = 10 * layout.cell_mm
    pad = 0.3 * layout.cell_mm
    corners = np.array([[x0 - pad, y0 - pad], [x0 + side + pad, y0 - pad],
                        [x0 + side + pad, y0 + side + pad], [x0 - pad, y0 + side + pad]])
    px = pose.project(corners)
    off = []
    if px[:, 0].min() < 0:
        off.append("left")
    if px[:, 0].max() > w - 1:
        off.append("right")
    if px[:, 1].min() < 0:
        off.append("top")
    if px[:, 1].max() > h - 1:
        off.append("bottom")
    if off:
        sides = " and ".join(off)
        return CheckResult("board in frame", False, _w("off-frame", f"the grid runs off the {sides} of the picture",
                                                       sides=tuple(off)),
                           _w("off-frame-advice", "raise the camera about 10 cm, or move it over the middle of the "
                              "board"))
    return CheckResult("board in frame", True, _w("in-frame", "the whole grid is in the picture"))


def cell_size_check(cell_px: float) -> CheckResult:
    measured = _w("cell-px", f"cells are {cell_px:.0f} px wide (the reader wants {GOOD_CELL_PX:.0f} or more)",
                  px=round(cell_px), good=round(GOOD_CELL_PX))
    if cell_px >= GOOD_CELL_PX:
        return CheckResult("pixels per cell", True, measured)
    closer = round((1 - cell_px / GOOD_CELL_PX) * 100)
    advice = _w("cell-px-advice", f"lower the camera by about {closer}% of its height, or choose a higher camera "
                "resolution", percent=closer)
    return CheckResult("pixels per cell", cell_px >= MIN_CELL_PX, measured, advice, warning=True)


def edge_width_px(image: np.ndarray, markers: dict[int, np.ndarray]) -> float | None:
    """How wide (in px) the black-white edges of the markers are: about 1-1.5 when sharp."""
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    widths = []
    for quad in markers.values():
        x0, y0 = np.floor(quad.min(axis=0)).astype(int)
        x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 1
        x0, y0 = max(x0, 0), max(y0, 0)
        patch = grey[y0:y1, x0:x1].astype(np.float32)
        if patch.shape[0] < 8 or patch.shape[1] < 8:
            continue
        lo, hi = np.percentile(patch, [5, 95])
        gx = cv2.Sobel(patch, cv2.CV_32F, 1, 0, ksize=3, scale=0.125)
        gy = cv2.Sobel(patch, cv2.CV_32F, 0, 1, ksize=3, scale=0.125)
        steepest = float(np.percentile(np.hypot(gx, gy), 99))
        if hi - lo > 20 and steepest > 0:
            widths.append((hi - lo) / steepest)
    return float(np.median(widths)) if widths else None


def focus_check(width: float | None, cell_px: float) -> CheckResult:
    if width is None:
        return CheckResult("focus", False, _w("no-edge", "no marker edge to measure"),
                           _w("no-edge-advice", "bring the markers into view"))
    share = width / cell_px
    measured = _w("edges", f"edges {width:.1f} px wide ({share:.0%} of a cell)", width=round(width, 1),
                  percent=round(share * 100))
    advice = _w("focus-advice", "focus the lens on the board, wipe it clean, and make sure the camera mount does "
                "not shake")
    if share > EDGE_FAIL:
        return CheckResult("focus", False, measured, advice)
    if share > EDGE_WARN:
        return CheckResult("focus", True, measured, advice, warning=True)
    return CheckResult("focus", True, measured)


def paper_level(grid: np.ndarray) -> float:
    """Grey level of the printed paper: the bright part of the grid image."""
    return float(np.percentile(grid.max(axis=2), 75))


def exposure_check(grid: np.ndarray) -> CheckResult:
    level = paper_level(grid)
    clipped = float(np.mean(grid.min(axis=2) >= 250))
    measured = _w("paper", f"paper at {level:.0f} of 255, {clipped:.0%} of the board clipped white",
                  level=round(level), percent=round(clipped * 100))
    if clipped > CLIPPED_FAIL:
        return CheckResult("exposure", False, measured, _w("over-exposed", "the picture is over-exposed: lower the "
                                                            "camera's exposure or dim the lamp"))
    if level < PAPER_DARK:
        return CheckResult("exposure", False, measured,
                           _w("too-dark", "too dark: add light over the board or raise the exposure"))
    if level < PAPER_DIM:
        return CheckResult("exposure", True, measured,
                           _w("a-little-dark", "a little dark: more light will make reading surer"), warning=True)
    return CheckResult("exposure", True, measured)


def glare_cells(grid: np.ndarray, px_per_cell: int, margin_px: int) -> list[Cell]:
    """Cells more than GLARE_CELL clipped white (a reflection of the lamp)."""
    p, m = px_per_cell, margin_px
    clipped = grid[m:m + 10 * p, m:m + 10 * p].min(axis=2) >= 245
    share = clipped.reshape(10, p, 10, p).mean(axis=(1, 3))
    return [Cell(int(r), int(c)) for r, c in zip(*np.nonzero(share > GLARE_CELL), strict=True)]


def glare_check(cells: list[Cell]) -> CheckResult:
    if not cells:
        return CheckResult("glare", True, _w("no-reflections", "no reflections on the cells"))
    names = ", ".join(str(c) for c in cells[:8]) + (" ..." if len(cells) > 8 else "")
    return CheckResult("glare", False, _w("reflections", f"reflections on {len(cells)} cell(s): {names}",
                                          num=len(cells), cells=names),
                       _w("reflections-advice", "turn the lamp away so its reflection leaves the board, or print on "
                          "matt paper"))


def colour_check(samples: Samples | None) -> CheckResult:
    if samples is None:
        return CheckResult("colour separation", True, _w("not-measured", "not measured"),
                           _w("samples-advice", f"lay a red tile on {RED_SAMPLE} and a black tile on {BLACK_SAMPLE} "
                              "and calibrate again to learn this print's colours", red=str(RED_SAMPLE),
                              black=str(BLACK_SAMPLE)), warning=True)
    redness_gap = samples.red_redness - samples.black_redness
    body_gap = samples.paper_low - max(samples.red_low, samples.black_high)
    measured = _w("separation", f"red vs black {redness_gap:.2f}, tiles vs paper {body_gap:.2f} (need {REDNESS_GAP} "
                  f"and {BODY_GAP})", red_black=round(redness_gap, 2), tiles_paper=round(body_gap, 2),
                  need_red_black=REDNESS_GAP, need_tiles_paper=BODY_GAP)
    if redness_gap < REDNESS_GAP:
        return CheckResult("colour separation", False, measured, _w("alike", "red and black tiles look alike in this "
                           "light: use a whiter lamp, or print with stronger colour (no draft/economy mode)"))
    if body_gap < BODY_GAP:
        return CheckResult("colour separation", False, measured, _w("like-paper", "tiles look too much like the "
                           "paper: print darker (no draft mode) or reduce glare"))
    return CheckResult("colour separation", True, measured)


def run_all(image: np.ndarray, finder: BoardFinder, found: FinderResult, grid: np.ndarray | None,
            samples: Samples | None, light: LightMap | None = None) -> list[CheckResult]:
    """Every check for one frame (later checks only when a board was found). With the board's ``light``
    map (``light_map``) its verdict is the glare check: reflections and shadows, cell by cell."""
    lost = None if found.pose is not None else lost_cause(image, len(found.markers_seen), finder.undecoded)
    checks = [markers_check(found, lost)]
    if found.pose is None or grid is None:
        return checks
    cell_px = finder.cell_px(found.pose)
    geometry = finder.geometry
    checks += [
        in_frame_check(found.pose, finder.layout, image.shape),
        cell_size_check(cell_px),
        focus_check(edge_width_px(image, found.marker_corners), cell_px),
        exposure_check(grid),
        light.check if light is not None else glare_check(glare_cells(grid, geometry.px_per_cell, geometry.margin_px)),
        colour_check(samples),
    ]
    return checks


@dataclass(frozen=True)
class LightMap:
    """How the light falls on each cell of the board, for the calibration page, and the verdict on it.

    ``cells`` (10 rows of 10, row 1 first, column A first) says ``"ok"``, ``"glare"`` or ``"shadow"``;
    ``light`` is each cell's paper white as a share of the board's median white, ``clipped`` the share
    of the cell clipped white. ``check`` is the verdict: it fails (calibration refuses) when a
    reflection clips a cell (more than ``GLARE_CELL``), when the paper is too dark to read anywhere or
    more than ``SHADOW_FAIL_CELLS`` cells are in shadow; a few cells of glare or shadow only warn.
    """

    cells: tuple[tuple[str, ...], ...]
    light: tuple[tuple[float, ...], ...]
    clipped: tuple[tuple[float, ...], ...]
    check: CheckResult = field(compare=False)

    def of(self, kind: str) -> list[Cell]:
        """The cells marked ``kind`` (``"glare"`` or ``"shadow"``), in board order."""
        return [c for c in CELLS if self.cells[c.row][c.col] == kind]

    def to_json(self) -> dict:
        """Plain values for the web page: the map rows, the numbers and the verdict."""
        mark = "fail" if not self.check.ok else ("warn" if self.check.warning else "ok")
        return {"cells": [list(row) for row in self.cells], "light": [list(row) for row in self.light],
                "clipped": [list(row) for row in self.clipped], "verdict": mark,
                "measured": self.check.measured, "advice": self.check.advice}


#: How many cells an advice names before "and N more".
NAMED_CELLS = 6


def _names(cells: list[Cell]) -> str:
    return ", ".join(str(c) for c in cells[:NAMED_CELLS]) + (
        f" and {len(cells) - NAMED_CELLS} more" if len(cells) > NAMED_CELLS else "")


def light_map(light: CellLight) -> LightMap:
    """The glare and shadow map of an (empty) board from the reader's measures of its light (``light``
    from ``TileReader.cell_light`` after ``normalise``), by the limits the reader names causes with
    (``vision.causes``): clipped white is glare; paper much darker than the board's, too dark, or
    crossed by a shadow's edge is shadow. A slope of light from a lamp to one side is neither."""
    glared = light.clipped > GLARE_SHARE
    shaded = ~glared & ((light.light < SHADOW_LIGHT) | (light.paper < DARK_PAPER) | (light.evenness < SHADOW_EDGE))
    kinds = np.where(glared, "glare", np.where(shaded, "shadow", "ok")).reshape(10, 10)
    cells = tuple(tuple(str(k) for k in row) for row in kinds)
    glare_cells = [c for c in CELLS if glared[c.index]]
    shadow_cells = [c for c in CELLS if shaded[c.index]]
    clipped_cells = [c for c in CELLS if light.clipped[c.index] > GLARE_CELL]
    dark = float(light.paper.min())
    bright = min(255.0, float(light.paper.max()))
    measured = _w("light", f"{len(glare_cells)} cell(s) with glare, {len(shadow_cells)} in shadow; the paper from "
                  f"{dark:.0f} to {bright:.0f} of 255", glare=len(glare_cells), shadow=len(shadow_cells),
                  dark=round(dark), bright=round(bright))
    cells_of = {"glare": tuple(str(c) for c in glare_cells), "shadow": tuple(str(c) for c in shadow_cells)}
    advice = []
    if glare_cells:
        advice.append(_w("glare-advice", f"glare on {_names(glare_cells)}: turn or raise the lamp so its reflection "
                         "leaves the board, tilt the board a little, or print on matt paper", cells=cells_of["glare"]))
    if shadow_cells:
        advice.append(_w("shadow-advice", f"shadow on {_names(shadow_cells)}: move what casts it, or light the board "
                         "from two sides", cells=cells_of["shadow"]))
    if dark < DARK_PAPER:
        advice.append(_w("dark-advice", "part of the board is too dark to read: add light there"))
    fail = bool(clipped_cells) or dark < DARK_PAPER or len(shadow_cells) > SHADOW_FAIL_CELLS
    joined = _w("several", "; ".join(advice), parts=tuple(advice)) if advice else None
    check = CheckResult("glare", not fail, measured, joined, warning=bool(advice) and not fail)
    rounded = [tuple(tuple(round(float(v), 2) for v in row) for row in a.reshape(10, 10))
               for a in (light.light, light.clipped)]
    return LightMap(cells, rounded[0], rounded[1], check)
