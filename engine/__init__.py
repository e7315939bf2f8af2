"""The rules of Thoughtwave: pure Python, no I/O. Pieces, cells, moves, board, referee, records."""

from thoughtwave.engine.board import Board
from thoughtwave.engine.cells import CELLS, Cell
from thoughtwave.engine.moves import Move, parse_move_line
from thoughtwave.engine.pieces import ALL_PIECES, KINDS, START_INVENTORY, Colour, Kind, NotationError, Piece
from thoughtwave.engine.record import GameRecord, RecordedMove, RecordError
from thoughtwave.engine.referee import Outcome, Penalty, Referee, Rules, Verdict
from thoughtwave.engine.sides import ALL_SIDES, Sides

__all__ = [
    "ALL_PIECES", "ALL_SIDES", "CELLS", "KINDS", "START_INVENTORY", "Board", "Cell", "Colour", "GameRecord",
    "Kind", "Move", "NotationError", "Outcome", "Penalty", "Piece", "RecordError", "RecordedMove",
    "Referee", "Rules", "Sides", "Verdict", "parse_move_line",
]
