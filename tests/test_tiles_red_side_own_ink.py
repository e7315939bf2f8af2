"""A tile's blank side facing a cell left unreadable, with dark no tile read explains just beyond it, may be a wave's
end under a pale finger's dark edge (the rules see no hand there): it stands only where the second opinion reads it
blank too. A red tile's blank side that is red ink over most of both its halves is the tile's own ink, whatever lies
beyond it: no skin is red ink, and a wave's cream under a finger or its shade is not red. It stands by itself."""

import numpy as np
import pytest
from test_tiles import grid_image
from tilefaces import P, centre, face

from thoughtwave.engine.cells import Cell
from thoughtwave.engine.pieces import Colour
from thoughtwave.vision.reading import CellState
from thoughtwave.vision.second import SecondOpinion
from thoughtwave.vision.tiles import TileReader

TILE_CELL, BESIDE = Cell.parse("E5"), Cell.parse("F5")


class Refusing(SecondOpinion):
    """The shipped networks, save that they confirm no side blank: what they say of a side left in doubt counts for
    nothing here, only the rules do."""

    def blank(self, norm, px_per_cell, margin_px, cells, sides, uncovered=False):
        return np.zeros(len(cells), bool)


def beside_unreadable(colour: Colour, piece: str, seed: int, shade: bool = False) -> np.ndarray:
    """The board with a ``colour`` ``piece`` at E5 and, over F5 east of it, something neither paper nor a tile (dark
    beyond E5's east side that no tile read explains); ``shade``: and a colourless dark over E5's east arm's outer part,
    as a pale finger's dark edge over a wave's end."""
    grid = grid_image({TILE_CELL: face(colour, piece)})
    x0, y0 = (int(round(v - P / 2)) for v in centre(BESIDE))
    noise = np.random.default_rng(seed).integers(0, 256, (P - 4, P - 6, 3))
    grid[y0 + 2:y0 + P - 2, x0 + 1:x0 + P - 5] = noise
    if shade:
        x, y = (int(round(v)) for v in centre(TILE_CELL))
        grid[y - P // 5:y + P // 5, x + P // 4:x0 + P // 3] = (38, 40, 42)
    return grid


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("piece", ["w", "nsw", "n"])
def test_a_red_tiles_blank_side_of_red_ink_stands_beside_an_unreadable_cell(piece, seed):
    cells = TileReader(second=Refusing()).read(beside_unreadable(Colour.RED, piece, seed)).cells()
    assert cells[BESIDE].state is CellState.UNREADABLE
    assert cells[TILE_CELL].label() == f"red {piece}"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_black_tiles_blank_side_there_still_wants_the_second_opinion(seed):
    cells = TileReader(second=Refusing()).read(beside_unreadable(Colour.BLACK, "w", seed)).cells()
    assert cells[TILE_CELL].state is CellState.UNREADABLE


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_red_wave_whose_end_a_dark_edge_covers_is_not_its_own_ink(seed):
    # Colourless dark over the wave's end: its side shows no red, so it is not taken for the tile's own ink (and a red
    # tile's blank side showing no red is a wave's end in a shadow: ``pale_sides``).
    cells = TileReader(second=Refusing()).read(beside_unreadable(Colour.RED, "ew", seed, shade=True)).cells()
    assert cells[TILE_CELL].label() in ("red ew", "unreadable")
