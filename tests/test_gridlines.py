"""The printed grid lines tell paper from something paper-pale over it (``vision.gridlines``): a hand of pale skin over
a tile reads as clean paper by its light, but shows none of the lines that paper shows at its borders."""

import cv2
import numpy as np
import pytest
from test_tiles import grid_image
from tilefaces import M, P, face

from thoughtwave.engine.cells import CELLS, Cell
from thoughtwave.engine.pieces import Colour
from thoughtwave.vision.artwork import GRID_BGR
from thoughtwave.vision.finder import GridGeometry
from thoughtwave.vision.gridlines import LINE_SHARE, unlined
from thoughtwave.vision.reading import CellState
from thoughtwave.vision.stabiliser import GONE_CONFIDENCE_MIN
from thoughtwave.vision.tiles import LIGHT_ONLY_EMPTY, TileReader

TILES = {Cell.parse("B2"): face(Colour.RED, "new"), Cell.parse("F6"): face(Colour.BLACK, "sw"),
         Cell.parse("H3"): face(Colour.RED, "ns")}
#: Pale skin in warm light, divided by the paper's white: light and nearly colourless.
SKIN = (228, 238, 246)
PALM = [Cell.parse(n) for n in ("E5", "F5", "G5", "E6", "F6", "G6", "E7", "F7", "G7")]


def lined(grid: np.ndarray) -> np.ndarray:
    """``grid`` with the printed grid lines as the camera sees them at 32 px a cell: 0.3 mm of ``GRID_BGR`` is 0.38 px,
    shared by the two pixels either side of each border (``grid_image`` samples the board too sparsely to keep them)."""
    out = grid.astype(np.float32)
    share = 0.3 * P / 25.0 / 2
    for k in range(11):
        for at in (M + k * P - 1, M + k * P):
            out[M:M + 10 * P, at] = out[M:M + 10 * P, at] * (1 - share) + np.float32(GRID_BGR) * share
            out[at, M:M + 10 * P] = out[at, M:M + 10 * P] * (1 - share) + np.float32(GRID_BGR) * share
    return np.clip(out + 0.5, 0, 255).astype(np.uint8)


def board(tiles=TILES) -> np.ndarray:
    return lined(grid_image(tiles))


def noisy(grid: np.ndarray, sigma: float = 2.0, seed: int = 5) -> np.ndarray:
    noise = np.random.default_rng(seed).normal(0, sigma, grid.shape)
    return np.clip(grid.astype(np.float32) + noise, 0, 255).astype(np.uint8)


def with_palm(grid: np.ndarray) -> np.ndarray:
    """A flat palm of pale skin over the 3 x 3 cells around F6 (and the tile there), a quarter of a cell beyond them."""
    out = grid.copy()
    x0, y0 = M + 4 * P - P // 4, M + 4 * P - P // 4
    cv2.rectangle(out, (x0, y0), (x0 + 3 * P + P // 2 - 1, y0 + 3 * P + P // 2 - 1), SKIN, -1)
    return out


def test_paper_shows_its_lines_and_nothing_is_said_of_it():
    grid = noisy(board())
    paper = TileReader().read(grid).state.ravel() == 0
    missing, share = unlined(grid, GridGeometry(), paper)
    assert not missing.any()
    assert np.nanmin(share[paper]) > LINE_SHARE


def test_lines_displaced_a_few_pixels_by_the_lens_are_still_found():
    grid = noisy(board())
    paper = TileReader().read(grid).state.ravel() == 0
    for dx, dy in ((3, 0), (0, -4), (2, 3)):
        moved = np.roll(grid, (dy, dx), axis=(0, 1))
        assert not unlined(moved, GridGeometry(), paper)[0].any()


def test_a_pale_palm_over_a_tile_is_paper_by_its_light_only():
    grid = noisy(with_palm(board()))
    cells = TileReader().read(grid).cells()
    # The palm reads as paper (the rules see no colour in it) ...
    assert cells[Cell.parse("F6")].state is CellState.EMPTY
    # ... but too unsure of it to take the tile under it off the board.
    for cell in PALM:
        assert cells[cell].state is not CellState.TILE
        assert cells[cell].state is not CellState.EMPTY or cells[cell].confidence == pytest.approx(LIGHT_ONLY_EMPTY)
    # Paper in view keeps its confidence.
    seen = [c for c in CELLS if c not in PALM and c not in TILES and max(abs(c.row - 5), abs(c.col - 5)) > 2]
    assert all(cells[c].state is CellState.EMPTY and cells[c].confidence > GONE_CONFIDENCE_MIN for c in seen)


def test_a_picture_too_blurred_to_show_any_line_says_nothing():
    grid = cv2.GaussianBlur(noisy(with_palm(board()), 4.0), (0, 0), 4.0)
    paper = np.ones(100, bool)
    missing, share = unlined(grid, GridGeometry(), paper)
    assert not missing.any() and np.isnan(share).all()
