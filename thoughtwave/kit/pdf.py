"""The print kit as one PDF at exact physical size: instructions, board sheets, both tile sets, calibration sheets.

Everything is drawn from ``vision.artwork``'s shapes, as PDF vectors (reportlab), so the printed kit,
the synthetic camera and the tile reader share one geometry. A board too big for the paper is split
into sheets along seams that never cross a marker (on grid lines where the paper allows); each sheet
but the last in a row or column carries a glue strip the next sheet is laid over.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from pathlib import Path

from reportlab.lib.units import mm as PT_PER_MM
from reportlab.pdfgen.canvas import Canvas

from thoughtwave.engine.pieces import KINDS, START_INVENTORY, Colour, Kind, Piece
from thoughtwave.engine.sides import Sides
from thoughtwave.kit.instructions import instructions_page
from thoughtwave.kit.page import (
    CUT_LINE_BGR,
    GLUE_TEXT_BGR,
    TEXT_BGR,
    TILE_BLEED_MM,
    TILE_GAP_MM,
    Page,
    draw_board,
    draw_tile,
    rgb,
    sheet_name,
)
from thoughtwave.kit.sheets import (
    GLUE_MM,
    PAPER_MM,
    PRINT_MARGIN_MM,
    Progress,
    SheetPlan,
    plan_board_sheets,
    quiet,
    tile_set,
)
from thoughtwave.vision.artwork import MARKER_BGR, BoardLayout, SheetArt, board_shapes


def _board_sheet(page: Page, layout: BoardLayout, shapes: list, plan: SheetPlan, row: int, col: int) -> None:
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
    draw_board(page, shapes, ox, oy)
    if glue_right:
        page.text(f"GLUE - sheet {sheet_name(plan, row, col + 1)} on top", ox + x1 + GLUE_MM / 2,
                  oy + (y0 + y1) / 2, 2.0, GLUE_TEXT_BGR, upright=False)
        page.line(ox + x1, oy + y0, ox + x1, oy + cy1, 0.15, CUT_LINE_BGR, dash=(2.0, 2.0))
    if glue_below:
        page.text(f"GLUE - sheet {sheet_name(plan, row + 1, col)} on top", ox + (x0 + x1) / 2,
                  oy + y1 + GLUE_MM / 2, 2.0, GLUE_TEXT_BGR)
        page.line(ox + x0, oy + y1, ox + cx1, oy + y1, 0.15, CUT_LINE_BGR, dash=(2.0, 2.0))
    canvas.restoreState()
    # Cut marks continue the edges this sheet is cut along (where it lies on a neighbour's glue strip),
    # outside the printed part so nothing is left on the board.
    tick = 4.0
    if col > 0:
        for y in (oy + y0 - tick - 0.5, oy + cy1 + 0.5):
            page.line(ox + x0, y, ox + x0, y + tick, 0.2, TEXT_BGR)
    if row > 0:
        for x in (ox + x0 - tick - 0.5, ox + cx1 + 0.5):
            page.line(x, oy + y0, x + tick, oy + y0, 0.2, TEXT_BGR)
    title = f"Thoughtwave board, sheet {sheet_name(plan, row, col)} of {plan.sheets}"
    title += f" (row {row + 1}, column {col + 1})" if plan.sheets > 1 else ""
    page.text(title + " - print at 100% (actual size)", page.width_mm / 2, max(3.0, (oy + y0) / 2), 2.2,
              TEXT_BGR)


def _tile_rows(cols: int) -> list[list[tuple[int, Piece]]]:
    """One player's tiles in kind order with their place in the set, in rows of ``cols`` (a kind may start
    part way along a row, so the page is used, not left with a short row per kind)."""
    pieces = list(enumerate(tile_set(Colour.RED)))
    return [pieces[i:i + cols] for i in range(0, len(pieces), cols)]


def _tile_pages(canvas: Canvas, layout: BoardLayout, paper: str, progress: Progress) -> int:
    """Both tile sets, grouped by kind with a count over each group, with cut marks; returns the pages drawn.
    When both sets fit on one page (A3), they share it rather than leave half of each page empty."""
    pw, ph = PAPER_MM[paper]
    edge = layout.tile_mm
    pitch = edge + 2 * TILE_BLEED_MM + TILE_GAP_MM
    caption = 5.0
    cols = int((pw - 2 * PRINT_MARGIN_MM) // pitch)
    bottom = ph - PRINT_MARGIN_MM
    rows = _tile_rows(cols)
    # Paginate: a row needs a pitch and a caption line.
    pages_rows: list[list[list[tuple[int, Piece]]]] = [[]]
    y = PRINT_MARGIN_MM + TILE_HEADER_MM
    for row in rows:
        if y + pitch + caption > bottom and pages_rows[-1]:
            pages_rows.append([])
            y = PRINT_MARGIN_MM + TILE_HEADER_MM
        y += pitch + caption          # each row has room above it for the names of the kinds it starts
        pages_rows[-1].append(row)
    one_set = y - PRINT_MARGIN_MM          # the height a whole set takes when it fits on one page
    shared = len(pages_rows) == 1 and one_set + TILE_GAP_MM <= bottom - ph / 2
    drawn = 0
    page = None
    for colour in Colour:
        for n, page_rows in enumerate(pages_rows):
            top = PRINT_MARGIN_MM
            if shared and colour is not Colour.RED and page is not None:
                # The second set on the lower half: cut across the middle, and each player has a half sheet.
                top = ph / 2 + TILE_GAP_MM
                page.line(PRINT_MARGIN_MM, ph / 2, pw - PRINT_MARGIN_MM, ph / 2, 0.2, CUT_LINE_BGR, dash=(3.0, 2.0))
                page.text("cut here: one half for each player", pw - PRINT_MARGIN_MM, ph / 2 - 2.5, 2.0,
                          GLUE_TEXT_BGR, align="right")
            else:
                if page is not None:
                    canvas.showPage()
                page = Page(canvas, pw, ph)
                drawn += 1
            part = f" (page {n + 1} of {len(pages_rows)})" if len(pages_rows) > 1 else ""
            _tile_block(page, layout, colour, page_rows, top, cols, f"{colour.title} tiles{part}")
            progress(f"{colour} tiles page {n + 1}/{len(pages_rows)}")
    canvas.showPage()
    return drawn


#: Room above a tile set for its title and the two lines under it.
TILE_HEADER_MM = 22.0


def _tile_block(page: Page, layout: BoardLayout, colour: Colour, page_rows: list[list[tuple[int, Piece]]],
                top_mm: float, cols: int, title: str) -> None:
    """One set's tiles (or a page of them) under a title, from ``top_mm`` down."""
    edge = layout.tile_mm
    pitch = edge + 2 * TILE_BLEED_MM + TILE_GAP_MM
    caption = 5.0
    counts = ", ".join(f"{START_INVENTORY[k]} {_plural(k, START_INVENTORY[k])}" for k in KINDS)
    left = (page.width_mm - cols * pitch) / 2 + TILE_GAP_MM / 2 + TILE_BLEED_MM
    reach = TILE_GAP_MM / 2 + TILE_BLEED_MM  # cut marks run to the middle of each gap, meeting the next tile's
    x = PRINT_MARGIN_MM + 2
    page.text(f"{title}: {sum(START_INVENTORY.values())} in all", x, top_mm + 4, 4.0, TEXT_BGR, align="left",
              bold=True)
    page.text(f"{counts}. Glue on card, then cut each tile out: the short grey marks show where its edges run.",
              x, top_mm + 11, 2.6, TEXT_BGR, align="left")
    page.text(f"Tile edge {edge:.1f} mm; board cells {layout.cell_mm:g} mm. Print at 100% (actual size).",
              x, top_mm + 16, 2.6, TEXT_BGR, align="left")
    y = top_mm + TILE_HEADER_MM
    firsts = {kind: next(i for i, p in enumerate(tile_set(colour)) if p.kind is kind) for kind in KINDS}
    for i, pieces in enumerate(page_rows):
        # Each kind's name and count over its first tile; a page that starts within a kind names it again.
        for j, (index, piece) in enumerate(pieces):
            kind = piece.kind
            begins = index == firsts[kind]
            if begins or j == 0 and i == 0:
                count = START_INVENTORY[kind]
                text = f"{count} {_plural(kind, count)}" if begins else f"{_plural(kind, 2)}, continued"
                page.text(text, left + j * pitch, y + caption / 2, 2.4, TEXT_BGR, align="left", bold=True)
        y += caption
        top = y + TILE_GAP_MM / 2 + TILE_BLEED_MM
        # Cut lines first: the tiles, printed with bleed, cover them, so they show only in the gaps.
        for j in range(len(pieces)):
            for xx in (left + j * pitch, left + j * pitch + edge):
                page.line(xx, top - reach, xx, top + edge + reach, 0.2, CUT_LINE_BGR)
        for yy in (top, top + edge):
            page.line(left - reach, yy, left + (len(pieces) - 1) * pitch + edge + reach, yy, 0.2, CUT_LINE_BGR)
        for j, (_, piece) in enumerate(pieces):
            draw_tile(page, colour, piece, left + j * pitch, top, edge, layout.tile)
        y += pitch


