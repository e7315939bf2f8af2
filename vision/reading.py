"""What the camera says about the board: the value types passed from the reader to the stabiliser.

A ``BoardReading`` holds, per cell, one ``CellReading``: empty, a tile (colour and piece) or
unreadable, each with a confidence in [0, 1]. The reader says ``unreadable`` rather than guess.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from thoughtwave.engine.cells import CELLS, Cell
from thoughtwave.engine.pieces import Colour, Piece
from thoughtwave.vision.causes import Cause, LostBoard


class CellState(enum.Enum):
    EMPTY = "empty"
    TILE = "tile"
    UNREADABLE = "unreadable"


@dataclass(frozen=True, slots=True)
class CellReading:
    """One cell as read: ``state``; ``colour`` and ``piece`` only for a tile."""

    state: CellState
    confidence: float = 1.0
    colour: Colour | None = None
    piece: Piece | None = None

    @classmethod
    def empty(cls, confidence: float = 1.0) -> CellReading:
        return cls(CellState.EMPTY, confidence)

    @classmethod
    def tile(cls, colour: Colour, piece: Piece, confidence: float = 1.0) -> CellReading:
        return cls(CellState.TILE, confidence, colour, piece)

    @classmethod
    def unreadable(cls, confidence: float = 0.0) -> CellReading:
        return cls(CellState.UNREADABLE, confidence)

    def same_content(self, other: CellReading) -> bool:
        """Whether two readings say the same thing about the cell (confidence aside)."""
        return (self.state, self.colour, self.piece) == (other.state, other.colour, other.piece)

    def label(self) -> str:
        """``"empty"``, ``"unreadable"`` or ``"red ew"``."""
        if self.state is CellState.TILE:
            return f"{self.colour.value} {self.piece}"
        return self.state.value


@dataclass
class BoardReading:
    """The whole board as read from one frame.

    ``board_found`` is False when no board pose could be had (then ``cells`` is empty).
    ``occluded`` is the reader's judgement that something (a hand, an arm) covers part of the board;
    ``occluded_cells`` names the cells it covers. ``ms`` is the time the frame took to read.
    ``causes`` says, for unreadable cells where the picture shows it, why (``vision.causes.Cause``); ``lost``, for a
    frame without a board (from the recogniser), why as far as the picture shows it (``vision.causes.LostBoard``).
    """

    board_found: bool
    cells: dict[Cell, CellReading] = field(default_factory=dict)
    occluded: bool = False
    occluded_cells: frozenset[Cell] = frozenset()
    ms: float = 0.0
    causes: dict[Cell, Cause] = field(default_factory=dict)
    lost: LostBoard | None = None

    def get(self, cell: Cell | str) -> CellReading:
        """The reading of ``cell`` (a ``Cell``, or its name: ``"E5"``); unreadable where the board was not read. A
        name that is no cell raises ``NotationError`` (a name was once taken for a cell never read, silently)."""
        return self.cells.get(Cell.parse(cell) if isinstance(cell, str) else cell, _UNREADABLE)

    def unreadable(self) -> list[Cell]:
        return [c for c in CELLS if self.get(c).state is CellState.UNREADABLE]

    def tiles(self) -> dict[Cell, CellReading]:
        return {c: r for c, r in self.cells.items() if r.state is CellState.TILE}

    def to_json(self) -> dict:
        """The ``thoughtwave recognize`` shape: tiles by cell, empty cells left out; ``causes`` (cell ->
        ``vision.causes.Cause`` value) only when some unreadable cell has one; ``lost`` (a ``vision.causes.Lost``
        value) only for a frame without a board whose picture shows why."""
        out = {
            "board_found": self.board_found,
            "cells": {
                str(c): {"colour": r.colour.value, "piece": str(r.piece), "confidence": round(r.confidence, 3)}
                for c, r in sorted(self.tiles().items())
            },
            "unreadable": [str(c) for c in self.unreadable()] if self.board_found else [],
            "ms": round(self.ms, 1),
        }
        causes = {str(c): self.causes[c].value for c in self.unreadable() if c in self.causes}
        if causes and self.board_found:
            out["causes"] = causes
        if not self.board_found and self.lost is not None and self.lost.cause is not None:
            out["lost"] = self.lost.cause.value
        return out


_UNREADABLE = CellReading.unreadable()
