"""The kit's first page: how to print, cut, glue and set up, a ruler to check the scale, and the sheet map."""

from __future__ import annotations

import itertools
import re

from reportlab.lib.units import mm as PT_PER_MM
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen.canvas import Canvas

from thoughtwave.engine.pieces import START_INVENTORY
from thoughtwave.i18n import Text
from thoughtwave.kit.page import HELVETICA_CAP_HEIGHT, TEXT_BGR, Page, sheet_name
from thoughtwave.kit.sheets import PAPER_MM, PRINT_MARGIN_MM, SheetPlan
from thoughtwave.vision.artwork import BoardLayout


def instructions(plan: SheetPlan, t: Text | None = None) -> list[tuple[str, list[str]]]:
    """The instructions, by heading, for the sheets ``plan`` prints: what is on them, in the order of work, in
    ``t``'s language (default English)."""
    t = t or Text()
    tiles = sum(START_INVENTORY.values())
    if plan.sheets > 1:
        board = [
            t.gettext("The board is split over %(sheets)s sheets, numbered as in the map below. Every sheet but the "
                      "last in its row or column prints a GLUE strip: the part beyond its dashed line, marked \"GLUE - "
                      "sheet N on top\".", sheets=plan.sheets),
            t.gettext("Cut each sheet from 2 on along the edges marked with short black ticks (its left edge, top "
                      "edge or both); sheet 1 is not cut. Keep the white rim around the black squares."),
            t.gettext("Go in the order of the numbers: lay sheet 1 down, then each next sheet on top of the GLUE "
                      "strips of the sheets before it, its cut edge on their dashed line, the grid lines running on."),
            t.gettext("Glue the board flat on card or foam board. The black squares (markers) must stay flat and "
                      "uncovered."),
        ]
    else:
        board = [
            t.gettext("The board is on one sheet: keep the white rim around the black squares when you trim the "
                      "paper."),
            t.gettext("Glue it flat on card or foam board. The black squares (markers) must stay flat and uncovered."),
        ]
    return [
        (t.gettext("Printing"), [
            t.gettext("Print at 100% / \"actual size\" (never \"fit to page\"). Check with the ruler below: it must "
                      "measure 100 mm."),
            t.gettext("Matt paper is best: gloss throws the lamp back at the camera. Colour printing for the tiles."),
        ]),
        (t.gettext("The board"), board),
        (t.gettext("The tiles"), [
            t.gettext("Glue each tile sheet on thin card (0.5-1 mm) and let it dry under a book."),
            t.gettext("Cut each tile out along its edges: the short grey marks in the gaps show where the edges run, "
                      "and the colour goes 1 mm past them, so a cut a little off shows no white."),
            t.gettext("A craft knife and a steel ruler give straight edges; each red and black set has %(tiles)s "
                      "tiles.", tiles=tiles),
        ]),
        (t.gettext("The camera"), [
            t.gettext("Camera 40-80 cm straight above the board; the whole board, with its eight black squares, in "
                      "view."),
            t.gettext("Even light from above or both sides; no lamp reflected in the board, no strong shadow across "
                      "it."),
        ]),
    ]


def instructions_page(canvas: Canvas, layout: BoardLayout, plan: SheetPlan, t: Text | None = None) -> None:
    """The kit's first page, its words in ``t``'s language (default English)."""
    t = t or Text()
    pw, ph = PAPER_MM[plan.paper]
    page = Page(canvas, pw, ph)
    grow = min(pw, ph) / PAPER_MM["a4"][0]      # larger paper, larger text: the page is filled, not its corner
    x = PRINT_MARGIN_MM + 6
    y = PRINT_MARGIN_MM + 8 * grow
    page.text(t.gettext("Thoughtwave companion: the print kit"), x, y, 5.0 * grow, TEXT_BGR, align="left", bold=True)
    y += 10 * grow
    facts = t.ngettext(
        "Board %(width)s x %(height)s mm, cells %(cell)s mm, on %(num)d %(paper)s sheet; tiles %(tile)s mm.",
        "Board %(width)s x %(height)s mm, cells %(cell)s mm, on %(num)d %(paper)s sheets; tiles %(tile)s mm.",
        plan.sheets, width=t.number(layout.width_mm, "0"), height=t.number(layout.height_mm, "0"),
        cell=t.number(layout.cell_mm), paper=plan.paper.upper() if plan.paper != "letter" else "Letter",
        tile=t.number(layout.tile_mm, "0.0"))
    page.text(facts, x, y, 2.6 * grow, TEXT_BGR, align="left")
    y += 8 * grow
    width = pw - x - PRINT_MARGIN_MM - 2
    for heading, paragraphs in instructions(plan, t):
        page.text(heading, x, y, 3.2 * grow, TEXT_BGR, align="left", bold=True)
        y += 6 * grow
        for paragraph in paragraphs:
            for line in _wrap(paragraph, width, 2.2 * grow):
                page.text(line, x + 2, y, 2.2 * grow, TEXT_BGR, align="left")
                y += 4.4 * grow
            y += 0.8 * grow
        y += 3 * grow
    # A 100 mm ruler: the check that the printer did not scale the page.
    y += 4
    page.line(x, y, x + 100, y, 0.3, TEXT_BGR)
    for k in range(11):
        page.line(x + 10 * k, y - (3 if k % 5 == 0 else 1.5), x + 10 * k, y, 0.3, TEXT_BGR)
    page.text("0", x, y + 3.5, 2.0, TEXT_BGR)
    page.text("100 mm", x + 100, y + 3.5, 2.0, TEXT_BGR)
    y += 12
    if plan.sheets > 1:
        page.text(t.gettext("How the board sheets go together (the numbers are the sheets; the lower number lies "
                            "under):"), x, y, 2.6 * grow, TEXT_BGR, align="left")
        y += 5 * grow
        scale = min((pw - 2 * x) / layout.width_mm, (ph - y - PRINT_MARGIN_MM - 4) / layout.height_mm, 0.5 * grow)
        page.rect(x, y, x + layout.width_mm * scale, y + layout.height_mm * scale, (235, 235, 235))
        for xs in plan.xs[1:-1]:
            page.line(x + xs * scale, y, x + xs * scale, y + layout.height_mm * scale, 0.3, TEXT_BGR, dash=(1, 1))
        for ys in plan.ys[1:-1]:
            page.line(x, y + ys * scale, x + layout.width_mm * scale, y + ys * scale, 0.3, TEXT_BGR, dash=(1, 1))
        for row, col in itertools.product(range(plan.rows), range(plan.columns)):
            cx = x + (plan.xs[col] + plan.xs[col + 1]) / 2 * scale
            cy = y + (plan.ys[row] + plan.ys[row + 1]) / 2 * scale
            page.text(sheet_name(plan, row, col), cx, cy, 5.0 * grow, TEXT_BGR, bold=True)
    canvas.showPage()


def _wrap(text: str, width_mm: float, height_mm: float) -> list[str]:
    """``text`` in lines no wider than ``width_mm`` in Helvetica with capitals ``height_mm`` tall."""
    size = height_mm / HELVETICA_CAP_HEIGHT * PT_PER_MM
    lines: list[str] = []
    # Whitespace breaks a line, except a no-break space (French sets one before : ; ! ? and inside « »).
    for word in re.split(r"[^\S\u00a0]+", text.strip()):
        trial = f"{lines[-1]} {word}" if lines else word
        if lines and stringWidth(trial, "Helvetica", size) <= width_mm * PT_PER_MM:
            lines[-1] = trial
        else:
            lines.append(word)
    return lines
