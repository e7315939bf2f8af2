"""The printed artwork: board geometry, markers found where the layout says, tiles a reader can tell apart."""

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from thoughtwave.engine.cells import CELLS, Cell
from thoughtwave.engine.pieces import ALL_PIECES, DIRECTIONS, Colour, E, N, Piece, S, W
from thoughtwave.engine.sides import Sides
from thoughtwave.vision.artwork import (
    ARUCO_DICTIONARY,
    BLACK_BGR,
    PAPER_BGR,
    RED_BGR,
    WAVE_BGR,
    BoardLayout,
    board_image,
    tile_image,
)

PPM = 4.0  # px per mm: enough for the detector, small enough to keep the tests fast


@pytest.fixture(scope="module")
def layout() -> BoardLayout:
    return BoardLayout()


@pytest.fixture(scope="module")
def board(layout: BoardLayout) -> np.ndarray:
    return board_image(layout, PPM)


def _cell_px(layout: BoardLayout, cell: Cell, ppm: float = PPM) -> np.ndarray:
    """The pixels strictly inside a cell's tile footprint."""
    (x0, y0), (x1, y1) = layout.cell_corners_mm(cell)[0], layout.cell_corners_mm(cell)[2]
    return np.s_[int(np.ceil(y0 * ppm)) + 1:int(y1 * ppm) - 1, int(np.ceil(x0 * ppm)) + 1:int(x1 * ppm) - 1]


@pytest.mark.parametrize("cell_mm", [19.9, 40.5, 0, -25, float("nan"), "25", True])
def test_cell_size_outside_20_to_40_mm_is_refused(cell_mm):
    with pytest.raises(ValueError):
        BoardLayout(cell_mm)


@pytest.mark.parametrize("cell_mm", [20.0, 25.0, 32.5, 40.0])
def test_grid_is_centred_and_cells_tile_it(cell_mm):
    layout = BoardLayout(cell_mm)
    gx, gy = layout.grid_origin_mm
    assert gx == pytest.approx(layout.width_mm - gx - 10 * cell_mm)
    assert gy == pytest.approx(layout.height_mm - gy - 10 * cell_mm)
    assert layout.cell_center_mm(Cell.parse("A1")) == pytest.approx((gx + cell_mm / 2, gy + cell_mm / 2))
    assert layout.cell_center_mm(Cell.parse("J1"))[0] > layout.cell_center_mm(Cell.parse("A1"))[0]  # east is +x
    assert layout.cell_center_mm(Cell.parse("A10"))[1] > layout.cell_center_mm(Cell.parse("A1"))[1]  # south is +y
    corners = layout.cell_corners_mm(Cell.parse("E5"))
    assert corners.shape == (4, 2) and corners.dtype == np.float32
    assert corners.mean(axis=0) == pytest.approx(layout.cell_center_mm(Cell.parse("E5")))
    assert corners[1][0] - corners[0][0] == pytest.approx(cell_mm)  # TL -> TR runs east
    assert corners[3][1] - corners[0][1] == pytest.approx(cell_mm)  # TL -> BL runs south
    assert layout.tile_mm == pytest.approx(0.96 * cell_mm)


@pytest.mark.parametrize("cell_mm", [20.0, 25.0, 40.0])
def test_eight_markers_lie_outside_the_grid_inside_the_sheet_and_apart(cell_mm):
    layout = BoardLayout(cell_mm)
    assert [m.id for m in layout.markers] == list(range(8))
    gx, gy = layout.grid_origin_mm
    boxes = []
    for m in layout.markers:
        c = m.corners_mm()
        assert c.dtype == np.float32 and c.shape == (4, 2)
        assert c[1][0] > c[0][0] and c[2][1] > c[1][1] and c[3][0] < c[2][0]  # TL, TR, BR, BL
        quiet = m.size_mm / 6
        x0, y0, x1, y1 = c[0][0] - quiet, c[0][1] - quiet, c[2][0] + quiet, c[2][1] + quiet
        assert x0 >= -1e-4 and y0 >= -1e-4 and x1 <= layout.width_mm + 1e-4 and y1 <= layout.height_mm + 1e-4
        off_grid = x1 <= gx or x0 >= gx + 10 * cell_mm or y1 <= gy or y0 >= gy + 10 * cell_mm
        assert off_grid, f"marker {m.id} overlaps the grid"
        boxes.append((x0, y0, x1, y1))
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]
    assert layout.markers[0].size_mm == pytest.approx(1.2 * cell_mm)


def test_board_image_has_the_contract_shape(layout, board):
    assert board.dtype == np.uint8
    assert board.shape == (round(layout.height_mm * PPM), round(layout.width_mm * PPM), 3)


def test_detector_finds_every_marker_where_the_layout_says(layout, board):
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(ARUCO_DICTIONARY),
                                       cv2.aruco.DetectorParameters())
    corners, ids, _ = detector.detectMarkers(board)
    assert ids is not None and sorted(ids.ravel().tolist()) == list(range(8))
    for found, marker_id in zip(corners, ids.ravel(), strict=True):
        expected = layout.markers[marker_id].corners_mm() * PPM - 0.5  # mm -> OpenCV pixel coordinates
        assert np.abs(found[0] - expected).max() < 1.5


def test_empty_cells_are_almost_all_paper(layout, board):
    paper = np.array(PAPER_BGR, np.int16)
    for cell in CELLS:
        patch = board[_cell_px(layout, cell)].astype(np.int16)
        near_paper = (np.abs(patch - paper).max(axis=2) < 40).mean()
        assert near_paper > 0.95, f"{cell} is only {near_paper:.0%} paper"