def _plural(kind: Kind, count: int) -> str:
    if count == 1:
        return kind.value
    return "crosses" if kind is Kind.CROSS else f"{kind.value}s"


@dataclass(frozen=True)
class KitSummary:
    """What a kit run wrote."""

    pages: int
    board_sheets: int
    plan: SheetPlan



def _sheet_page(canvas: Canvas, sheet: SheetArt, paper: str) -> None:
    """The sheet at exact size, centred on a page of ``paper`` turned to whichever way it fits."""
    pw, ph = PAPER_MM[paper]
    sw, sh = sheet.size_mm
    text_mm = 16.0
    if (sw > sh) != (pw > ph) and sw + 2 * PRINT_MARGIN_MM <= ph and sh + text_mm + 2 * PRINT_MARGIN_MM <= pw:
        pw, ph = ph, pw
    if sw + 2 * PRINT_MARGIN_MM > pw or sh + text_mm + 2 * PRINT_MARGIN_MM > ph:
        raise ValueError(f"the {sheet.title} ({sw:g} x {sh:g} mm) does not fit on {paper} paper")
    page = Page(canvas, pw, ph)
    ox = (pw - sw) / 2
    oy = PRINT_MARGIN_MM + text_mm + (ph - 2 * PRINT_MARGIN_MM - text_mm - sh) / 2
    page.text(f"{sheet.title} - print at 100% (actual size)", pw / 2, PRINT_MARGIN_MM + 3, 3.0, TEXT_BGR, bold=True)
    page.text(sheet.instruction, pw / 2, PRINT_MARGIN_MM + 8.5, 2.4, TEXT_BGR)
    if sheet.caption:
        page.text(sheet.caption, pw / 2, PRINT_MARGIN_MM + 12.5, 2.0, GLUE_TEXT_BGR)
    # One path for all black, so squares and marker modules that touch print without hairline seams.
    path = canvas.beginPath()
    for x0, y0, x1, y1 in sheet.black_mm:
        x, y = page.pt(ox + x0, oy + y1)
        path.rect(x, y, (x1 - x0) * PT_PER_MM, (y1 - y0) * PT_PER_MM)
    canvas.setFillColorRGB(*rgb(MARKER_BGR))
    canvas.drawPath(path, stroke=0, fill=1)
    canvas.showPage()


