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

from thoughtwave.calibration.lens import SQUARE_MM
from thoughtwave.engine.pieces import KINDS, START_INVENTORY, Colour, Piece
from thoughtwave.engine.sides import Sides
from thoughtwave.i18n import DEFAULT, Text
from thoughtwave.i18n.phrases import kind_name_plural, kind_plural
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


def _board_sheet(page: Page, layout: BoardLayout, shapes: list, plan: SheetPlan, row: int, col: int,
                 t: Text) -> None:
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
        page.text(t.gettext("GLUE - sheet %(sheet)s on top", sheet=sheet_name(plan, row, col + 1)),
                  ox + x1 + GLUE_MM / 2, oy + (y0 + y1) / 2, 2.0, GLUE_TEXT_BGR, upright=False)
        page.line(ox + x1, oy + y0, ox + x1, oy + cy1, 0.15, CUT_LINE_BGR, dash=(2.0, 2.0))
    if glue_below:
        page.text(t.gettext("GLUE - sheet %(sheet)s on top", sheet=sheet_name(plan, row + 1, col)), ox + (x0 + x1) / 2,
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
    if plan.sheets > 1:
        title = t.gettext("Thoughtwave board, sheet %(sheet)s of %(sheets)s (row %(row)s, column %(column)s) - print "
                          "at 100%% (actual size)", sheet=sheet_name(plan, row, col), sheets=plan.sheets, row=row + 1,
                          column=col + 1)
    else:
        title = t.gettext("Thoughtwave board, sheet %(sheet)s of %(sheets)s - print at 100%% (actual size)",
                          sheet=sheet_name(plan, row, col), sheets=plan.sheets)
    page.text(title, page.width_mm / 2, max(3.0, (oy + y0) / 2), 2.2, TEXT_BGR)


def _tile_rows(cols: int) -> list[list[tuple[int, Piece]]]:
    """One player's tiles in kind order with their place in the set, in rows of ``cols`` (a kind may start
    part way along a row, so the page is used, not left with a short row per kind)."""
    pieces = list(enumerate(tile_set(Colour.RED)))
    return [pieces[i:i + cols] for i in range(0, len(pieces), cols)]


def _tile_heading(t: Text, colour: Colour, page: int, pages: int) -> str:
    if colour is Colour.RED:
        if pages > 1:
            return t.gettext("Red tiles (page %(page)s of %(pages)s)", page=page, pages=pages)
        return t.gettext("Red tiles")
    if pages > 1:
        return t.gettext("Black tiles (page %(page)s of %(pages)s)", page=page, pages=pages)
    return t.gettext("Black tiles")


def _tile_pages(canvas: Canvas, layout: BoardLayout, paper: str, progress: Progress, t: Text) -> int:
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
                page.text(t.gettext("cut here: one half for each player"), pw - PRINT_MARGIN_MM, ph / 2 - 2.5, 2.0,
                          GLUE_TEXT_BGR, align="right")
            else:
                if page is not None:
                    canvas.showPage()
                page = Page(canvas, pw, ph)
                drawn += 1
            _tile_block(page, layout, colour, page_rows, top, cols, _tile_heading(t, colour, n + 1, len(pages_rows)), t)
            progress(f"{colour} tiles page {n + 1}/{len(pages_rows)}")
    canvas.showPage()
    return drawn


#: Room above a tile set for its title and the two lines under it.
TILE_HEADER_MM = 22.0


def _tile_block(page: Page, layout: BoardLayout, colour: Colour, page_rows: list[list[tuple[int, Piece]]],
                top_mm: float, cols: int, title: str, t: Text) -> None:
    """One set's tiles (or a page of them) under a title, from ``top_mm`` down."""
    edge = layout.tile_mm
    pitch = edge + 2 * TILE_BLEED_MM + TILE_GAP_MM
    caption = 5.0
    counts = ", ".join(kind_plural(t, k, START_INVENTORY[k]) for k in KINDS)
    left = (page.width_mm - cols * pitch) / 2 + TILE_GAP_MM / 2 + TILE_BLEED_MM
    reach = TILE_GAP_MM / 2 + TILE_BLEED_MM  # cut marks run to the middle of each gap, meeting the next tile's
    x = PRINT_MARGIN_MM + 2
    page.text(t.gettext("%(title)s: %(count)s in all", title=title, count=sum(START_INVENTORY.values())), x,
              top_mm + 4, 4.0, TEXT_BGR, align="left", bold=True)
    page.text(t.gettext("%(counts)s. Glue on card, then cut each tile out: the short grey marks show where its edges "
                        "run.", counts=counts), x, top_mm + 11, 2.6, TEXT_BGR, align="left")
    page.text(t.gettext("Tile edge %(edge)s mm; board cells %(cell)s mm. Print at 100%% (actual size).",
                        edge=t.number(edge, "0.0"), cell=t.number(layout.cell_mm)),
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
                text = (kind_plural(t, kind, count) if begins
                        else t.gettext("%(kinds)s, continued", kinds=kind_name_plural(t, kind)))
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




@dataclass(frozen=True)
class KitSummary:
    """What a kit run wrote."""

    pages: int
    board_sheets: int
    plan: SheetPlan



def _sheet_words(t: Text, sheet: SheetArt) -> tuple[str, str, str | None]:
    """The title, instruction and caption of a calibration sheet in ``t``'s language."""
    if t.lang == DEFAULT or sheet.name != "charuco":
        return sheet.title, sheet.instruction, sheet.caption
    w, h = sheet.size_mm
    return (t.gettext("Thoughtwave lens sheet (optional)"),
            t.gettext("Glue flat on card; for a lens model take 10 photos holding it at different angles and places."),
            t.gettext("Squares %(square)s mm (%(width)s x %(height)s mm in all): measure one to check the print is "
                      "at 100%%.", square=t.number(SQUARE_MM), width=t.number(w), height=t.number(h)))


def _sheet_page(canvas: Canvas, sheet: SheetArt, paper: str, t: Text) -> None:
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
    title, instruction, caption = _sheet_words(t, sheet)
    page.text(t.gettext("%(title)s - print at 100%% (actual size)", title=title), pw / 2, PRINT_MARGIN_MM + 3, 3.0,
              TEXT_BGR, bold=True)
    page.text(instruction, pw / 2, PRINT_MARGIN_MM + 8.5, 2.4, TEXT_BGR)
    if caption:
        page.text(caption, pw / 2, PRINT_MARGIN_MM + 12.5, 2.0, GLUE_TEXT_BGR)
    # One path for all black, so squares and marker modules that touch print without hairline seams.
    path = canvas.beginPath()
    for x0, y0, x1, y1 in sheet.black_mm:
        x, y = page.pt(ox + x0, oy + y1)
        path.rect(x, y, (x1 - x0) * PT_PER_MM, (y1 - y0) * PT_PER_MM)
    canvas.setFillColorRGB(*rgb(MARKER_BGR))
    canvas.drawPath(path, stroke=0, fill=1)
    canvas.showPage()


def write_pdf(path: str | Path, layout: BoardLayout, paper: str = "a4", red_sides: Sides = Sides.WE,
              progress: Progress = quiet, sheets: tuple[SheetArt, ...] = (), lang: str = DEFAULT) -> KitSummary:
    """Write the kit (instructions, board sheets, both tile sets, then any calibration ``sheets``, each on a page
    of its own) to ``path`` at exact physical size, its words in ``lang`` (en, fr or de)."""
    t = Text(lang)
    plan = plan_board_sheets(layout, paper)
    shapes = board_shapes(layout, red_sides)
    canvas = Canvas(str(path), pageCompression=1, invariant=1)  # invariant: same kit, same bytes
    canvas.setTitle(t.gettext("Thoughtwave print kit"))
    canvas.setAuthor("thoughtwave print-kit")
    instructions_page(canvas, layout, plan, t)
    pages = 1
    pw, ph = plan.page_mm
    for row, col in itertools.product(range(plan.rows), range(plan.columns)):
        page = Page(canvas, pw, ph)
        _board_sheet(page, layout, shapes, plan, row, col, t)
        canvas.showPage()
        pages += 1
        progress(f"board sheet {sheet_name(plan, row, col)}/{plan.sheets}")
    pages += _tile_pages(canvas, layout, paper, progress, t)
    for sheet in sheets:
        _sheet_page(canvas, sheet, paper, t)
        pages += 1
        progress(f"{sheet.name} sheet")
    canvas.save()
    return KitSummary(pages, plan.sheets, plan)
