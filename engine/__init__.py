"""The rules of Thoughtwave: pure Python, no I/O. Pieces, cells, moves, board, referee, records."""

from engine.board import Board
from engine.cells import CELLS, Cell
from engine.moves import Move, parse_move_line
from engine.pieces import ALL_PIECES, KINDS, START_INVENTORY, Colour, Kind, NotationError, Piece
from engine.record import GameRecord, RecordedMove, RecordError
from engine.referee import Outcome, Penalty, Referee, Rules, Verdict

__all__ = [
    "ALL_PIECES", "CELLS", "KINDS", "START_INVENTORY", "Board", "Cell", "Colour", "GameRecord",
    "Kind", "Move", "NotationError", "Outcome", "Penalty", "Piece", "RecordError", "RecordedMove",
    "Referee", "Rules", "Verdict", "parse_move_line",
]
