"""The board drawn as SVG from the game state: tiles in their colours with their waves, the sides each
player joins, the last move, the winning wave and flagged cells. Pure text out, no I/O.

>>> svg = board_svg({"E5": ("red", "ew")}, last="E5")
>>> svg.startswith("<svg") and 'data-cell="E5"' in svg
True
"""

from __future__ import annotations

from html import escape

from thoughtwave.engine.cells import COLUMNS, SIZE, Cell
from thoughtwave.engine.pieces import DIRECTIONS, OPPOSITE, E, N, NotationError, Piece, S, W
from thoughtwave.engine.sides import Sides
from thoughtwave.i18n import Text

CELL = 100          # one cell in SVG units
MARGIN = 76         # room for the coordinates and the side bars
VIEW = 2 * MARGIN + SIZE * CELL

TILE_FILL = {"red": "#c62828", "black": "#1c1c1c"}
WAVE = "#f5ecd7"
WIN_WAVE = "#ffd400"
THREAT_STROKE = {"red": "#d50000", "black": "#111111"}
SIDE_FILL = {"red": "#c62828", "black": "#1c1c1c"}
#: The light plate under each side bar (both bars >= 3:1 against it, it >= 3:1 against the rim).
EDGE_PLATE = "#f3e9d2"
RIM = "#3a2f22"
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


def _side_bars(red_sides: Sides, winner: str | None) -> list[str]:
    """Coloured bars on the rim: Red's two sides in red, Black's in black, each on a light plate so both
    stand out from the dark rim (and the black bar from the plate); the winner's bars ringed in gold."""
    red_ns = red_sides is Sides.NS
    north_south, west_east = ("red", "black") if red_ns else ("black", "red")
    span = SIZE * CELL
    bar = 18

    def one(colour: str, x: int, y: int, w: int, h: int) -> str:
        won = colour == winner
        plate = WIN_WAVE if won else EDGE_PLATE
        return (f'<rect class="side side-{colour}{" win" if won else ""}" x="{x}" y="{y}" width="{w}" height="{h}" '
                f'fill="{SIDE_FILL[colour]}" stroke="{plate}" stroke-width="{8 if won else 5}"/>')

    out = []
    for y in (MARGIN - bar - 8, MARGIN + span + 8):
        out.append(one(north_south, MARGIN, y, span, bar))
    for x in (MARGIN - bar - 8, MARGIN + span + 8):
        out.append(one(west_east, x, MARGIN, bar, span))
    return out


def _lit_arms(cells: dict[Cell, tuple[str, Piece]], winning: set[Cell], colour: str,
              red_sides: Sides) -> dict[Cell, int]:
    """For each winning cell, the arms that carry the winning wave: those meeting the next winning tile
    and those reaching the winner's own rim. A cross's other arm (the loser's direction) stays unlit."""
    own = red_sides.bits if colour == "red" else red_sides.other.bits
    lit: dict[Cell, int] = {}
    for cell in winning:
        _, piece = cells[cell]
        arms = 0
        for d in DIRECTIONS:
            if not piece.arms & d:
                continue
            other = cell.neighbour(d)
            if other is None:
                arms |= d if own & d else 0
            elif other in winning and cells[other][1].arms & OPPOSITE[d]:
                arms |= d
        lit[cell] = arms
    return lit


def position_label(cells: dict[str, tuple[str, str]], *, last: str | None, winner: str | None, flagged: int,
                   title: str | None = None, t: Text | None = None) -> str:
    """What the board shows, in a sentence for a screen reader (in ``t``'s language): pieces of each player,
    the last one laid, the winner and how many cells are flagged."""
    t = t or Text()
    count = {c: sum(1 for colour, _ in cells.values() if colour == c) for c in ("red", "black")}
    parts = [t.gettext("%(title)s: %(red)s red and %(black)s black pieces",
                       title=title or t.gettext("Thoughtwave board"), red=count["red"], black=count["black"])]
    if last:
        parts.append(t.gettext("last placed on %(cell)s", cell=last))
    if winner:
        parts.append(t.gettext("Red's winning wave is lit") if winner == "red"
                     else t.gettext("Black's winning wave is lit"))
    if flagged:
        parts.append(t.ngettext("%(num)d flagged cell", "%(num)d flagged cells", flagged))
    return "; ".join(parts)