def _bar_colour(board: np.ndarray, layout: BoardLayout, direction: int) -> np.ndarray:
    gx, gy = layout.grid_origin_mm
    g = 10 * layout.cell_mm
    step = 0.11 * layout.cell_mm  # into the middle of the colour bar
    x, y = {N: (gx + g / 2 + 13, gy - step), S: (gx + g / 2 + 13, gy + g + step),
            W: (gx - step, gy + g / 2 + 13), E: (gx + g + step, gy + g / 2 + 13)}[direction]
    return board[int(y * PPM), int(x * PPM)].astype(int)


@pytest.mark.parametrize("red_sides, red, black", [(Sides.WE, (W, E), (N, S)), (Sides.NS, (N, S), (W, E))])
def test_colour_bars_mark_the_sides_each_player_joins(layout, red_sides, red, black):
    image = board_image(layout, PPM, red_sides=red_sides)
    for d in red:
        assert tuple(_bar_colour(image, layout, d)) == RED_BGR
    for d in black:
        assert tuple(_bar_colour(image, layout, d)) == BLACK_BGR


def test_red_sides_may_be_given_in_their_notation(layout):
    assert np.array_equal(board_image(layout, 1.0, red_sides="ns"), board_image(layout, 1.0, red_sides=Sides.NS))


def test_unknown_red_sides_are_refused(layout):
    with pytest.raises(ValueError):
        board_image(layout, 1.0, red_sides="NE")


SIZE_PX = 60


@pytest.fixture(scope="module")
def tiles() -> dict[tuple[Colour, Piece], np.ndarray]:
    return {(c, p): tile_image(c, p, SIZE_PX) for c in Colour for p in ALL_PIECES}


def test_tile_image_shape_and_background(tiles):
    for (colour, _), image in tiles.items():
        assert image.shape == (SIZE_PX, SIZE_PX, 3) and image.dtype == np.uint8
        expected = RED_BGR if colour is Colour.RED else BLACK_BGR
        assert tuple(image[SIZE_PX // 2, 1]) in (expected, WAVE_BGR)


def _edge_midpoint(image: np.ndarray, direction: int) -> tuple[int, ...]:
    n = image.shape[0]
    y, x = {N: (0, n // 2), S: (n - 1, n // 2), W: (n // 2, 0), E: (n // 2, n - 1)}[direction]
    return tuple(int(v) for v in image[y, x])


def test_the_wave_reaches_exactly_the_armed_edges(tiles):
    for (colour, piece), image in tiles.items():
        background = RED_BGR if colour is Colour.RED else BLACK_BGR
        for d in DIRECTIONS:
            assert _edge_midpoint(image, d) == (WAVE_BGR if piece.has(d) else background), (colour, piece, d)


def test_every_tile_is_distinct(tiles):
    images = list(tiles.values())
    for i, a in enumerate(images):
        for b in images[i + 1:]:
            assert np.abs(a.astype(int) - b.astype(int)).mean() > 5


def test_red_and_black_differ_in_hue_and_in_shape():
    for piece in ALL_PIECES:
        red = tile_image(Colour.RED, piece, SIZE_PX)
        black = tile_image(Colour.BLACK, piece, SIZE_PX)
        # hue: red tiles are red where black tiles are grey
        assert red[..., 2].astype(int).mean() - black[..., 2].astype(int).mean() > 60
        # shape: the dots stay visible in grey (glare, a bad printer): bright near the corners on red only
        for image, dotted in ((red, True), (black, False)):
            grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
            spot = grey[int(0.17 * SIZE_PX), int(0.17 * SIZE_PX)]
            assert (spot > 180) == dotted


def test_tiles_are_largely_dark_or_saturated_and_unlike_an_empty_cell(tiles):
    empty = np.empty((SIZE_PX, SIZE_PX, 3), np.uint8)
    empty[:] = PAPER_BGR
    for key, image in tiles.items():
        hsv = cv2.cvtColor(image, cv2.COLOR_BGR2HSV)
        dark_or_saturated = ((hsv[..., 2] < 120) | (hsv[..., 1] > 120)).mean()
        # a cross has the most wave: arms 0.51 of the face, plus hub and dots, leaving ~44% background
        assert dark_or_saturated >= 0.4, key
        assert np.abs(image.astype(int) - empty.astype(int)).max(axis=2).mean() > 80, key


def test_a_terminator_is_hub_plus_one_arm():
    image = tile_image(Colour.BLACK, Piece.parse("n"), 100)
    assert tuple(image[50, 50]) == WAVE_BGR  # hub
    assert tuple(image[50, 76]) == BLACK_BGR  # beyond the hub (radius 22) to the east: no arm
    assert tuple(image[10, 50]) == WAVE_BGR  # the north arm


@settings(max_examples=60, deadline=None)
@given(size=st.integers(16, 160), colour=st.sampled_from(list(Colour)), piece=st.sampled_from(ALL_PIECES))
def test_at_any_size_the_wave_reaches_exactly_the_armed_edges(size, colour, piece):
    image = tile_image(colour, piece, size)
    assert image.shape == (size, size, 3)
    background = RED_BGR if colour is Colour.RED else BLACK_BGR
    for d in DIRECTIONS:
        assert _edge_midpoint(image, d) == (WAVE_BGR if piece.has(d) else background)
