"""The screen of ``thoughtwave play``: the board, each piece in its own cell (its wave drawn with box lines,
neighbours kept apart by a dot), both players' pieces in colour on a terminal, and beside it whose turn it
is and the pieces left. Made to fit an 80x24 terminal with the last verdict and the prompt below it.

>>> from thoughtwave.engine import Referee
>>> referee = Referee()
>>> _ = referee.play("red ew@E5"), referee.play("black nesw@F3")
>>> lines = screen_lines(referee, colour=False, unicode=False)
>>> for line in lines[5:10]:
...     print(line[:47].rstrip())
 3 .   .   .   .   .   .-+-.   .   .   .   . 3
   .   .   .   .   .   . | .   .   .   .   .
 4 .   .   .   .   .   .   .   .   .   .   . 4
   .   .   .   .   .   .   .   .   .   .   .
 5 .   .   .   .   .---.   .   .   .   .   . 5
"""

from __future__ import annotations

import re

from thoughtwave.engine import KINDS, Cell, Colour, Kind, Outcome, Referee
from thoughtwave.engine.cells import COLUMNS, SIZE
from thoughtwave.engine.pieces import E, N, S, W
from thoughtwave.i18n import Text
from thoughtwave.i18n.phrases import colour_name, side_names

#: The lines below the board: the last verdict (wrapped) and the prompt; with the board (20 lines), 24.
MESSAGE_LINES = 3
WIDTH = 80
#: Where the side panel starts (the board is 47 columns wide).
PANEL = 49

#: A piece's middle character by its arms, in box-drawing lines (and plain text for other terminals).
BOX = {N: "╵", E: "╶", S: "╷", W: "╴", N | S: "│", E | W: "─", N | E: "└", E | S: "┌", S | W: "┐", N | W: "┘",
       N | E | S: "├", N | S | W: "┤", E | S | W: "┬", N | E | W: "┴", N | E | S | W: "┼"}
PLAIN = {N | S: "|", E | W: "-"}
#: Each side's pieces: white waves on red tiles, black waves on light tiles (both show on dark or light screens).
TILE = {Colour.RED: "\x1b[97;41m", Colour.BLACK: "\x1b[30;47m"}
NAME = {Colour.RED: "\x1b[1;31m", Colour.BLACK: "\x1b[1m"}
RESET = "\x1b[0m"
CLEAR = "\x1b[H\x1b[2J"
LETTER = {Kind.TERMINATOR: "T", Kind.BEND: "B", Kind.STRAIGHT: "S", Kind.JUNCTION: "J", Kind.CROSS: "X"}
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def visible(text: str) -> int:
    """The width ``text`` takes on screen (colour codes take none)."""
    return len(_ANSI.sub("", text))


def owners(referee: Referee) -> dict[Cell, Colour]:
    """Whose piece lies on each cell (the legal placements that stand)."""
    found = {}
    for verdict in referee.verdicts:
        if verdict.outcome is Outcome.LEGAL and verdict.cell and verdict.colour:
            found[verdict.cell] = verdict.colour
    return found


def board_lines(referee: Referee, colour: bool, unicode: bool) -> list[str]:
    """The board: column letters, then each row with the north-south arms on the lines between rows."""
    board, owner = referee.board, owners(referee)
    dot, vertical, horizontal = ("·", "│", "─") if unicode else (".", "|", "-")
    lines = ["   " + "".join(f"  {c} " for c in COLUMNS)]
    for row in range(SIZE):
        if row:
            rule = "   "
            for col in range(SIZE):
                above, below = board.arms[(row - 1) * SIZE + col], board.arms[row * SIZE + col]
                rule += dot + (f" {vertical} " if above & S or below & N else "   ")
            lines.append(rule + dot)
        text = f"{row + 1:>2} "
        for col in range(SIZE):
            arms = board.arms[row * SIZE + col]
            if not arms:
                text += dot + "   "
                continue
            middle = BOX[arms] if unicode else PLAIN.get(arms, "+")
            cell = (horizontal if arms & W else " ") + middle + (horizontal if arms & E else " ")
            who = owner.get(Cell(row, col))
            if colour and who is not None:
                cell = f"{TILE[who]}{cell}{RESET}"
            text += dot + cell
        lines.append(f"{text}{dot} {row + 1}")
    return lines


def panel_lines(referee: Referee, colour: bool, t: Text | None = None) -> list[str]:
    """Beside the board: whose turn, each side's goal and pieces left, the key to the piece letters, in ``t``'s
    language (default English)."""
    t = t or Text()

    def name(who: Colour) -> str:
        return f"{NAME[who]}{colour_name(t, who)}{RESET}" if colour else colour_name(t, who)

    if referee.winner:
        turn = t.gettext("%(colour)s has won", colour=name(referee.winner))
    elif referee.draw:
        turn = t.gettext("The game is drawn")
    else:
        turn = t.gettext("%(colour)s to move", colour=name(referee.to_move)) if referee.to_move else ""
    lines = [turn, ""]
    for who in Colour:
        lines.append(t.gettext("%(colour)s joins %(sides)s", colour=name(who),
                               sides=side_names(t, referee.rules.sides_of(who))))
        lines.append("  " + " ".join(f"{LETTER[k]}{referee.inventory[who][k]}" for k in KINDS))
    moves = sum(1 for v in referee.verdicts if v.outcome is not Outcome.REJECTED)
    last = next((v for v in reversed(referee.verdicts) if v.outcome is not Outcome.REJECTED), None)
    if last:
        played = t.gettext("Moves: %(count)s; last %(colour)s %(move)s", count=moves, move=last.move,
                           colour=colour_name(t, last.colour).lower() if last.colour else "")
    else:
        played = t.gettext("Moves: %(count)s", count=moves)
    lines += ["", t.gettext("T terminator  B bend"), t.gettext("S straight    J junction"), t.gettext("X cross"), "",
              played, "", t.gettext("Type a move like ew@E5;"), t.gettext("legal E5, undo, help, quit.")]
    return lines


def screen_lines(referee: Referee, colour: bool, unicode: bool, t: Text | None = None) -> list[str]:
    """The board with the panel beside it, one string per screen line (20 lines)."""
    board, panel = board_lines(referee, colour, unicode), panel_lines(referee, colour, t)
    return [left + " " * (PANEL - visible(left)) + (panel[i] if i < len(panel) else "") if i < len(panel) else left
            for i, left in enumerate(board)]
