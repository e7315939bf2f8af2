"""A PDF page addressed in the artwork's millimetres, and the artwork's shapes drawn on it as vectors."""

from __future__ import annotations

import numpy as np
from reportlab.lib.units import mm as PT_PER_MM
from reportlab.pdfgen.canvas import Canvas

from thoughtwave.engine.pieces import Colour, Piece
from thoughtwave.kit.sheets import SheetPlan
from thoughtwave.vision.artwork import (
    BGR,
    MARKER_BGR,
    TILE,
    Disc,
    Label,
    Marker,
    Rect,
    TileGeometry,
    marker_bits,
    tile_shapes,
)

#: Colour printed beyond a tile's cut line, so a slightly-off cut still shows no paper white.
TILE_BLEED_MM = 1.0
TILE_GAP_MM = 4.0
CUT_LINE_BGR: BGR = (150, 150, 150)
TEXT_BGR: BGR = (40, 40, 40)
GLUE_TEXT_BGR: BGR = (120, 120, 120)
HELVETICA_CAP_HEIGHT = 0.718  # of the font size


def rgb(bgr: BGR) -> tuple[float, float, float]:
    return (bgr[2] / 255, bgr[1] / 255, bgr[0] / 255)


class Page:
    """A canvas page addressed in mm from its top-left corner, y down (the artwork's convention)."""

    def __init__(self, canvas: Canvas, width_mm: float, height_mm: float) -> None:
        self.canvas, self.width_mm, self.height_mm = canvas, width_mm, height_mm
        canvas.setPageSize((width_mm * PT_PER_MM, height_mm * PT_PER_MM))

    def pt(self, x: float, y: float) -> tuple[float, float]:
        return x * PT_PER_MM, (self.height_mm - y) * PT_PER_MM

    def rect(self, x0: float, y0: float, x1: float, y1: float, bgr: BGR) -> None:
        self.canvas.setFillColorRGB(*rgb(bgr))
        x, y = self.pt(x0, y1)
        self.canvas.rect(x, y, (x1 - x0) * PT_PER_MM, (y1 - y0) * PT_PER_MM, stroke=0, fill=1)

    def disc(self, cx: float, cy: float, r: float, bgr: BGR) -> None:
        self.canvas.setFillColorRGB(*rgb(bgr))
        x, y = self.pt(cx, cy)
        self.canvas.circle(x, y, r * PT_PER_MM, stroke=0, fill=1)

    def line(self, x0: float, y0: float, x1: float, y1: float, width_mm: float, bgr: BGR,
             dash: tuple[float, float] | None = None) -> None:
        self.canvas.setStrokeColorRGB(*rgb(bgr))
        self.canvas.setLineWidth(width_mm * PT_PER_MM)
        self.canvas.setDash([d * PT_PER_MM for d in dash] if dash else [])
        self.canvas.line(*self.pt(x0, y0), *self.pt(x1, y1))

    def text(self, text: str, x: float, y: float, height: float, bgr: BGR, align: str = "centre",
             bold: bool = False, upright: bool = True) -> None:
        """Text with capitals ``height`` mm tall, centred on y (on x when not ``upright``: read bottom to top)."""
        size = height / HELVETICA_CAP_HEIGHT * PT_PER_MM
        canvas = self.canvas
        canvas.saveState()
        canvas.setFont("Helvetica-Bold" if bold else "Helvetica", size)
        canvas.setFillColorRGB(*rgb(bgr))
        if upright:
            px, py = self.pt(x, y + height / 2)
        else:
            canvas.translate(*self.pt(x + height / 2, y))
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
            x, y = self.pt(ox + left + col * module, oy + top + (row + 1) * module)
            path.rect(x, y, module * PT_PER_MM, module * PT_PER_MM)
        self.canvas.setFillColorRGB(*rgb(MARKER_BGR))
        self.canvas.drawPath(path, stroke=0, fill=1)

    def clip(self, x0: float, y0: float, x1: float, y1: float) -> None:
        path = self.canvas.beginPath()
        x, y = self.pt(x0, y1)
        path.rect(x, y, (x1 - x0) * PT_PER_MM, (y1 - y0) * PT_PER_MM)
        self.canvas.clipPath(path, stroke=0, fill=0)


def draw_board(page: Page, shapes: list, ox: float, oy: float) -> None:
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


def draw_tile(page: Page, colour: Colour, piece: Piece, x: float, y: float, edge: float,
              tile: TileGeometry = TILE) -> None:
    """A tile face with its top-left corner at (x, y); colour and waves run ``TILE_BLEED_MM`` past the cut."""
    b = TILE_BLEED_MM / edge
    for s in tile_shapes(colour, piece, tile):
        if isinstance(s, Rect):
            x0, y0 = (s.x0 - b if s.x0 <= 0 else s.x0), (s.y0 - b if s.y0 <= 0 else s.y0)
            x1, y1 = (s.x1 + b if s.x1 >= 1 else s.x1), (s.y1 + b if s.y1 >= 1 else s.y1)
            page.rect(x + x0 * edge, y + y0 * edge, x + x1 * edge, y + y1 * edge, s.bgr)
        else:
            page.disc(x + s.cx * edge, y + s.cy * edge, s.r * edge, s.bgr)


def sheet_name(plan: SheetPlan, row: int, col: int) -> str:
    return f"{row * plan.columns + col + 1}"
