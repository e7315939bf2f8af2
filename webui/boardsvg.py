"""The board drawn as SVG from the game state: tiles in their colours with their waves, the sides each
player joins, the last move, the winning wave and flagged cells. Pure text out, no I/O.

>>> svg = board_svg({"E5": ("red", "ew")}, last="E5")
>>> svg.startswith("<svg") and 'data-cell="E5"' in svg
True
"""

from __future__ import annotations

from html import escape

from thoughtwave.engine.cells import COLUMNS, SIZE, Cell
from thoughtwave.engine.pieces import DIRECTIONS, E, N, NotationError, Piece, S, W

CELL = 100          # one cell in SVG units
MARGIN = 60         # room for the coordinates and the side bars
VIEW = 2 * MARGIN + SIZE * CELL

TILE_FILL = {"red": "#c62828", "black": "#1c1c1c"}
WAVE = "#f5ecd7"
WIN_WAVE = "#ffd400"
THREAT_STROKE = {"red": "#d50000", "black": "#111111"}
SIDE_FILL = {"red": "#c62828", "black": "#1c1c1c"}
#: Flag kinds (engine.table.FlagKind values and the companion's own) -> outline colour; others orange.
FLAG_STROKE = {"illegal-piece": "#ff1744", "illegal": "#ff1744", "rejected-piece": "#ff9100", "lifted": "#ff1744",
               "moved": "#ff1744", "unexplained": "#ff1744", "undone": "#ff9100", "differs": "#ff9100",
               "held": "#ffb300", "unreadable": "#ffb300"}
COORD = 'font-size="38" font-weight="bold" font-family="sans-serif" fill="#f3e9d2"'
MARK = 'font-size="70" font-weight="bold" font-family="sans-serif" fill="#ffffff" stroke="#000000" stroke-width="3"'
_MID = {N: (50, 0), E: (100, 50), S: (50, 100), W: (0, 50)}


def _wave_path(arms: int) -> str:
    """Path data of a piece's wave in a 100x100 cell: arcs for bends, lines through the centre otherwise."""
    ends = [_MID[d] for d in DIRECTIONS if arms & d]
    if len(ends) == 2 and arms not in (N | S, E | W):
        (x1, y1), (x2, y2) = ends
        return f"M{x1} {y1} Q50 50 {x2} {y2}"
    return " ".join(f"M50 50 L{x} {y}" for x, y in ends)


def _ghost(name: str, colour: str, piece_text: str) -> list[str]:
    """A piece still to be laid: its tile faint, its outline dashed in the player's colour."""
    try:
        cell = Cell.parse(name)
        piece = Piece.parse(piece_text)
    except (NotationError, AttributeError, TypeError):
        return []
    fill = TILE_FILL.get(colour)
    if fill is None:
        return []
    x, y = MARGIN + cell.col * CELL, MARGIN + cell.row * CELL
    dot = '<circle cx="50" cy="50" r="17" fill="#ffffff"/>' if piece.arms in (N, E, S, W) else ""
    return [f'<g class="ghost {colour}" data-cell="{cell}" data-piece="{piece}" transform="translate({x} {y})">'
            f'<rect x="3" y="3" width="94" height="94" rx="6" fill="{fill}" fill-opacity="0.45" stroke="{fill}" '
            f'stroke-width="6" stroke-dasharray="12 7"/>'
            f'<path d="{_wave_path(piece.arms)}" stroke="#ffffff" stroke-width="16" stroke-opacity="0.9" '
            f'fill="none"/>{dot}</g>']


def _coord(x: int, y: int, text: str) -> str:
    return f'<text class="coord" {COORD} x="{x}" y="{y}" text-anchor="middle">{text}</text>'


def _side_bars(red_sides: str) -> list[str]:
    """Coloured bars on the rim: Red's two sides in red, Black's in black."""
    red_ns = red_sides == "NS"
    north_south, west_east = ("red", "black") if red_ns else ("black", "red")
    span = SIZE * CELL
    bar = 16
    out = []
    for y in (MARGIN - bar - 4, MARGIN + span + 4):
        out.append(f'<rect class="side side-{north_south}" x="{MARGIN}" y="{y}" width="{span}" height="{bar}" '
                   f'fill="{SIDE_FILL[north_south]}" stroke="#f3e9d2" stroke-width="2"/>')
    for x in (MARGIN - bar - 4, MARGIN + span + 4):
        out.append(f'<rect class="side side-{west_east}" x="{x}" y="{MARGIN}" width="{bar}" height="{span}" '
                   f'fill="{SIDE_FILL[west_east]}" stroke="#f3e9d2" stroke-width="2"/>')
    return out