def write_pdf(path: str | Path, layout: BoardLayout, paper: str = "a4", red_sides: Sides = Sides.WE,
              progress: Progress = quiet, sheets: tuple[SheetArt, ...] = ()) -> KitSummary:
    """Write the kit (instructions, board sheets, both tile sets, then any calibration ``sheets``, each on a page
    of its own) to ``path`` at exact physical size."""
    plan = plan_board_sheets(layout, paper)
    shapes = board_shapes(layout, red_sides)
    canvas = Canvas(str(path), pageCompression=1, invariant=1)  # invariant: same kit, same bytes
    canvas.setTitle("Thoughtwave print kit")
    canvas.setAuthor("thoughtwave print-kit")
    instructions_page(canvas, layout, plan)
    pages = 1
    pw, ph = plan.page_mm
    for row, col in itertools.product(range(plan.rows), range(plan.columns)):
        page = Page(canvas, pw, ph)
        _board_sheet(page, layout, shapes, plan, row, col)
        canvas.showPage()
        pages += 1
        progress(f"board sheet {sheet_name(plan, row, col)}/{plan.sheets}")
    pages += _tile_pages(canvas, layout, paper, progress)
    for sheet in sheets:
        _sheet_page(canvas, sheet, paper)
        pages += 1
        progress(f"{sheet.name} sheet")
    canvas.save()
    return KitSummary(pages, plan.sheets, plan)