def board_svg(cells: dict[str, tuple[str, str]], *, last: str | None = None, wave: list[str] | tuple = (),
              flags: dict[str, str] | None = None, red_sides: str | Sides = Sides.WE, title: str | None = None,
              threats: dict[str, list[str]] | None = None, ghost: tuple[str, str, str] | None = None,
              t: Text | None = None) -> str:
    """The board as an SVG document.

    ``cells`` maps a cell name to (colour, piece), e.g. ``{"E5": ("red", "ew")}``; ``last`` is the
    last move's cell; ``wave`` the winning wave's cells; ``flags`` maps a cell to a flag kind
    (``illegal``, ``rejected``, ``unreadable``, ``moved``...); ``threats`` maps a colour to the cells
    where one placement connects that player (a dashed outline in their colour); ``ghost`` is
    (cell, colour, piece) of a piece to be laid, drawn faintly (the computer's instruction).
    Bad entries are skipped, never raised.
    """
    flags = flags or {}
    try:
        red_sides = Sides.parse(red_sides)
    except NotationError:
        red_sides = Sides.WE
    parsed: dict[Cell, tuple[str, Piece]] = {}
    for name, content in cells.items():
        try:
            colour, piece_text = content
            if colour in TILE_FILL:
                parsed[Cell.parse(name)] = (colour, Piece.parse(piece_text))
        except (NotationError, ValueError, TypeError, AttributeError):
            continue
    winning = set()
    for name in wave:
        try:
            winning.add(Cell.parse(str(name)))
        except NotationError:
            continue
    winning &= parsed.keys()
    winners = {parsed[c][0] for c in winning}
    winner = winners.pop() if len(winners) == 1 else None
    lit = _lit_arms(parsed, winning, winner, red_sides) if winner else {}
    label = position_label(cells, last=last, winner=winner, flagged=len(flags), title=title, t=t)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {VIEW} {VIEW}" class="board" role="img" '
             f'aria-label="{escape(label)}">',
             f'<rect x="0" y="0" width="{VIEW}" height="{VIEW}" fill="{RIM}"/>']
    parts += _side_bars(red_sides, winner)
    span = SIZE * CELL
    parts.append(f'<rect x="{MARGIN}" y="{MARGIN}" width="{span}" height="{span}" fill="#e9dcbc"/>')
    for i in range(SIZE):
        x = MARGIN + i * CELL + CELL // 2
        y = MARGIN + i * CELL + CELL // 2 + 12
        parts += [_coord(x, MARGIN - 32, COLUMNS[i]), _coord(x, MARGIN + span + 62, COLUMNS[i]),
                  _coord(MARGIN - 50, y, str(i + 1)), _coord(MARGIN + span + 50, y, str(i + 1))]
    grid = " ".join(f"M{MARGIN + i * CELL} {MARGIN} v{span} M{MARGIN} {MARGIN + i * CELL} h{span}"
                    for i in range(SIZE + 1))
    parts.append(f'<path d="{grid}" stroke="#7a6545" stroke-width="2" fill="none"/>')

    for cell, (colour, piece) in sorted(parsed.items(), key=lambda item: str(item[0])):
        x, y = MARGIN + cell.col * CELL, MARGIN + cell.row * CELL
        # the terminator's wave ends in the middle of the tile: a dot shows where
        dot = f'<circle cx="50" cy="50" r="17" fill="{WAVE}"/>' if piece.arms in (N, E, S, W) else ""
        glow = ""
        if lit.get(cell):
            arms = lit[cell]
            win_dot = f'<circle cx="50" cy="50" r="19" fill="{WIN_WAVE}"/>' if piece.arms in (N, E, S, W) else ""
            glow = (f'<path class="win" d="{_wave_path(arms)}" stroke="{WIN_WAVE}" stroke-width="24" '
                    f'stroke-linecap="butt" fill="none"/>{win_dot}')
        parts.append(
            f'<g class="tile {colour}" data-cell="{cell}" data-piece="{piece}" transform="translate({x} {y})">'
            f'<rect x="3" y="3" width="94" height="94" rx="6" fill="{TILE_FILL[colour]}"/>'
            f'<path d="{_wave_path(piece.arms)}" stroke="{WAVE}" stroke-width="16" stroke-linecap="butt" '
            f'fill="none"/>{dot}{glow}</g>')

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
