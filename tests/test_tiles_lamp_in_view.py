"""A lamp's sphere hung between the camera and the board: bright, smooth and pale over most of the board, it is the
median of the board's local whites, so the reader would take it for the paper and read the tiles behind it as empty
paper (seed 103 frame 26). The paper around the markers decoded in the frame is the board's paper by construction:
a board white far above it is no paper."""

import cv2
import numpy as np
import pytest
from test_tiles import grid_image
from tilefaces import P, centre, face

from thoughtwave.engine.cells import CELLS, Cell
from thoughtwave.engine.pieces import Colour
from thoughtwave.synth import Scene, render
from thoughtwave.vision.reading import CellState
from thoughtwave.vision.recognizer import Recognizer, brightest_paper, marker_papers
from thoughtwave.vision.stabiliser import GONE_CONFIDENCE_MIN
from thoughtwave.vision.tiles import MARKER_PAPER_RATIO, TileReader

TILES = {Cell.parse("B2"): face(Colour.RED, "new"), Cell.parse("F6"): face(Colour.BLACK, "sw"),
         Cell.parse("H8"): face(Colour.RED, "ns"), Cell.parse("E7"): face(Colour.BLACK, "nes")}
DIM = 0.12          # the board as auto exposure leaves it with a bright lamp in the middle of the picture
SPHERE = np.array([178.0, 200.0, 240.0])      # the lamp's own colour, as seen


def lamp_over(grid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``grid`` dimmed, with a pale disc over most of it (centred at F6, 4.2 cells in radius); and the disc's mask."""
    dim = grid.astype(np.float32) * DIM
    x, y = centre(Cell.parse("F6"))
    mask = np.zeros(grid.shape[:2], np.uint8)
    cv2.circle(mask, (int(x), int(y)), int(4.2 * P), 1, -1)
    dim[mask > 0] = SPHERE
    return np.clip(dim + 0.5, 0, 255).astype(np.uint8), mask.astype(bool)


def covered_cells(mask: np.ndarray) -> list[Cell]:
    return [c for c in CELLS if mask[int(centre(c)[1]), int(centre(c)[0])]]


def test_the_lamp_is_the_board_white_without_the_markers_and_hides_tiles_as_paper():
    grid, mask = lamp_over(grid_image(TILES))
    cells = TileReader().read(grid).cells()
    hidden = [c for c in TILES if c in covered_cells(mask)]
    assert hidden
    # What the reader does without the markers' paper: the tiles behind the lamp read as paper, sure of it.
    assert all(cells[c].state is CellState.EMPTY and cells[c].confidence >= GONE_CONFIDENCE_MIN for c in hidden)


def test_with_the_markers_paper_the_cells_behind_the_lamp_are_unreadable_not_paper():
    grid, mask = lamp_over(grid_image(TILES))
    paper = np.array([245.0, 248.0, 250.0]) * DIM            # the quiet zones' paper, under the same light
    reader = TileReader()
    readout = reader.read(grid, marker_paper=paper)
    cells = readout.cells()
    assert np.allclose(reader.paper_white, paper)
    behind = covered_cells(mask)
    for c in behind:
        assert cells[c].state is CellState.UNREADABLE, (c, cells[c])
        assert "lamp" in readout.why[c]
    # Unreadable, not occluded: a lamp stays, and the stabiliser takes the board around it after waiting out a hand.
    assert not readout.occluded.ravel()[[c.index for c in behind]].any()
    # The paper in view is paper, and a tile in view still reads.
    assert all(cells[c].state is not CellState.TILE for c in CELLS if c not in TILES)
    assert cells[Cell.parse("B2")].label() == "red new"


def test_the_markers_paper_changes_nothing_where_it_agrees_with_the_board():
    grid = grid_image(TILES)
    reader = TileReader()
    plain = reader.read(grid)
    for paper in (np.array([245.0, 248.0, 250.0]), np.array([245.0, 248.0, 250.0]) / (MARKER_PAPER_RATIO * 0.9)):
        again = reader.read(grid, marker_paper=paper)
        assert np.array_equal(again.state, plain.state) and np.array_equal(again.confidence, plain.confidence)


@pytest.fixture(scope="module")
def frame():
    return render(Scene.random(3, level=0.3))[0]


def test_marker_paper_is_the_quiet_zone_around_the_markers(frame):
    recognizer = Recognizer()
    assert recognizer.read(frame).board_found
    found = recognizer._seen.found
    white = brightest_paper(marker_papers(frame, found.marker_corners))
    assert white is not None and white.shape == (3,)
    # The board's paper white, measured on the grid, agrees with it (same paper, same light).
    ratio = float(np.mean(recognizer.reader.paper_white) + 1) / (float(white.mean()) + 1)
    assert 0.7 < ratio < 1.4
    assert marker_papers(frame, {}) == {} and brightest_paper({}) is None
