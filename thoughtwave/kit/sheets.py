"""Paper and sheets: paper sizes, how the board is split over sheets of it, and the tiles of one set."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass

from thoughtwave.engine.cells import SIZE
from thoughtwave.engine.pieces import KINDS, PIECES_OF_KIND, START_INVENTORY, Colour, Piece
from thoughtwave.vision.artwork import BoardLayout

#: Paper sizes in mm, portrait (width, height).
PAPER_MM: dict[str, tuple[float, float]] = {"a4": (210.0, 297.0), "a3": (297.0, 420.0), "letter": (215.9, 279.4)}
#: What home printers leave unprinted at each page edge (most manage 3-6.35 mm).
PRINT_MARGIN_MM = 6.0
#: Width of the strip a neighbouring board sheet is glued over.
GLUE_MM = 10.0
#: Told what was written, one short phrase at a time.
Progress = Callable[[str], None]


def quiet(_: str) -> None:
    pass



@dataclass(frozen=True)
class SheetPlan:
    """How the board is split over sheets: seam positions in board mm (first 0, last the board edge)."""

    paper: str
    landscape: bool
    xs: tuple[float, ...]
    ys: tuple[float, ...]

    @property
    def columns(self) -> int:
        return len(self.xs) - 1

    @property
    def rows(self) -> int:
        return len(self.ys) - 1

    @property
    def sheets(self) -> int:
        """Number of board sheets."""
        return self.columns * self.rows

    @property
    def page_mm(self) -> tuple[float, float]:
        """(width, height) of a board sheet as it is printed."""
        w, h = PAPER_MM[self.paper]
        return (h, w) if self.landscape else (w, h)


def _seam_candidates(layout: BoardLayout, axis: int) -> list[tuple[float, bool]]:
    """Seam positions worth trying on one axis, (mm, on a grid line), none through a marker or its quiet zone.

    Grid lines hide a seam best; where no grid line works, the best seam hugs a marker's quiet zone,
    so those edges are the only other candidates.
    """
    c = layout.cell_mm
    blocked = []
    for m in layout.markers:
        centre, half = m.center_mm[axis], m.size_mm / 2 + m.size_mm / 6
        blocked.append((centre - half - 0.25, centre + half + 0.25))
    grid = [(layout.grid_origin_mm[axis] + k * c, True) for k in range(1, SIZE)]
    hugging = sorted({(p, False) for edge in blocked for p in edge})
    return [(p, on_grid) for p, on_grid in grid + hugging if all(not (lo < p < hi) for lo, hi in blocked)]


def _split_axis(layout: BoardLayout, axis: int, room: float) -> tuple[float, ...] | None:
    """Seams for one axis: fewest pieces, then most seams on grid lines, then the most even pieces.

    Every piece but the last carries a glue strip, so it must fit ``room`` with the strip.
    """
    length = layout.width_mm if axis == 0 else layout.height_mm
    if length <= room:
        return (0.0, length)
    candidates = _seam_candidates(layout, axis)
    for count in range(1, 6):
        best: tuple[tuple[int, float], tuple[float, ...]] | None = None
        for seams in itertools.combinations(candidates, count):
            edges = (0.0, *(s[0] for s in seams), length)
            widths = [b - a for a, b in itertools.pairwise(edges)]
            if min(widths) <= 0 or any(w + GLUE_MM > room for w in widths[:-1]) or widths[-1] > room:
                continue
            score = (sum(not s[1] for s in seams), max(widths) - min(widths))
            if best is None or score < best[0]:
                best = (score, edges)
        if best is not None:
            return best[1]
    return None


def plan_board_sheets(layout: BoardLayout, paper: str) -> SheetPlan:
    """The fewest sheets of ``paper`` the board splits over (either orientation)."""
    if paper not in PAPER_MM:
        raise ValueError(f"unknown paper {paper!r}: use one of {', '.join(PAPER_MM)}")
    plans = []
    for landscape in (False, True):
        w, h = PAPER_MM[paper]
        if landscape:
            w, h = h, w
        xs = _split_axis(layout, 0, w - 2 * PRINT_MARGIN_MM)
        ys = _split_axis(layout, 1, h - 2 * PRINT_MARGIN_MM)
        if xs is not None and ys is not None:
            plans.append(SheetPlan(paper, landscape, xs, ys))
    if not plans:
        raise ValueError(f"the board at {layout.cell_mm:g} mm cells cannot be split over {paper} sheets")
    return min(plans, key=lambda p: (p.sheets, p.landscape))


def tile_set(colour: Colour) -> list[Piece]:
    """One player's 24 tiles in kind order, orientations cycled (a tile can be turned, so any do)."""
    del colour  # both players have the same set; kept so callers say whose set they print
    pieces = []
    for kind in KINDS:
        orientations = PIECES_OF_KIND[kind]
        pieces.extend(orientations[i % len(orientations)] for i in range(START_INVENTORY[kind]))
    return pieces
