"""A hand over part of a cell, its edge (or the dark right under it) into the middle: what shows of the middle clear of
the hand and a rim round it, half the middle or more, is clean paper of the paper's hue only where no tile lies there (a
tile, 0.96 of the cell, shows its body's ink over any half of the middle), so the cell reads empty, too unsure to take a
tile off. A tile there, or pale skin over the rest of the cell (of another hue than paper), leaves it unreadable."""

from dataclasses import replace

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
#: Pale skin's white against the paper's: within the hue spread a local white may have (``HUE_SPREAD``), so divided by
#: itself it is colourless, yet off the paper's hue.
PALE = np.array([0.90, 0.94, 0.99])


def hued(grid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The paper round four markers outside the grid (grid-image px, BGR): the board's paper."""
    paper = np.median(grid.reshape(-1, 3), axis=0).astype(np.float64)
    size, p = grid.shape[0], GridGeometry().px_per_cell
    at = np.array([[-p, -p], [size + p, -p], [-p, size + p], [size + p, size + p]], np.float64)
    return at, np.tile(paper, (len(at), 1))


def handed(tiles: dict, x1: float, pale: bool = False) -> np.ndarray:
    """The printed board (with ``tiles``) under a hand over columns A-D of rows 4-6, its edge ``x1`` of a cell into E5
    (a hand is a blob of several cells: ``ColourModel.hand_min_cells``); ``pale``: pale skin beyond that edge, over the
    rest of E5 and on over F-H of rows 4-6."""
    grid = grid_image(tiles)
    geometry = GridGeometry()
    x, y = geometry.cell_origin(CELL.row, CELL.col)
    p = geometry.px_per_cell
    paper = np.median(grid.reshape(-1, 3), axis=0)
    cv2.rectangle(grid, (0, y - p), (x - 1, y + 2 * p - 1), SKIN_BGR, -1)
    cv2.rectangle(grid, (x, y), (x + int(x1 * p), y + p - 1), SKIN_BGR, -1)
    if pale:
        # An arm of it, wider than the local white's reach (there skin divided by itself is colourless).
        grid[y - p:y + 2 * p, x + int(x1 * p) + 1:x + 4 * p] = np.clip(paper * PALE, 0, 255).astype(np.uint8)
    return grid


def reader() -> TileReader:
    out = TileReader()
    out.second = None           # the rules alone: what they read beside the hand, without the network's cover
    return out


def test_an_empty_cell_with_a_hand_over_part_of_its_middle_reads_empty_by_what_shows_of_it():
    grid = handed({}, 0.3)
    plain = reader()
    before = plain.read(grid).cells()[CELL]
    assert plain.measures["other"][CELL.index] > plain.model.other_max     # the rules see something over it
    assert before.state is CellState.UNREADABLE              # without the paper's hue: covered, as before
    rules = reader()
    readout = rules.read(grid, paper_hues=hued(grid))
    reading = readout.cells()[CELL]
    assert reading.state is CellState.EMPTY and reading.confidence == pytest.approx(LIGHT_ONLY_EMPTY)
    assert not readout.occluded[CELL.row, CELL.col]


@pytest.mark.parametrize(("colour", "piece"), [(Colour.BLACK, "nes"), (Colour.BLACK, "nesw"), (Colour.RED, "nesw"),
                                               (Colour.RED, "s")])
def test_a_tile_with_a_hand_over_part_of_its_middle_is_never_read_empty(colour, piece):
    for x1 in (0.3, 0.45):
        grid = handed({CELL: face(colour, piece)}, x1)
        assert reader().read(grid, paper_hues=hued(grid)).cells()[CELL].state is not CellState.EMPTY


@pytest.mark.parametrize("tiles", [{}, {CELL: face(Colour.BLACK, "nes")}])
def test_pale_skin_over_the_rest_of_the_cell_is_no_paper(tiles):
    # Pale skin shows no hand-like colour once the light is divided out, and reads clean: its hue is not the paper's.
    grid = handed(tiles, 0.3, pale=True)
    assert reader().read(grid, paper_hues=hued(grid)).cells()[CELL].state is not CellState.EMPTY


def test_a_hand_over_most_of_the_middle_leaves_the_cell_covered():
    grid = handed({}, 0.6)
    readout = reader().read(grid, paper_hues=hued(grid))
    assert readout.cells()[CELL].state is CellState.UNREADABLE and readout.occluded[CELL.row, CELL.col]


class CoverDoubting(SecondOpinion):
    """The shipped networks, save that some view gives something covering every cell asked ``COVERED_MAX`` or more
    (``doubt``; ``doubted``: as they say it)."""

    def __init__(self, doubted: bool):
        super().__init__()
        self.doubted = doubted

    def read(self, norm, px_per_cell, margin_px, cells, only_cover=None, kinds=None):
        said = super().read(norm, px_per_cell, margin_px, cells, only_cover, kinds)
        return said if not self.doubted else replace(said, doubt=np.ones(len(cells), bool))


def test_paper_the_second_opinion_does_not_see_surely_uncovered_beside_a_hand_is_too_unsure_to_take_a_tile_off():
    # A hand of pale skin whole over a tile is lit and shaped like paper to the rules: where a view of the networks,
    # asked because the rules see a hand, gives something covering the cell its due, an empty reading there rests on
    # the rules' measures alone.
    grid = handed({}, 0.0)
    sure = TileReader(second=CoverDoubting(False)).read(grid).cells()
    doubted = TileReader(second=CoverDoubting(True)).read(grid).cells()
    assert {c for c, r in doubted.items() if r.state is CellState.EMPTY} == \
        {c for c, r in sure.items() if r.state is CellState.EMPTY}
    capped = [c for c, r in sure.items() if r.state is CellState.EMPTY and r.confidence > LIGHT_ONLY_EMPTY]
    assert capped and all(doubted[c].confidence == pytest.approx(LIGHT_ONLY_EMPTY) for c in capped)
