"""Paper in a hand's shadow beside it: the white estimate cannot follow the shadow, so the shaded paper counts as ink
and the cell is left unreadable, and the second opinion, seeing the hand beside it, may doubt what covers it. A shadow
only dims the paper and keeps its hue: where what shows of the middle clear of the hand is of the markers' paper hue and
the second opinion sees no tile there in every view, the cell reads empty, too unsure to take a tile off. A tile in the
same shadow is never read empty. (Pale skin, of another hue than the paper, is left to the same hue test as in
``test_tiles_beside_hand``.)"""

import cv2
import numpy as np
import pytest
from test_tiles import face, grid_image
from test_tiles_beside_hand import CELL, handed, hued

from thoughtwave.engine.pieces import Colour
from thoughtwave.vision.finder import GridGeometry
from thoughtwave.vision.reading import CellState
from thoughtwave.vision.second import Opinion, SecondOpinion
from thoughtwave.vision.tiles import LIGHT_ONLY_EMPTY, TileReader


class Doubting(SecondOpinion):
    """The shipped networks, but sure of nothing they read and seeing no cell uncovered (as beside a hand they often
    are not): only what they say of a tile in ``no_tile`` is their own."""

    def read(self, norm, px_per_cell, margin_px, cells, only_cover=None, kinds=None):
        none = np.zeros(len(cells), bool)
        return Opinion(none, none, none, np.zeros(len(cells), np.int64), none)

    def uncovered(self, norm, px_per_cell, margin_px, cells, most=None):
        return np.zeros(len(cells), bool)


def scene(tiles: dict, fingers: int, depth: float = 0.4) -> np.ndarray:
    """The printed board with ``tiles`` under a hand over columns A-D of rows 4-6 (its edge at E5's west border) and the
    soft shadow of its fingers (taking ``depth`` of the light, its edge blurred a tenth of a cell) lying from it over
    E5: one broad round-ended finger's, or two narrow ones' side by side (no plane and one straight edge fits
    either)."""
    return fingers_shadow(handed(tiles, 0.0), fingers, depth)


def fingers_shadow(grid: np.ndarray, fingers: int, depth: float) -> np.ndarray:
    """``grid`` with the soft shadow of one broad finger or two narrow ones lying from the west over E5 (``scene``)."""
    geometry = GridGeometry()
    x, y = geometry.cell_origin(CELL.row, CELL.col)
    p = geometry.px_per_cell
    mask = np.zeros(grid.shape[:2], np.float32)
    if fingers == 1:
        cv2.rectangle(mask, (x - p, y + int(0.3 * p)), (x + int(0.35 * p), y + int(0.8 * p)), 1.0, -1)
        cv2.circle(mask, (x + int(0.35 * p), y + int(0.55 * p)), int(0.25 * p), 1.0, -1)
    else:
        for middle in (0.3, 0.75):
            cv2.rectangle(mask, (x - p, y + int((middle - 0.12) * p)), (x + int(0.5 * p), y + int((middle + 0.12) * p)),
                          1.0, -1)
            cv2.circle(mask, (x + int(0.5 * p), y + int(middle * p)), int(0.12 * p), 1.0, -1)
    mask = cv2.GaussianBlur(mask, (0, 0), 0.1 * p)
    return np.clip(grid * (1.0 - depth * mask)[..., None], 0, 255).astype(np.uint8)


def read(grid: np.ndarray, with_hues: bool = True):
    return TileReader(second=Doubting()).read(grid, paper_hues=hued(handed({}, 0.0)) if with_hues else None)


@pytest.mark.parametrize("fingers", [1, 2])
def test_paper_in_a_hands_shadow_beside_it_reads_empty_by_what_shows_of_it(fingers):
    grid = scene({}, fingers)
    assert read(grid, with_hues=False).cells()[CELL].state is CellState.UNREADABLE   # no paper's hue: as before
    readout = read(grid)
    reading = readout.cells()[CELL]
    assert reading.state is CellState.EMPTY and reading.confidence == pytest.approx(LIGHT_ONLY_EMPTY)
    assert not readout.occluded[CELL.row, CELL.col]


@pytest.mark.parametrize("fingers", [1, 2])
@pytest.mark.parametrize(("colour", "piece"), [(Colour.BLACK, "nes"), (Colour.BLACK, "ns"), (Colour.RED, "nesw"),
                                               (Colour.RED, "s")])
def test_a_tile_in_a_hands_shadow_is_never_read_empty(colour, piece, fingers):
    assert read(scene({CELL: face(colour, piece)}, fingers)).cells()[CELL].state is not CellState.EMPTY


class Unsure(Doubting):
    """As ``Doubting``, and giving every cell a tile at 0.05 in its worst view: more than paper read by the networks
    alone may have (``1 - SURE``), less than paper in shade may (``SHADE_NO_TILE``)."""

    def no_tile(self, norm, px_per_cell, margin_px, cells, most=0.01):
        return np.broadcast_to(np.asarray(most) > 0.05, (len(cells),)).copy()


def read_unsure(grid: np.ndarray, second: SecondOpinion | None = None):
    return TileReader(second=second or Unsure()).read(grid, paper_hues=hued(handed({}, 0.0)))


@pytest.mark.parametrize("fingers", [1, 2])
def test_paper_in_a_hands_shadow_spanning_little_clear_of_it_takes_the_networks_bar_for_paper_in_shade(fingers):
    reading = read_unsure(scene({}, fingers)).cells()[CELL]
    assert reading.state is CellState.EMPTY and reading.confidence == pytest.approx(LIGHT_ONLY_EMPTY)


