"""Empty paper under parallel soft shadow stripes (a blind's, a radiator grille's, a chair's slats) is never read as a
tile: a lit stripe through an empty cell's middle, shadow on both sides, looks in luminance like a black tile's cream
hub and wave on its dark body ("black ns" at 0.6-0.8 before), but its hub has the paper's hue, not the cream's."""

import numpy as np
import pytest
from test_tiles import grid_image
from tilefaces import P, centre, face

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
def misread(cells: dict, tiles: dict) -> tuple[list[str], list[str]]:
    """The empty cells read as tiles (with their confidence), and the tiles read as what they are not."""
    on_paper = [f"{c}: {r.label()} ({r.confidence:.2f})" for c, r in cells.items()
                if c not in tiles and r.state is CellState.TILE]
    wrong = [f"{c}: {cells[c].label()}" for c, (colour, piece) in tiles.items()
             if cells[c].state is not CellState.UNREADABLE and cells[c].label() != f"{colour.value} {piece}"]
    return on_paper, wrong


@pytest.mark.parametrize("depth, lit, shade, degrees", [
    (0.35, 0.25, 0.3, 0), (0.35, 0.35, 1.5, 45), (0.45, 0.25, 0.6, 30), (0.45, 0.15, 1.5, 0), (0.55, 0.25, 1.5, 0),
    (0.55, 0.25, 0.6, 45)])
def test_no_empty_cell_under_striped_shadows_reads_as_a_tile(board, depth, lit, shade, degrees):
    assert misread(TileReader().read(striped(board, depth, lit, shade, degrees)).cells(), TILES) == ([], [])


# A lattice of round soft shadows (a chair's or a lamp's parts over each tile) in a light whose shade is of another hue
# than the light on the paper (warm: the room's walls give it): empty paper between two shadows is a lit band through
# its middle, read "black ns" / "black ew" at 0.6-0.66 before. The band's mean hue in the hub takes the warm shade's
# beside it, near cream's; where lit fullest it is the paper's (``HUB_LIT_SHARE``).
LATTICE_PIECES = ("n", "ns", "ne", "nes", "nesw", "w", "sw", "ew")
LATTICE = {Cell(1 + (k // 4) * 4 + 2 * red, 1 + (k % 4) * 2): (Colour.RED if red else Colour.BLACK, piece)
           for k, piece in enumerate(LATTICE_PIECES) for red in (0, 1)}


def round_shadows(grid: np.ndarray, depth: float, radius: float, tint: tuple[float, float, float],
                  seed: int = 0) -> np.ndarray:
    """``grid`` under a soft round shadow ``radius`` cells wide round each of ``LATTICE``'s tiles, leaving ``depth`` of
    the light, the shade tinted ``tint`` (BGR) the deeper it is; camera noise from ``seed``."""
    yy, xx = np.mgrid[:grid.shape[0], :grid.shape[1]].astype(np.float32)
    light = np.ones(grid.shape[:2], np.float32)
    for cell in LATTICE:
        x, y = centre(cell)
        d = np.hypot(xx - x, yy - y) / P
        light = np.minimum(light, 1 - (1 - depth) * (0.5 - 0.5 * np.tanh((d - radius) / 0.06)))
    image = grid.astype(np.float32) * light[..., None] * np.asarray(tint, np.float32) ** (1 - light[..., None])
    image += np.random.default_rng(seed).normal(0, 3.0, image.shape)
    return np.clip(image, 0, 255).astype(np.uint8)


@pytest.fixture(scope="module")
def lattice() -> np.ndarray:
    return grid_image({c: face(*v) for c, v in LATTICE.items()})


@pytest.mark.parametrize("depth", [0.2, 0.25, 0.3, 0.35])
def test_no_empty_cell_between_round_shadows_in_warm_shade_reads_as_a_tile(lattice, depth):
    assert misread(TileReader().read(round_shadows(lattice, depth, 0.9, (0.8, 1.0, 1.3))).cells(), LATTICE) == ([], [])
