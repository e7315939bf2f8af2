"""A finger's tip over the rim of an empty cell: the middle shows clean paper, where a tile (0.96 of the cell) would
show its hub and body, so the cell is empty whatever lies over its rim; the second opinion must see it uncovered."""

import cv2
import numpy as np
import pytest
from test_tiles import face, grid_image

from thoughtwave.engine.cells import Cell
from thoughtwave.engine.pieces import Colour
from thoughtwave.vision.finder import GridGeometry
from thoughtwave.vision.reading import CellState
from thoughtwave.vision.second import SecondOpinion
from thoughtwave.vision.tiles import LIGHT_ONLY_EMPTY, TileReader

CELL = Cell.parse("E5")
SKIN_BGR = (95, 125, 180)


def fingered(tiles: dict) -> np.ndarray:
    """The printed board (with ``tiles``) under a hand over columns A-D of rows 4-6, its edge an eighth of a cell into
    E4-E6 (a hand is a blob of several cells: ``ColourModel.hand_min_cells``)."""
    grid = grid_image(tiles)
    geometry = GridGeometry()
    x0, y0 = geometry.cell_origin(CELL.row, CELL.col)
    p = geometry.px_per_cell
    cv2.rectangle(grid, (0, y0 - p), (x0 + p // 8, y0 + 2 * p - 1), SKIN_BGR, -1)
    return grid


@pytest.mark.parametrize("uncovered", [True, False])
def test_an_empty_cell_under_a_finger_at_its_rim_reads_empty_only_where_the_second_opinion_sees_it_uncovered(
        uncovered, monkeypatch):
    monkeypatch.setattr(SecondOpinion, "uncovered", lambda self, norm, px, margin, cells: np.full(len(cells),
                                                                                                    uncovered))
    reader = TileReader()
    readout = reader.read(fingered({}))
    assert reader.measures["other"][CELL.index] > reader.model.other_max      # the rules see something over it
    reading = readout.cells()[CELL]
    if uncovered:
        assert reading.state is CellState.EMPTY and reading.confidence == pytest.approx(LIGHT_ONLY_EMPTY)
        assert not readout.occluded[CELL.row, CELL.col]
    else:
        assert reading.state is CellState.UNREADABLE and readout.occluded[CELL.row, CELL.col]
        assert readout.why[CELL] == "something covers it"


def test_without_the_second_opinion_a_cell_under_a_finger_stays_covered():
    reader = TileReader()
    reader.second = None
    readout = reader.read(fingered({}))
    assert readout.cells()[CELL].state is CellState.UNREADABLE and readout.occluded[CELL.row, CELL.col]


def test_a_tile_under_a_finger_at_its_rim_is_never_read_empty(monkeypatch):
    monkeypatch.setattr(SecondOpinion, "uncovered", lambda self, norm, px, margin, cells: np.ones(len(cells), bool))
    readout = TileReader().read(fingered({CELL: face(Colour.BLACK, "nes")}))
    assert readout.cells()[CELL].state is not CellState.EMPTY
