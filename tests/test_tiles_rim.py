"""Something hand-like over part of a cell. An empty cell's middle shows clean paper where a tile (0.96 of the cell)
would show its hub and body, so a finger's tip over its rim leaves it empty, if the second opinion sees it uncovered. A
tile is read from what shows of it (as under glare) where every side shows; a side a hand covers whole, or a blank side
under a hand (it may hide a wave's end), leaves it covered."""

import cv2
import numpy as np
import pytest
from test_tiles import face, grid_image

from thoughtwave.engine.cells import Cell
from thoughtwave.engine.pieces import Colour
from thoughtwave.vision.finder import GridGeometry
from thoughtwave.vision.reading import CellState
from thoughtwave.vision.second import COVERED_MAX, SecondOpinion
from thoughtwave.vision.tiles import BESIDE_UNREAD_COVER_MAX, LIGHT_ONLY_EMPTY, TileReader

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
    monkeypatch.setattr(SecondOpinion, "uncovered", lambda self, norm, px, margin, cells, *_: np.full(len(cells),
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
    monkeypatch.setattr(SecondOpinion, "uncovered", lambda self, norm, px, margin, cells, *_: np.ones(len(cells), bool))
    readout = TileReader().read(fingered({CELL: face(Colour.BLACK, "nes")}))
    assert readout.cells()[CELL].state is not CellState.EMPTY


def handed(tiles: dict, x1: float, y0: float, y1: float) -> np.ndarray:
    """The printed board (with ``tiles``) under a hand over columns A-D, its edge ``x1`` of a cell into E5 between
    ``y0`` and ``y1`` (shares of E5 from its top edge)."""
    grid = grid_image(tiles)
    geometry = GridGeometry()
    x, y = geometry.cell_origin(CELL.row, CELL.col)
    p = geometry.px_per_cell
    cv2.rectangle(grid, (0, y + int(y0 * p)), (x + int(x1 * p), y + int(y1 * p)), SKIN_BGR, -1)
    cv2.rectangle(grid, (0, y + int(y0 * p)), (x - 1, y + 3 * p), SKIN_BGR, -1)       # the rest of the hand
    return grid


@pytest.mark.parametrize(("piece", "read"), [("esw", True), ("nes", False)])
def test_a_tile_under_the_edge_of_a_hand_is_read_from_what_shows_of_it_unless_a_blank_side_may_hide_a_wave(piece,
                                                                                                         read):
    # The hand's edge over E5's west eighth, beside the arms' sample regions: a wave there shows its cream nearer the
    # hub (read), a blank side under a hand may hide a wave's end (not read, and still covered).
    reader = TileReader()
    reader.second = None
    readout = reader.read(handed({CELL: face(Colour.BLACK, piece)}, 0.12, 0.0, 1.0))
    assert reader.measures["other"][CELL.index] > reader.model.other_max
    reading = readout.cells()[CELL]
    if read:
        assert reading.label() == f"black {piece}" and not readout.occluded[CELL.row, CELL.col]
    else:
        assert reading.state is CellState.UNREADABLE and readout.occluded[CELL.row, CELL.col]


@pytest.mark.parametrize("piece", ["nes", "esw"])
def test_a_tile_whose_side_a_hand_covers_whole_stays_covered(piece):
    # The west side covered two fifths in: a wave there or none, nothing shows which.
    reader = TileReader()
    reader.second = None
    readout = reader.read(handed({CELL: face(Colour.BLACK, piece)}, 0.4, 0.0, 1.0))
    assert readout.cells()[CELL].state is CellState.UNREADABLE and readout.occluded[CELL.row, CELL.col]


@pytest.mark.parametrize("piece", ["new", "es"])
def test_a_tile_under_a_finger_over_its_corner_is_read_from_the_body_seen_beside_each_arm(piece):
    # A hand from the north-west over E5's corner, a third of a cell into it both ways: clear of the north and west
    # arms, over the body on one side of each (their flanks half seen), a tenth of the cell.
    grid = grid_image({CELL: face(Colour.BLACK, piece)})
    geometry = GridGeometry()
    x, y = geometry.cell_origin(CELL.row, CELL.col)
    p = geometry.px_per_cell
    cv2.rectangle(grid, (0, y - 3 * p), (x + p // 3, y + int(0.3 * p)), SKIN_BGR, -1)
    reader = TileReader()
    reader.second = None
    readout = reader.read(grid)
    assert reader.measures["other"][CELL.index] > reader.model.other_max
    assert readout.cells()[CELL].label() == f"black {piece}" and not readout.occluded[CELL.row, CELL.col]


def blank_side_beside_unreadable(unreadable: bool = True) -> np.ndarray:
    """A black w at E5 (its east side blank), and in F5 beyond that side a grey blob the rules leave unreadable."""
    grid = grid_image({CELL: face(Colour.BLACK, "w")})
    if unreadable:
        geometry = GridGeometry()
        x0, y0 = geometry.cell_origin(CELL.row, CELL.col + 1)
        p = geometry.px_per_cell
        cv2.circle(grid, (x0 + p // 2, y0 + p // 2), p // 4, (120, 120, 120), -1)
    return grid


def test_a_blank_side_facing_a_cell_left_unreadable_stands_only_where_the_networks_see_nothing_over_the_tile(
        monkeypatch):
    # Seed 233 frame 99 E1: a pale finger's edge and shade over a black ew's east end, the finger's skin beyond made
    # paper-like by the light division and left unreadable; the rules and the networks read the side blank, and every
    # view of the networks saw a little of something over the tile (0.28), under the bar of their own readings.
    neighbour = Cell.parse("F5")
    asked = []

    def sees_a_little(self, norm, px, margin, cells, most=COVERED_MAX):
        asked.append((sorted(int(c) for c in cells), most))
        return np.full(len(cells), most > BESIDE_UNREAD_COVER_MAX)

    plain = TileReader().read(blank_side_beside_unreadable())
    assert plain.cells()[neighbour].state is CellState.UNREADABLE
    assert plain.cells()[CELL].label() == "black w"                # the shipped networks see nothing over it
    monkeypatch.setattr(SecondOpinion, "uncovered", sees_a_little)
    readout = TileReader().read(blank_side_beside_unreadable())
    assert ([CELL.index], BESIDE_UNREAD_COVER_MAX) in asked
    assert readout.cells()[CELL].state is CellState.UNREADABLE
    # Nor in a picture the finder saw smeared (``moved``): there cells left unreadable for the blur lie beside many
    # tiles, and the networks see a smeared tile a little covered more often.
    asked.clear()
    TileReader().read(blank_side_beside_unreadable(), moved=True)
    assert not any(most == BESIDE_UNREAD_COVER_MAX for _, most in asked)
    # With paper beyond the side, the tile is not asked: a blank side beside a cell read stands as it did.
    asked.clear()
    readout = TileReader().read(blank_side_beside_unreadable(unreadable=False))
    assert readout.cells()[CELL].label() == "black w" and not any(CELL.index in cells for cells, _ in asked)