def board_svg(cells: dict[str, tuple[str, str]], *, last: str | None = None, wave: list[str] | tuple = (),
              flags: dict[str, str] | None = None, red_sides: str = "WE", title: str = "Thoughtwave board",
              threats: dict[str, list[str]] | None = None, ghost: tuple[str, str, str] | None = None) -> str:
    """The board as an SVG document.

    ``cells`` maps a cell name to (colour, piece), e.g. ``{"E5": ("red", "ew")}``; ``last`` is the
    last move's cell; ``wave`` the winning wave's cells; ``flags`` maps a cell to a flag kind
    (``illegal``, ``rejected``, ``unreadable``, ``moved``...); ``threats`` maps a colour to the cells
    where one placement connects that player (a dashed outline in their colour); ``ghost`` is
    (cell, colour, piece) of a piece to be laid, drawn faintly (the computer's instruction).
    Bad entries are skipped, never raised.
    """
    flags = flags or {}
    winning = {str(c) for c in wave}
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {VIEW} {VIEW}" class="board" role="img" '
             f'aria-label="{escape(title)}">',
             f'<rect x="0" y="0" width="{VIEW}" height="{VIEW}" fill="#3a2f22"/>']
    parts += _side_bars(red_sides)
    span = SIZE * CELL
    parts.append(f'<rect x="{MARGIN}" y="{MARGIN}" width="{span}" height="{span}" fill="#e9dcbc"/>')
    for i in range(SIZE):
        x = MARGIN + i * CELL + CELL // 2
        y = MARGIN + i * CELL + CELL // 2 + 12
        parts += [_coord(x, MARGIN - 26, COLUMNS[i]), _coord(x, MARGIN + span + 52, COLUMNS[i]),
                  _coord(MARGIN - 32, y, str(i + 1)), _coord(MARGIN + span + 32, y, str(i + 1))]
    grid = " ".join(f"M{MARGIN + i * CELL} {MARGIN} v{span} M{MARGIN} {MARGIN + i * CELL} h{span}"
                    for i in range(SIZE + 1))
    parts.append(f'<path d="{grid}" stroke="#7a6545" stroke-width="2" fill="none"/>')

    for name, content in sorted(cells.items()):
        try:
            cell = Cell.parse(name)
            colour, piece_text = content
            piece = Piece.parse(piece_text)
        except (NotationError, ValueError, TypeError):
            continue
        fill = TILE_FILL.get(colour)
        if fill is None:
            continue
        x, y = MARGIN + cell.col * CELL, MARGIN + cell.row * CELL
        stroke = WIN_WAVE if str(cell) in winning else WAVE
        width = 22 if str(cell) in winning else 16
        # the terminator's wave ends in the middle of the tile: a dot shows where
        dot = f'<circle cx="50" cy="50" r="17" fill="{stroke}"/>' if piece.arms in (N, E, S, W) else ""
        parts.append(
            f'<g class="tile {colour}" data-cell="{cell}" data-piece="{piece}" transform="translate({x} {y})">'
            f'<rect x="3" y="3" width="94" height="94" rx="6" fill="{fill}"/>'
            f'<path d="{_wave_path(piece.arms)}" stroke="{stroke}" stroke-width="{width}" stroke-linecap="butt" '
            f'fill="none"/>{dot}</g>')

    if ghost:
        parts += _ghost(*ghost) if len(ghost) == 3 else []
    for index, colour in enumerate(("red", "black")):
        for name in sorted(set((threats or {}).get(colour) or ())):
            try:
                cell = Cell.parse(name)
            except (NotationError, AttributeError):
                continue
            # both players may threaten one cell: Black's outline sits inside Red's
            inset = 10 + 12 * index
            x, y = MARGIN + cell.col * CELL + inset, MARGIN + cell.row * CELL + inset
            parts.append(f'<rect class="threat threat-{colour}" data-cell="{cell}" x="{x}" y="{y}" '
                         f'width="{CELL - 2 * inset}" height="{CELL - 2 * inset}" fill="none" '
                         f'stroke="{THREAT_STROKE[colour]}" stroke-width="9" stroke-dasharray="16 9"/>')

    if last:
        try:
            cell = Cell.parse(last)
            x, y = MARGIN + cell.col * CELL, MARGIN + cell.row * CELL
            parts.append(f'<rect class="last" data-cell="{cell}" x="{x + 1}" y="{y + 1}" width="98" height="98" '
                         f'fill="none" stroke="#00b0ff" stroke-width="8"/>')
        except NotationError:
            pass

    for name, kind in sorted(flags.items()):
        try:
            cell = Cell.parse(name)
        except (NotationError, AttributeError):
            continue
        x, y = MARGIN + cell.col * CELL, MARGIN + cell.row * CELL
        colour = FLAG_STROKE.get(kind, "#ff9100")
        mark = "?" if kind == "unreadable" else "!"
        parts.append(
            f'<g class="flag flag-{escape(kind)}" data-cell="{cell}">'
            f'<rect x="{x + 4}" y="{y + 4}" width="92" height="92" fill="{colour}" fill-opacity="0.35" '
            f'stroke="{colour}" stroke-width="8" stroke-dasharray="14 8"/>'
            f'<text x="{x + 50}" y="{y + 72}" text-anchor="middle" {MARK}>{mark}</text></g>')
    parts.append("</svg>")
    return "".join(parts)
