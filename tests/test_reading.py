"""A board reading asked about a cell by its name."""

import pytest

from thoughtwave.engine import Cell, Colour, NotationError, Piece
from thoughtwave.vision.reading import BoardReading, CellReading, CellState


def test_a_cell_is_asked_for_by_its_name_as_by_the_cell_itself():
    e5 = Cell.parse("E5")
    reading = BoardReading(True, {e5: CellReading.tile(Colour.RED, Piece.parse("ew"), 0.9)})
    assert reading.get("E5") == reading.get("e5 ") == reading.get(e5)
    assert reading.get("E5").label() == "red ew"
    assert reading.get("F5").state is CellState.UNREADABLE     # a cell not read


def test_a_name_that_is_no_cell_is_refused_not_answered_unreadable():
    with pytest.raises(NotationError):
        BoardReading(True).get("K11")
