"""The print kit: the board and both tile sets as a PDF at exact physical size, or as PNGs with a pixel map.

Everything is drawn from ``vision.artwork``'s shapes, as PDF vectors (reportlab), so the printed kit,
the synthetic camera and the tile reader share one geometry. A board too big for the paper is split
into sheets along seams that never cross a marker (on grid lines where the paper allows); each sheet
but the last in a row or column carries a glue strip the next sheet is laid over.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from reportlab.lib.units import mm as PT_PER_MM
from reportlab.pdfgen.canvas import Canvas

from thoughtwave.engine.cells import SIZE
from thoughtwave.engine.pieces import ALL_PIECES, KINDS, PIECES_OF_KIND, START_INVENTORY, Colour, Kind, Piece
from thoughtwave.vision.artwork import (
    BGR,
    MARKER_BGR,
    BoardLayout,
    Disc,
    Label,
    Marker,
    Rect,
    board_image,
    board_shapes,
    marker_bits,
    tile_image,
    tile_shapes,
)

#: Paper sizes in mm, portrait (width, height).
PAPER_MM: dict[str, tuple[float, float]] = {"a4": (210.0, 297.0), "a3": (297.0, 420.0), "letter": (215.9, 279.4)}
#: What home printers leave unprinted at each page edge (most manage 3-6.35 mm).
PRINT_MARGIN_MM = 6.0
#: Width of the strip a neighbouring board sheet is glued over.
GLUE_MM = 10.0
#: Colour printed beyond a tile's cut line, so a slightly-off cut still shows no paper white.
TILE_BLEED_MM = 1.0
TILE_GAP_MM = 4.0
_CUT_LINE_BGR: BGR = (150, 150, 150)
_TEXT_BGR: BGR = (40, 40, 40)
_GLUE_TEXT_BGR: BGR = (120, 120, 120)
_HELVETICA_CAP_HEIGHT = 0.718  # of the font size

Progress = Callable[[str], None]


def _quiet(_: str) -> None:
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


# --- PDF -------------------------------------------------------------------------------------------


def _rgb(bgr: BGR) -> tuple[float, float, float]:
    return (bgr[2] / 255, bgr[1] / 255, bgr[0] / 255)


class _Page:
    """A canvas page addressed in mm from its top-left corner, y down (the artwork's convention)."""

    def __init__(self, canvas: Canvas, width_mm: float, height_mm: float) -> None:
        self.canvas, self.width_mm, self.height_mm = canvas, width_mm, height_mm
        canvas.setPageSize((width_mm * PT_PER_MM, height_mm * PT_PER_MM))

    def _pt(self, x: float, y: float) -> tuple[float, float]:
        return x * PT_PER_MM, (self.height_mm - y) * PT_PER_MM

    def rect(self, x0: float, y0: float, x1: float, y1: float, bgr: BGR) -> None:
        self.canvas.setFillColorRGB(*_rgb(bgr))
        x, y = self._pt(x0, y1)
        self.canvas.rect(x, y, (x1 - x0) * PT_PER_MM, (y1 - y0) * PT_PER_MM, stroke=0, fill=1)

    def disc(self, cx: float, cy: float, r: float, bgr: BGR) -> None:
        self.canvas.setFillColorRGB(*_rgb(bgr))
        x, y = self._pt(cx, cy)
        self.canvas.circle(x, y, r * PT_PER_MM, stroke=0, fill=1)

    def line(self, x0: float, y0: float, x1: float, y1: float, width_mm: float, bgr: BGR,
             dash: tuple[float, float] | None = None) -> None:
        self.canvas.setStrokeColorRGB(*_rgb(bgr))
        self.canvas.setLineWidth(width_mm * PT_PER_MM)
        self.canvas.setDash([d * PT_PER_MM for d in dash] if dash else [])
        self.canvas.line(*self._pt(x0, y0), *self._pt(x1, y1))

    def text(self, text: str, x: float, y: float, height: float, bgr: BGR, align: str = "centre",
             bold: bool = False, upright: bool = True) -> None:
        """Text with capitals ``height`` mm tall, centred on y (on x when not ``upright``: read bottom to top)."""
        size = height / _HELVETICA_CAP_HEIGHT * PT_PER_MM
        canvas = self.canvas
        canvas.saveState()
        canvas.setFont("Helvetica-Bold" if bold else "Helvetica", size)
        canvas.setFillColorRGB(*_rgb(bgr))
        if upright:
            px, py = self._pt(x, y + height / 2)
        else:
            canvas.translate(*self._pt(x + height / 2, y))
            canvas.rotate(90)
            px, py = 0.0, 0.0
        draw = {"centre": canvas.drawCentredString, "left": canvas.drawString,
                "right": canvas.drawRightString}[align]
        draw(px, py, text)
        canvas.restoreState()

    def marker(self, marker: Marker, ox: float, oy: float) -> None:
        """The marker's black modules as one path, so abutting modules print without hairline seams."""
        bits = marker_bits(marker.id)
        module = marker.size_mm / 6
        left, top = (float(v) for v in marker.corners_mm()[0])
        path = self.canvas.beginPath()
        for row, col in zip(*np.nonzero(bits), strict=True):
            x, y = self._pt(ox + left + col * module, oy + top + (row + 1) * module)
            path.rect(x, y, module * PT_PER_MM, module * PT_PER_MM)
        self.canvas.setFillColorRGB(*_rgb(MARKER_BGR))
        self.canvas.drawPath(path, stroke=0, fill=1)

    def clip(self, x0: float, y0: float, x1: float, y1: float) -> None:
        path = self.canvas.beginPath()
        x, y = self._pt(x0, y1)
        path.rect(x, y, (x1 - x0) * PT_PER_MM, (y1 - y0) * PT_PER_MM)
        self.canvas.clipPath(path, stroke=0, fill=0)


def _draw_board(page: _Page, shapes: list, ox: float, oy: float) -> None:
    """Board shapes with board mm (x, y) placed at page mm (ox + x, oy + y)."""
    for s in shapes:
        if isinstance(s, Rect):
            page.rect(ox + s.x0, oy + s.y0, ox + s.x1, oy + s.y1, s.bgr)
        elif isinstance(s, Disc):
            page.disc(ox + s.cx, oy + s.cy, s.r, s.bgr)
        elif isinstance(s, Marker):
            page.marker(s, ox, oy)
        elif isinstance(s, Label):
            page.text(s.text, ox + s.cx, oy + s.cy, s.height, s.bgr, bold=s.height > 2.5)


def _draw_tile(page: _Page, colour: Colour, piece: Piece, x: float, y: float, edge: float) -> None:
    """A tile face with its top-left corner at (x, y); colour and waves run ``TILE_BLEED_MM`` past the cut."""
    b = TILE_BLEED_MM / edge
    for s in tile_shapes(colour, piece):
        if isinstance(s, Rect):
            x0, y0 = (s.x0 - b if s.x0 <= 0 else s.x0), (s.y0 - b if s.y0 <= 0 else s.y0)
            x1, y1 = (s.x1 + b if s.x1 >= 1 else s.x1), (s.y1 + b if s.y1 >= 1 else s.y1)
            page.rect(x + x0 * edge, y + y0 * edge, x + x1 * edge, y + y1 * edge, s.bgr)
        else:
            page.disc(x + s.cx * edge, y + s.cy * edge, s.r * edge, s.bgr)


def _sheet_name(plan: SheetPlan, row: int, col: int) -> str:
    return f"{row * plan.columns + col + 1}"


def _board_sheet(page: _Page, layout: BoardLayout, shapes: list, plan: SheetPlan, row: int, col: int) -> None:
    x0, x1 = plan.xs[col], plan.xs[col + 1]
    y0, y1 = plan.ys[row], plan.ys[row + 1]
    glue_right = col < plan.columns - 1
    glue_below = row < plan.rows - 1
    cx1 = x1 + (GLUE_MM if glue_right else 0.0)
    cy1 = y1 + (GLUE_MM if glue_below else 0.0)
    ox = (page.width_mm - (cx1 - x0)) / 2 - x0  # board mm -> page mm: centre the printed part
    oy = (page.height_mm - (cy1 - y0)) / 2 - y0
    canvas = page.canvas
    canvas.saveState()
    page.clip(ox + x0, oy + y0, ox + cx1, oy + cy1)
    _draw_board(page, shapes, ox, oy)
    if glue_right:
        page.text(f"GLUE - sheet {_sheet_name(plan, row, col + 1)} on top", ox + x1 + GLUE_MM / 2,
                  oy + (y0 + y1) / 2, 2.0, _GLUE_TEXT_BGR, upright=False)
        page.line(ox + x1, oy + y0, ox + x1, oy + cy1, 0.15, _CUT_LINE_BGR, dash=(2.0, 2.0))
    if glue_below:
        page.text(f"GLUE - sheet {_sheet_name(plan, row + 1, col)} on top", ox + (x0 + x1) / 2,
                  oy + y1 + GLUE_MM / 2, 2.0, _GLUE_TEXT_BGR)
        page.line(ox + x0, oy + y1, ox + cx1, oy + y1, 0.15, _CUT_LINE_BGR, dash=(2.0, 2.0))
    canvas.restoreState()
    # Cut marks continue the edges this sheet is cut along (where it lies on a neighbour's glue strip),
    # outside the printed part so nothing is left on the board.
    tick = 4.0
    if col > 0:
        for y in (oy + y0 - tick - 0.5, oy + cy1 + 0.5):
            page.line(ox + x0, y, ox + x0, y + tick, 0.2, _TEXT_BGR)
    if row > 0:
        for x in (ox + x0 - tick - 0.5, ox + cx1 + 0.5):
            page.line(x, oy + y0, x + tick, oy + y0, 0.2, _TEXT_BGR)
    title = f"Thoughtwave board, sheet {_sheet_name(plan, row, col)} of {plan.sheets}"
    title += f" (row {row + 1}, column {col + 1})" if plan.sheets > 1 else ""
    page.text(title + " - print at 100% (actual size)", page.width_mm / 2, max(3.0, (oy + y0) / 2), 2.2,
              _TEXT_BGR)


def _tile_rows(cols: int) -> list[tuple[Kind, bool, list[Piece]]]:
    """One player's tiles as rows of at most ``cols``: (kind, first row of its kind, pieces)."""
    rows = []
    pieces = tile_set(Colour.RED)
    for kind in KINDS:
        of_kind = [p for p in pieces if p.kind is kind]
        for i in range(0, len(of_kind), cols):
            rows.append((kind, i == 0, of_kind[i:i + cols]))
    return rows


def _tile_pages(canvas: Canvas, layout: BoardLayout, paper: str, progress: Progress) -> int:
    """Both tile sets, grouped by kind with a count over each group, with cut lines; returns the pages drawn."""
    pw, ph = PAPER_MM[paper]
    edge = layout.tile_mm
    pitch = edge + 2 * TILE_BLEED_MM + TILE_GAP_MM
    header, caption = 22.0, 5.0
    cols = int((pw - 2 * PRINT_MARGIN_MM) // pitch)
    bottom = ph - PRINT_MARGIN_MM
    rows = _tile_rows(cols)
    # Paginate: a row needs a pitch, the first row of a kind also its caption.
    pages_rows: list[list[tuple[Kind, bool, list[Piece]]]] = [[]]
    y = PRINT_MARGIN_MM + header
    for row in rows:
        need = pitch + caption  # at most: the row and a caption (a kind's first row, or a page's first)
        if y + need > bottom and pages_rows[-1]:
            pages_rows.append([])
            y = PRINT_MARGIN_MM + header
        y += pitch + (caption if row[1] or not pages_rows[-1] else 0.0)
        pages_rows[-1].append(row)
    counts = ", ".join(f"{START_INVENTORY[k]} {_plural(k, START_INVENTORY[k])}" for k in KINDS)
    left = (pw - cols * pitch) / 2 + TILE_GAP_MM / 2 + TILE_BLEED_MM
    reach = TILE_GAP_MM / 2 + TILE_BLEED_MM  # cut lines run to the middle of each gap, meeting the next tile's
    drawn = 0
    for colour in Colour:
        for n, page_rows in enumerate(pages_rows):
            page = _Page(canvas, pw, ph)
            part = f" (page {n + 1} of {len(pages_rows)})" if len(pages_rows) > 1 else ""
            page.text(f"{colour.title} tiles{part}: {sum(START_INVENTORY.values())} in all", PRINT_MARGIN_MM + 2,
                      PRINT_MARGIN_MM + 4, 4.0, _TEXT_BGR, align="left", bold=True)
            page.text(f"{counts}. Glue on card, then cut along the grey lines.", PRINT_MARGIN_MM + 2,
                      PRINT_MARGIN_MM + 11, 2.6, _TEXT_BGR, align="left")
            page.text(f"Tile edge {edge:.1f} mm; board cells {layout.cell_mm:g} mm. Print at 100% (actual size).",
                      PRINT_MARGIN_MM + 2, PRINT_MARGIN_MM + 16, 2.6, _TEXT_BGR, align="left")
            y = PRINT_MARGIN_MM + header
            for i, (kind, first, pieces) in enumerate(page_rows):
                if first or i == 0:
                    count = START_INVENTORY[kind]
                    more = "" if first else " (continued)"
                    page.text(f"{count} {_plural(kind, count)}{more}", left, y + caption / 2, 2.4, _TEXT_BGR,
                              align="left", bold=True)
                    y += caption
                top = y + TILE_GAP_MM / 2 + TILE_BLEED_MM
                # Cut lines first: the tiles, printed with bleed, cover them, so they show only in the gaps.
                for j in range(len(pieces)):
                    for x in (left + j * pitch, left + j * pitch + edge):
                        page.line(x, top - reach, x, top + edge + reach, 0.2, _CUT_LINE_BGR)
                for yy in (top, top + edge):
                    page.line(left - reach, yy, left + (len(pieces) - 1) * pitch + edge + reach, yy, 0.2,
                              _CUT_LINE_BGR)
                for j, piece in enumerate(pieces):
                    _draw_tile(page, colour, piece, left + j * pitch, top, edge)
                y += pitch
            canvas.showPage()
            drawn += 1
            progress(f"{colour} tiles page {n + 1}/{len(pages_rows)}")
    return drawn


def _plural(kind: Kind, count: int) -> str:
    if count == 1:
        return kind.value
    return "crosses" if kind is Kind.CROSS else f"{kind.value}s"


_INSTRUCTIONS = (
    ("Printing", [
        "Print at 100% / \"actual size\" (never \"fit to page\"). Check with the ruler below: it must measure 100 mm.",
        "Matt paper is best: gloss throws the lamp back at the camera. Colour printing for the tiles.",
    ]),
    ("The board", [
        "Sheets with a grey GLUE strip: lay the next sheet on it, edge on the dashed line, grid lines continuing.",
        "Cut only the edges marked with short black ticks; keep the white rim around the black squares.",
        "Glue the board flat on card or foam board. The black squares (markers) must stay flat and uncovered.",
    ]),
    ("The tiles", [
        "Glue each tile sheet on thin card (0.5-1 mm), let it dry under a book, cut along the grey lines.",
        "A craft knife and a steel ruler give straight edges; each red and black set has 24 tiles.",
    ]),
    ("The camera", [
        "Camera 40-80 cm straight above the board; the whole board, with its eight black squares, in view.",
        "Even light from above or both sides; no lamp reflected in the board, no strong shadow across it.",
    ]),
)


def _instructions_page(canvas: Canvas, layout: BoardLayout, plan: SheetPlan) -> None:
    pw, ph = PAPER_MM[plan.paper]
    page = _Page(canvas, pw, ph)
    x = PRINT_MARGIN_MM + 6
    y = PRINT_MARGIN_MM + 8
    page.text("Thoughtwave companion: the print kit", x, y, 5.0, _TEXT_BGR, align="left", bold=True)
    y += 10
    facts = (f"Board {layout.width_mm:.0f} x {layout.height_mm:.0f} mm, cells {layout.cell_mm:g} mm, "
             f"on {plan.sheets} {plan.paper.upper() if plan.paper != 'letter' else 'Letter'} sheet"
             f"{'s' if plan.sheets > 1 else ''}; tiles {layout.tile_mm:.1f} mm.")
    page.text(facts, x, y, 2.6, _TEXT_BGR, align="left")
    y += 8
    for heading, lines in _INSTRUCTIONS:
        page.text(heading, x, y, 3.2, _TEXT_BGR, align="left", bold=True)
        y += 6
        for line in lines:
            page.text(line, x + 2, y, 2.2, _TEXT_BGR, align="left")
            y += 4.8
        y += 3
    # A 100 mm ruler: the check that the printer did not scale the page.
    y += 4
    page.line(x, y, x + 100, y, 0.3, _TEXT_BGR)
    for k in range(11):
        page.line(x + 10 * k, y - (3 if k % 5 == 0 else 1.5), x + 10 * k, y, 0.3, _TEXT_BGR)
    page.text("0", x, y + 3.5, 2.0, _TEXT_BGR)
    page.text("100 mm", x + 100, y + 3.5, 2.0, _TEXT_BGR)
    y += 12
    if plan.sheets > 1:
        page.text("How the board sheets go together (the numbers are the sheets):", x, y, 2.6, _TEXT_BGR, align="left")
        y += 5
        scale = min((pw - 2 * x) / layout.width_mm, (ph - y - PRINT_MARGIN_MM - 4) / layout.height_mm, 0.5)
        page.rect(x, y, x + layout.width_mm * scale, y + layout.height_mm * scale, (235, 235, 235))
        for xs in plan.xs[1:-1]:
            page.line(x + xs * scale, y, x + xs * scale, y + layout.height_mm * scale, 0.3, _TEXT_BGR, dash=(1, 1))
        for ys in plan.ys[1:-1]:
            page.line(x, y + ys * scale, x + layout.width_mm * scale, y + ys * scale, 0.3, _TEXT_BGR, dash=(1, 1))
        for row, col in itertools.product(range(plan.rows), range(plan.columns)):
            cx = x + (plan.xs[col] + plan.xs[col + 1]) / 2 * scale
            cy = y + (plan.ys[row] + plan.ys[row + 1]) / 2 * scale
            page.text(_sheet_name(plan, row, col), cx, cy, 5.0, _TEXT_BGR, bold=True)
    canvas.showPage()


@dataclass(frozen=True)
class KitSummary:
    """What a kit run wrote."""

    pages: int
    board_sheets: int
    plan: SheetPlan


@dataclass(frozen=True, eq=False)
class SheetArt:
    """A printed calibration sheet (e.g. ``calibration.lens.sheet_art()``): black rectangles in sheet mm
    (``black_mm`` (N, 4): x0, y0, x1, y1, origin top-left, y down) on white, with the words printed above it."""

    name: str
    title: str
    size_mm: tuple[float, float]
    black_mm: np.ndarray
    instruction: str
    caption: str = ""


#: White paper kept around a calibration sheet in its PNG (its detector needs a quiet zone).
SHEET_QUIET_MM = 10.0


def _sheet_page(canvas: Canvas, sheet: SheetArt, paper: str) -> None:
    """The sheet at exact size, centred on a page of ``paper`` turned to whichever way it fits."""
    pw, ph = PAPER_MM[paper]
    sw, sh = sheet.size_mm
    text_mm = 16.0
    if (sw > sh) != (pw > ph) and sw + 2 * PRINT_MARGIN_MM <= ph and sh + text_mm + 2 * PRINT_MARGIN_MM <= pw:
        pw, ph = ph, pw
    if sw + 2 * PRINT_MARGIN_MM > pw or sh + text_mm + 2 * PRINT_MARGIN_MM > ph:
        raise ValueError(f"the {sheet.title} ({sw:g} x {sh:g} mm) does not fit on {paper} paper")
    page = _Page(canvas, pw, ph)
    ox = (pw - sw) / 2
    oy = PRINT_MARGIN_MM + text_mm + (ph - 2 * PRINT_MARGIN_MM - text_mm - sh) / 2
    page.text(f"{sheet.title} - print at 100% (actual size)", pw / 2, PRINT_MARGIN_MM + 3, 3.0, _TEXT_BGR, bold=True)
    page.text(sheet.instruction, pw / 2, PRINT_MARGIN_MM + 8.5, 2.4, _TEXT_BGR)
    if sheet.caption:
        page.text(sheet.caption, pw / 2, PRINT_MARGIN_MM + 12.5, 2.0, _GLUE_TEXT_BGR)
    # One path for all black, so squares and marker modules that touch print without hairline seams.
    path = canvas.beginPath()
    for x0, y0, x1, y1 in sheet.black_mm:
        x, y = page._pt(ox + x0, oy + y1)
        path.rect(x, y, (x1 - x0) * PT_PER_MM, (y1 - y0) * PT_PER_MM)
    canvas.setFillColorRGB(*_rgb(MARKER_BGR))
    canvas.drawPath(path, stroke=0, fill=1)
    canvas.showPage()


def sheet_image(sheet: SheetArt, px_per_mm: float, quiet_mm: float = SHEET_QUIET_MM) -> np.ndarray:
    """The sheet as a grey uint8 image at ``px_per_mm`` with ``quiet_mm`` of white around it (pixel (0, 0)'s
    centre sits at mm (0.5 / px_per_mm - quiet_mm) of the sheet): edges drawn at 4x and averaged down."""
    sw, sh = sheet.size_mm
    w = int(round((sw + 2 * quiet_mm) * px_per_mm))
    h = int(round((sh + 2 * quiet_mm) * px_per_mm))
    fine = 4
    shift = 4  # fillPoly's sub-pixel bits
    image = np.full((h * fine, w * fine), 255, np.uint8)
    scale = px_per_mm * fine * (1 << shift)
    rects = (np.asarray(sheet.black_mm, np.float64) + quiet_mm) * scale
    x0, y0, x1, y1 = rects.T
    # A fine pixel is covered when its centre is inside: the corners move half a fine pixel in.
    half = 0.5 * (1 << shift)
    quads = np.stack([np.stack([x0, y0], 1), np.stack([x1, y0], 1), np.stack([x1, y1], 1),
                      np.stack([x0, y1], 1)], axis=1) - half
    cv2.fillPoly(image, list(np.round(quads).astype(np.int32)), 0, lineType=cv2.LINE_8, shift=shift)
    return cv2.resize(image, (w, h), interpolation=cv2.INTER_AREA)


def write_pdf(path: str | Path, layout: BoardLayout, paper: str = "a4", red_sides: str = "WE",
              progress: Progress = _quiet, sheets: tuple[SheetArt, ...] = ()) -> KitSummary:
    """Write the kit (instructions, board sheets, both tile sets, then any calibration ``sheets``, each on a page
    of its own) to ``path`` at exact physical size."""
    plan = plan_board_sheets(layout, paper)
    shapes = board_shapes(layout, red_sides)
    canvas = Canvas(str(path), pageCompression=1, invariant=1)  # invariant: same kit, same bytes
    canvas.setTitle("Thoughtwave print kit")
    canvas.setAuthor("thoughtwave print-kit")
    _instructions_page(canvas, layout, plan)
    pages = 1
    pw, ph = plan.page_mm
    for row, col in itertools.product(range(plan.rows), range(plan.columns)):
        page = _Page(canvas, pw, ph)
        _board_sheet(page, layout, shapes, plan, row, col)
        canvas.showPage()
        pages += 1
        progress(f"board sheet {_sheet_name(plan, row, col)}/{plan.sheets}")
    pages += _tile_pages(canvas, layout, paper, progress)
    for sheet in sheets:
        _sheet_page(canvas, sheet, paper)
        pages += 1
        progress(f"{sheet.name} sheet")
    canvas.save()
    return KitSummary(pages, plan.sheets, plan)


# --- PNG -------------------------------------------------------------------------------------------


def board_map(layout: BoardLayout, dpi: float) -> dict:
    """The pixel map of board.png at ``dpi``, in OpenCV coordinates (integers are pixel centres)."""
    ppm = dpi / 25.4

    def px(point_mm: tuple[float, float] | np.ndarray) -> list[float]:
        return [round(float(v) * ppm - 0.5, 3) for v in point_mm]

    return {
        "dpi": int(dpi) if float(dpi).is_integer() else dpi,
        "cell_mm": layout.cell_mm,
        "cell_px": round(layout.cell_mm * ppm, 4),
        "tile_px": round(layout.tile_mm * ppm, 4),
        "grid_origin_px": px(layout.grid_origin_mm),
        "cols": SIZE,
        "rows": SIZE,
        "size_px": [int(round(layout.width_mm * ppm)), int(round(layout.height_mm * ppm))],
        "markers": [{"id": m.id, "corners_px": [px(c) for c in m.corners_mm()]} for m in layout.markers],
    }


def _save_png(path: Path, image_bgr: np.ndarray, dpi: float) -> None:
    from PIL import Image  # reportlab's own dependency; writes the pHYs chunk so viewers print at size

    Image.fromarray(np.ascontiguousarray(image_bgr[..., ::-1])).save(path, dpi=(dpi, dpi), optimize=False)


def write_png_set(directory: str | Path, layout: BoardLayout, dpi: float = 200, red_sides: str = "WE",
                  progress: Progress = _quiet, sheets: tuple[SheetArt, ...] = ()) -> list[Path]:
    """Write board.png, board.json and tile-<colour>-<piece>.png for both colours and all 15 pieces, and
    <name>.png for each calibration sheet in ``sheets``."""
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    ppm = dpi / 25.4
    written = []
    board = out / "board.png"
    _save_png(board, board_image(layout, ppm, red_sides), dpi)
    written.append(board)
    progress("board.png")
    mapping = out / "board.json"
    mapping.write_text(json.dumps({**board_map(layout, dpi), "red_sides": red_sides}, indent=1) + "\n")
    written.append(mapping)
    size = max(1, int(round(layout.tile_mm * ppm)))
    for colour in Colour:
        for piece in ALL_PIECES:
            path = out / f"tile-{colour.value}-{piece}.png"
            _save_png(path, tile_image(colour, piece, size), dpi)
            written.append(path)
        progress(f"{colour} tiles")
    for sheet in sheets:
        path = out / f"{sheet.name}.png"
        _save_png(path, cv2.cvtColor(sheet_image(sheet, ppm), cv2.COLOR_GRAY2BGR), dpi)
        written.append(path)
        progress(path.name)
    return written