@pytest.mark.parametrize("fingers", [1, 2])
@pytest.mark.parametrize(("colour", "piece"), [(Colour.BLACK, "nes"), (Colour.BLACK, "ns"), (Colour.BLACK, "n"),
                                               (Colour.RED, "nesw"), (Colour.RED, "s")])
def test_a_tile_in_a_hands_shadow_spans_its_ink_clear_of_the_hand_and_is_never_read_empty_so(colour, piece, fingers):
    assert read_unsure(scene({CELL: face(colour, piece)}, fingers)).cells()[CELL].state is not CellState.EMPTY


def cast(tiles: dict, fingers: int, depth: float) -> np.ndarray:
    """As ``scene``, but the hand itself is off the board (above it, or beyond its edge): only its fingers' shadow
    lies over E5, no cell is covered."""
    return fingers_shadow(grid_image(tiles), fingers, depth)


def read_cast(grid: np.ndarray):
    return TileReader(second=Unsure()).read(grid, paper_hues=hued(grid_image({})))


#: A hand's fingers' shadow over E5 with the hand beside it on the board, or off the board: what each reads.
HANDS = {"beside": lambda tiles, fingers, depth: read_unsure(scene(tiles, fingers, depth)),
         "off the board": lambda tiles, fingers, depth: read_cast(cast(tiles, fingers, depth))}


@pytest.mark.parametrize("fingers", [1, 2])
@pytest.mark.parametrize("hand", list(HANDS))
def test_paper_with_a_deeper_hand_shadows_edge_across_it_spanning_short_of_a_tiles_ratio_takes_the_same_bar(
        hand, fingers):
    # A broad finger's shadow leaving 0.38 of the light: lit and shaded paper span 2.6 clear of the hand, past
    # ``SOFT_SPREAD``, short of 0.6 of a tile's printed ratio of cream over ink in log (3.05), lit paper at its bright
    # end; the hand beside it on the board or off the board.
    reading = HANDS[hand]({}, fingers, 0.62).cells()[CELL]
    assert reading.state is CellState.EMPTY and reading.confidence == pytest.approx(LIGHT_ONLY_EMPTY)


@pytest.mark.parametrize("hand", list(HANDS))
def test_paper_with_a_shadow_deep_as_a_tiles_ratio_across_it_is_left_to_the_networks_own_bar(hand):
    # A broad finger's shadow leaving a quarter of the light spans 3.8 clear of the hand, as a tile's cream over its ink
    # may: not read so.
    assert HANDS[hand]({}, 1, 0.75).cells()[CELL].state is CellState.UNREADABLE


@pytest.mark.parametrize("fingers", [1, 2])
@pytest.mark.parametrize(("colour", "piece"), [(Colour.BLACK, "nes"), (Colour.BLACK, "ns"), (Colour.BLACK, "n"),
                                               (Colour.RED, "nesw"), (Colour.RED, "s")])
@pytest.mark.parametrize("depth", [0.4, 0.62, 0.75])
@pytest.mark.parametrize("hand", list(HANDS))
def test_a_tile_in_a_deeper_hand_shadow_is_never_read_empty_so(colour, piece, fingers, depth, hand):
    assert HANDS[hand]({CELL: face(colour, piece)}, fingers, depth).cells()[CELL].state is not CellState.EMPTY


def specked(grid: np.ndarray, count: int = 4, seed: int = 3) -> np.ndarray:
    """``grid`` with ``count`` single pixels of colour noise in E5's middle (specks of a picture's noise, or of a fringe
    along a shadow's edge: a tenth and more off the paper in blue and in red, opposite ways)."""
    geometry = GridGeometry()
    x, y = geometry.cell_origin(CELL.row, CELL.col)
    p = geometry.px_per_cell
    rng = np.random.default_rng(seed)
    out = grid.copy()
    for px, py in rng.uniform(0.3 * p, 0.7 * p, (count, 2)).astype(int):
        out[y + py, x + px] = np.clip(out[y + py, x + px] * np.array([0.7, 0.9, 1.1]), 0, 255).astype(np.uint8)
    return out


@pytest.mark.parametrize("fingers", [1, 2])
@pytest.mark.parametrize("depth", [0.3, 0.4, 0.62])
def test_paper_in_a_cast_shadow_with_a_few_coloured_specks_is_still_paper_in_shade(fingers, depth):
    # A hand off the board casts its fingers' shadow over E5; a few pixels of colour noise in its middle (a hundredth
    # of it) leave it as colourless as paper in shade is, so it takes the shaded paper's bar all the same.
    reading = read_cast(specked(cast({}, fingers, depth))).cells()[CELL]
    assert reading.state is CellState.EMPTY and reading.confidence == pytest.approx(LIGHT_ONLY_EMPTY)


@pytest.mark.parametrize("fingers", [1, 2])
@pytest.mark.parametrize(("colour", "piece"), [(Colour.BLACK, "nes"), (Colour.BLACK, "ns"), (Colour.BLACK, "n"),
                                               (Colour.RED, "nesw"), (Colour.RED, "s")])
@pytest.mark.parametrize("depth", [0.3, 0.62])
def test_a_specked_tile_in_a_cast_shadow_is_never_read_empty(colour, piece, fingers, depth):
    assert read_cast(specked(cast({CELL: face(colour, piece)}, fingers, depth))).cells()[CELL].state \
        is not CellState.EMPTY
