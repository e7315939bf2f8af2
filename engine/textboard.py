"""The board drawn in text, like the network server's diagram: ``#`` marks the waves."""

from __future__ import annotations

from thoughtwave.engine.board import Board
from thoughtwave.engine.cells import COLUMNS, SIZE, Cell
from thoughtwave.engine.pieces import Colour, E, N, S, W

_RED, _RESET = "\x1b[31m", "\x1b[0m"


def draw(board: Board, colours: dict[Cell, Colour] | None = None, ansi: bool = False) -> str:
    """The board as text. With ``ansi``, the waves of red pieces are printed in red.

    >>> print(draw(Board()).splitlines()[0].strip())
    A   B   C   D   E   F   G   H   I   J
    """
    colours = colours or {}

    def arms(col: int, row: int) -> int:
        if 0 <= col < SIZE and 0 <= row < SIZE:
            return board.arms[row * SIZE + col]
        return 0

    def paint(text: str, col: int, row: int) -> str:
        if ansi and "#" in text and colours.get(Cell(row, col)) is Colour.RED:
            return f"{_RED}{text}{_RESET}"
        return text

    header = "     " + "   ".join(COLUMNS)
    lines = [header]
    for row in range(SIZE + 1):
        rule = "   +"
        for col in range(SIZE):
            down = arms(col, row - 1) & S or arms(col, row) & N
            mark = paint("#", col, row if arms(col, row) & N else row - 1) if down else "-"
            rule += f"-{mark}-+"
        lines.append(rule)
        if row == SIZE:
            break
        text = f"{row + 1:>2} " + ("#" if arms(0, row) & W else "|")
        for col in range(SIZE):
            a = arms(col, row)
            inner = ("#" if a & W else " ") + ("#" if a else " ") + ("#" if a & E else " ")
            edge = "#" if a & E or arms(col + 1, row) & W else "|"
            text += paint(inner, col, row) + edge
        lines.append(f"{text} {row + 1}")
    lines.append(header)
    return "\n".join(lines)
