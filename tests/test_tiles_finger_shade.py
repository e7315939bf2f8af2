"""A finger's shade over a black tile's wave end darkens the cream to the ink's level, so the side looks blank; past the
tile's edge the shade runs on, far darker than the side it covers, where a blank side's ink ends at the edge and what
lies beyond is lit as much (paper, a gap, another tile's ink). Such a tile is left unreadable, never read as a piece
with a wave fewer (seed 193 frame 69 A9, a black sw read "black w" at 0.72 under a pale fingertip's shade)."""

import cv2
import numpy as np
import pytest
from test_tiles import face, grid_image
from tilefaces import P, centre

from thoughtwave.engine.cells import Cell
from thoughtwave.engine.pieces import Colour
from thoughtwave.vision.tiles import TileReader

E5 = Cell.parse("E5")


def shaded(piece: str, level: int, centre_below: float, half_width: float, half_height: float) -> np.ndarray:
    """A black ``piece`` at E5 with a dark oval (grey ``level``) centred ``centre_below`` cells below its centre."""
    grid = grid_image({E5: face(Colour.BLACK, piece)}).copy()
    cx, cy = centre(E5)
    cv2.ellipse(grid, (int(cx), int(cy + centre_below * P)), (int(half_width * P), int(half_height * P)), 0, 0, 360,
                (level, level, level), -1)
    return grid


@pytest.mark.parametrize("piece", ["ns", "sw", "nes"])
@pytest.mark.parametrize("level", [5, 15, 25])
def test_a_finger_shade_over_a_wave_end_running_on_past_the_edge_never_reads_as_a_piece_without_that_wave(piece,
                                                                                                          level):
    # The oval covers the south side's outer part (from 0.25 of a cell below the centre) and runs on into E6.
    reading = TileReader().read(shaded(piece, level, 0.8, 0.25, 0.55)).cells()[E5]
    assert reading.label() in (f"black {piece}", "unreadable"), reading


def test_a_shade_past_a_wave_end_alone_leaves_the_tile_read():
    # Wholly past the tile's edge, in E6: the south wave's cream shows to the edge, and the tile reads.
    reading = TileReader().read(shaded("ns", 15, 1.0, 0.25, 0.3)).cells()[E5]
    assert reading.label() == "black ns"
