"""Empty paper under parallel soft shadow stripes (a blind's, a radiator grille's, a chair's slats) is never read as a
tile: a lit stripe through an empty cell's middle, shadow on both sides, looks in luminance like a black tile's cream
hub and wave on its dark body ("black ns" at 0.6-0.8 before), but its hub has the paper's hue, not the cream's."""

import numpy as np
import pytest
from test_tiles import grid_image
from tilefaces import P, face

from thoughtwave.engine.cells import Cell
from thoughtwave.engine.pieces import Colour
from thoughtwave.vision.reading import CellState
from thoughtwave.vision.tiles import TileReader

TILES = {Cell(1, 1): (Colour.BLACK, "ns"), Cell(8, 8): (Colour.RED, "ew"), Cell(1, 8): (Colour.BLACK, "nesw"),
         Cell(8, 1): (Colour.RED, "n")}


def striped(grid: np.ndarray, depth: float, lit: float, shade: float, degrees: float, seed: int = 1) -> np.ndarray:
    """``grid`` under parallel soft shadows leaving ``depth`` of the light (grey levels), lit stripes ``lit`` cells wide
    every ``lit + shade`` cells, turned ``degrees``, one through the first cell's middle; camera noise from ``seed``."""
    yy, xx = np.mgrid[:grid.shape[0], :grid.shape[1]].astype(np.float32)
    a = np.deg2rad(degrees)
    u = (xx * np.cos(a) + yy * np.sin(a)) / P
    period = lit + shade
    phase = np.mod(u - 0.5 + lit / 2, period)                # 0..lit: lit, lit..period: in shadow
    inside = np.minimum(phase - lit, period - phase)         # > 0 inside a shadow
    shadow = 0.5 + 0.5 * np.tanh(inside / 0.06)
    light = 1 - (1 - depth) * shadow
    noise = np.random.default_rng(seed).normal(0, 3, grid.shape)
    return np.clip(grid.astype(np.float32) * light[..., None] + noise, 0, 255).astype(np.uint8)


@pytest.fixture(scope="module")
def board() -> np.ndarray:
    return grid_image({c: face(*v) for c, v in TILES.items()})


# Cases the reader (rules and second opinion) read empty cells of as "black ns" / "black ew" before.
@pytest.mark.parametrize("depth, lit, shade, degrees", [
    (0.35, 0.25, 0.3, 0), (0.35, 0.35, 1.5, 45), (0.45, 0.25, 0.6, 30), (0.45, 0.15, 1.5, 0), (0.55, 0.25, 1.5, 0),
    (0.55, 0.25, 0.6, 45)])
def test_no_empty_cell_under_striped_shadows_reads_as_a_tile(board, depth, lit, shade, degrees):
    cells = TileReader().read(striped(board, depth, lit, shade, degrees)).cells()
    tiles = [f"{c}: {r.label()} ({r.confidence:.2f})" for c, r in cells.items()
             if c not in TILES and r.state is CellState.TILE]
    assert not tiles
    wrong = [f"{c}: {cells[c].label()}" for c, (colour, piece) in TILES.items()
             if cells[c].state is not CellState.UNREADABLE and cells[c].label() != f"{colour.value} {piece}"]
    assert not wrong
