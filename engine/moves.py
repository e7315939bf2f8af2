"""A move: a piece laid on a cell, optionally by a named colour. Parses every server notation."""

from __future__ import annotations

from dataclasses import dataclass

from thoughtwave.engine.cells import Cell
from thoughtwave.engine.pieces import Colour, NotationError, Piece


@dataclass(frozen=True, slots=True)
class Move:
    """``Move.parse("nes@B2")``; ``str(move)`` is the canonical ``nes@B2``."""

    piece: Piece
    cell: Cell

    @classmethod
    def parse(cls, text: str) -> Move:
        """Accept ``ew@E5``, ``X@e5``, ``e5.trbl``, ``top/right@b2``, any case."""
        t = text.strip()
        if "@" in t:
            piece_text, _, cell_text = t.partition("@")
            return cls(Piece.parse(piece_text), Cell.parse(cell_text))
        if "." in t:
            cell_text, _, piece_text = t.partition(".")
            return cls(Piece.parse(piece_text), Cell.parse(cell_text))
        raise NotationError(f"{t!r} is not a move: write it as PIECE@CELL, e.g. ew@E5")

    def __str__(self) -> str:
        return f"{self.piece}@{self.cell}"


def parse_move_line(line: str) -> tuple[Colour | None, Move]:
    """Read ``[red|black] PIECE@CELL``: ``parse_move_line("black X@e5")``.

    Raises NotationError with a player's sentence when the line is not a move.
    """
    words = line.split()
    if not words:
        raise NotationError("the line is empty")
    colour = None
    if len(words) >= 2 and words[0].lower() in ("red", "black"):
        colour = Colour.parse(words[0])
        words = words[1:]
    if len(words) != 1:
        raise NotationError(
            f"{line.strip()!r} is not a move: write [red|black] PIECE@CELL, e.g. red ew@E5"
        )
    return colour, Move.parse(words[0])
