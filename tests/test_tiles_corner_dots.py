"""The corner dots, the colour cue beside the body's hue, where one corner is lost or every corner stands a little
above its ring: a red tile with one corner under something dark (a neighbour's ink smeared over it, a finger's
shade) is red by its other three dots (seed 191 frame 135 G4, seed 149 frame 78 F7: unreadable, "colour cues
disagree"); a black tile whose four corners stand a little above their rings (cream spread into them, a small cell's
noise), still far below a red tile's dots, is black (seed 191 frame 64 F1, seed 193 frame 55 D1). Read by the rules
alone: the second opinion may read such tiles by itself, and these are the rules' own cues."""

import cv2
import numpy as np
import pytest
from test_tiles import face, grid_image

from thoughtwave.engine.cells import Cell
from thoughtwave.engine.pieces import Colour
from thoughtwave.vision.tiles import TileReader

E5 = Cell.parse("E5")


def rules_read(tile: np.ndarray) -> str:
    """E5's label, ``tile`` laid there, read by the rules alone."""
    reader = TileReader()
    reader.second = None
    return reader.read(grid_image({E5: tile})).cells()[E5].label()


def dark_corner(colour: Colour, piece: str, grey: int = 25) -> np.ndarray:
    """A ``colour`` tile holding ``piece`` whose north-west corner, dot and all, lies under a dark patch."""
    tile = face(colour, piece)
    cv2.circle(tile, (0, 0), int(0.4 * tile.shape[0]), (grey, grey, grey), -1)
    return tile


def lit_corners(piece: str, lift: int, corners: int = 4) -> np.ndarray:
    """A black tile holding ``piece`` with ``corners`` of its corners (where a red tile has its dots) ``lift`` grey
    levels lighter."""
    tile = face(Colour.BLACK, piece).astype(np.int16)
    size = tile.shape[0]
    for fx, fy in [(0.17, 0.17), (0.83, 0.17), (0.83, 0.83), (0.17, 0.83)][:corners]:
        spot = np.zeros((size, size), np.uint8)
        cv2.circle(spot, (int(fx * size), int(fy * size)), int(0.06 * size), 1, -1)
        tile[spot > 0] += lift
    return np.clip(tile, 0, 255).astype(np.uint8)


@pytest.mark.parametrize("piece", ["ns", "nesw"])
def test_a_red_tile_with_one_corner_under_something_dark_is_red_by_its_other_three_dots(piece):
    assert rules_read(dark_corner(Colour.RED, piece)) == f"red {piece}"


def test_a_black_tile_with_one_corner_under_something_dark_stays_black():
    assert rules_read(dark_corner(Colour.BLACK, "ns")) == "black ns"


@pytest.mark.parametrize("lift", [52, 56])
def test_a_black_tile_whose_corners_stand_a_little_above_their_rings_is_black(lift):
    # 52 and 56 grey levels put each corner 0.042 and 0.056 of the ink-to-cream step above its ring: over the mean of
    # four a black tile's dots may show (``dot_black_max``), under what a red tile's must (``dot_red_min``).
    assert rules_read(lit_corners("ns", lift)) == "black ns"


@pytest.mark.parametrize("lift", [90, 140])
def test_a_black_tile_with_three_corners_lit_like_dots_is_never_read_red(lift):
    assert not rules_read(lit_corners("ns", lift, corners=3)).startswith("red")
