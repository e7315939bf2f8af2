"""The tile reader: every cell right or said unreadable, never a confident wrong reading."""

from dataclasses import replace

import cv2
import numpy as np
import pytest

from thoughtwave.engine.cells import CELLS, Cell
from thoughtwave.engine.pieces import Colour, Piece
from thoughtwave.synth import Scene, TileLay, render
from thoughtwave.vision.artwork import RED_BGR, WAVE_BGR, BoardLayout, board_image, tile_image
from thoughtwave.vision.causes import Cause
from thoughtwave.vision.finder import BoardFinder
from thoughtwave.vision.reading import CellState
from thoughtwave.vision.tiles import ColourModel, TileReader

LAYOUT = BoardLayout()


def read_frame(frame: np.ndarray):
    finder = BoardFinder()
    found = finder.find(frame)
    assert found.found
    return TileReader(finder.geometry).read(finder.warp(frame, found.pose))


def tally(readout, truth, skip=frozenset()) -> tuple[list[str], int]:
    """(wrong cells as text, number unreadable) over the cells not in ``skip``."""
    wrong, unreadable = [], 0
    for cell, reading in readout.cells().items():
        if cell in skip:
            continue
        colour_piece = truth.tiles.get(cell)
        expected = f"{colour_piece[0].value} {colour_piece[1]}" if colour_piece else "empty"
        if reading.state is CellState.UNREADABLE:
            unreadable += 1
        elif reading.label() != expected:
            wrong.append(f"{cell}: {reading.label()} (is {expected})")
    return wrong, unreadable


@pytest.mark.parametrize("seed", [11, 12])
def test_a_clean_frame_reads_exactly(seed):
    frame, truth = render(Scene.random(seed, level="clean", hand=False))
    assert truth.tiles, "the seed should lay some tiles"
    wrong, unreadable = tally(read_frame(frame), truth)
    assert wrong == [] and unreadable == 0


@pytest.mark.parametrize(("seed", "level"), [(21, "mild"), (22, "mild"), (23, "medium"), (24, "medium"),
                                             (25, "medium")])
def test_disturbed_frames_are_right_or_unreadable_never_wrong(seed, level):
    frame, truth = render(Scene.random(seed, level=level, hand=False))
    wrong, unreadable = tally(read_frame(frame), truth)
    assert wrong == []
    assert unreadable <= 5          # a few doubtful cells at most


@pytest.mark.parametrize("level", ["clean", "medium"])
def test_an_empty_board_reads_empty(level):
    frame, _ = render(Scene.random(31, tiles={}, level=level, hand=False))
    states = read_frame(frame).state
    assert not np.any(states == 1)
    assert np.sum(states == 0) >= (100 if level == "clean" else 97)


def test_tiles_pushed_off_centre_and_turned_are_read():
    tiles = {Cell.parse(name): (colour, Piece.parse(piece)) for name, colour, piece in [
        ("B2", Colour.RED, "nes"), ("E2", Colour.BLACK, "n"), ("H2", Colour.RED, "ew"),
        ("B5", Colour.BLACK, "nesw"), ("E5", Colour.RED, "sw"), ("H5", Colour.BLACK, "esw"),
        ("B8", Colour.RED, "ns"), ("E8", Colour.BLACK, "ne"), ("J10", Colour.RED, "w"), ("A10", Colour.BLACK, "e"),
    ]}
    pushes = [(0.2, 0.2), (-0.2, 0.2), (0.2, -0.2), (-0.2, -0.2), (0.2, 0.0), (0.0, -0.2), (-0.15, 0.1),
              (0.1, 0.15), (0.2, 0.2), (-0.2, -0.2)]
    lays = {cell: TileLay(push, turn) for (cell, push, turn) in
            zip(sorted(tiles), pushes, [15, -15, 15, -15, 8, -8, 15, -15, 12, -12], strict=True)}
    scene = replace(Scene.random(41, tiles=tiles, level="clean", hand=False), lays=lays)
    frame, truth = render(scene)
    readout = read_frame(frame)
    wrong, unreadable = tally(readout, truth)
    assert wrong == [] and unreadable == 0
    # The reader found each tile where it lies: centre within a tenth of a cell, turn within 4 degrees.
    finder = BoardFinder()
    p, m = finder.geometry.px_per_cell, finder.geometry.margin_px
    for cell, lay in lays.items():
        cx, cy = readout.centre[cell.row, cell.col]
        assert abs((cx + 0.5 - m) / p - (cell.col + 0.5 + lay.offset[0])) < 0.1
        assert abs((cy + 0.5 - m) / p - (cell.row + 0.5 + lay.offset[1])) < 0.1
        assert abs(np.degrees(readout.angle[cell.index]) - lay.turn_deg) < 4


def test_a_hand_makes_its_cells_unreadable_and_occluded():
    frame, truth = render(Scene.random(57, level="mild", hand=True))
    assert len(truth.occluded_cells) >= 5
    readout = read_frame(frame)
    wrong, _ = tally(readout, truth)
    assert wrong == []                                        # not under the hand, nor beneath it
    covered = [c for c in truth.occluded_cells if truth.occlusion[c] > 0.6]
    assert all(readout.state[c.row, c.col] == 2 for c in covered)
    reading = readout.board_reading()
    assert reading.occluded
    assert len(reading.occluded_cells & truth.occluded_cells) >= len(covered) // 2


# -- the reader on a printed board without a camera: one tile at a time ---------------------------

def grid_image(tiles: dict[Cell, np.ndarray], ppm: float = 4.0) -> np.ndarray:
    """A top-down grid image (as the finder's warp gives) of the printed board with tile faces laid."""
    board = board_image(LAYOUT, ppm).copy()
    for cell, face in tiles.items():
        cx, cy = LAYOUT.cell_center_mm(cell)
        size = face.shape[0]
        x0, y0 = int(round(cx * ppm - size / 2)), int(round(cy * ppm - size / 2))
        board[y0:y0 + size, x0:x0 + size] = face
    finder = BoardFinder()
    to_board = np.array([[ppm, 0, -0.5], [0, ppm, -0.5], [0, 0, 1]]) @ finder.grid_to_mm()
    size = finder.geometry.size
    return cv2.warpPerspective(board, to_board, (size, size), flags=cv2.INTER_AREA | cv2.WARP_INVERSE_MAP)


def face(colour: Colour, piece: str, ppm: float = 4.0) -> np.ndarray:
    return tile_image(colour, Piece.parse(piece), int(round(LAYOUT.tile_mm * ppm))).copy()


def paint_dots(image: np.ndarray, bgr: tuple[int, int, int]) -> np.ndarray:
    size = image.shape[0]
    for fx in (0.17, 0.83):
        for fy in (0.17, 0.83):
            cv2.circle(image, (int(fx * size), int(fy * size)), int(0.08 * size), bgr, -1)
    return image


def test_every_piece_in_both_colours_reads_from_the_print():
    pieces = [str(Piece(arms)) for arms in range(1, 16)]
    tiles, expected = {}, {}
    for i, piece in enumerate(pieces):
        for j, colour in enumerate(Colour):
            cell = CELLS[(2 * i + j) * 3 % 100]
            tiles[cell] = face(colour, piece)
            expected[cell] = f"{colour.value} {piece}"
    cells = TileReader().read(grid_image(tiles)).cells()
    assert {c: cells[c].label() for c in expected} == expected
    assert all(cells[c].state is CellState.EMPTY for c in CELLS if c not in tiles)


def test_colour_needs_both_cues():
    red_without_dots = paint_dots(face(Colour.RED, "ew"), RED_BGR)
    black_with_dots = paint_dots(face(Colour.BLACK, "ew"), WAVE_BGR)
    honest = face(Colour.RED, "ew")
    cells = TileReader().read(grid_image({Cell.parse("C3"): red_without_dots, Cell.parse("F3"): black_with_dots,
                                          Cell.parse("C7"): honest})).cells()
    assert cells[Cell.parse("C3")].state is CellState.UNREADABLE
    assert cells[Cell.parse("F3")].state is CellState.UNREADABLE
    assert cells[Cell.parse("C7")].label() == "red ew"


def test_a_black_tile_with_cream_blurred_into_a_corner_or_two_is_black_but_not_into_all_four():
    # A small cell's blur spreads cream (a wave's channel, the paper past the edge) into a black tile's corner or two,
    # lifting the mean of its four corners between black's and red's dots: its dimmer two are still its body's ink.
    # All four lifted is a red tile's pattern of dots: not black (``corners_black``).
    def lifted(corners: int) -> np.ndarray:
        tile = face(Colour.BLACK, "ew")
        size = tile.shape[0]
        grey = tuple(int(round(v)) for v in 0.5 * tile[size // 2, int(0.3 * size)].astype(float)
                     + 0.5 * np.array(WAVE_BGR))
        for fx, fy in [(0.17, 0.17), (0.83, 0.17), (0.17, 0.83), (0.83, 0.83)][:corners]:
            cv2.circle(tile, (int(fx * size), int(fy * size)), int(0.08 * size), grey, -1)
        return tile

    rules = TileReader()
    rules.second = None
    cells = rules.read(grid_image({Cell.parse("C3"): lifted(1), Cell.parse("F3"): lifted(2),
                                   Cell.parse("C7"): lifted(4)})).cells()
    assert cells[Cell.parse("C3")].label() == cells[Cell.parse("F3")].label() == "black ew"
    assert cells[Cell.parse("C7")].state is CellState.UNREADABLE


def test_a_body_red_in_every_quarter_needs_no_more_than_one_dot():
    # A red tile with one corner dot dark (a speck of ink, blur taking a small dot against its ring): red by its body,
    # red in all four quarters, and by the dots that show. A black tile reddened on one side (a red neighbour's ink
    # over its west half, two of that neighbour's dots with it) is red there only: it stays unreadable.
    spotted = face(Colour.RED, "ew")
    size = spotted.shape[0]
    cv2.circle(spotted, (int(0.17 * size), int(0.17 * size)), int(0.08 * size), (35, 35, 35), -1)
    half_red = face(Colour.BLACK, "ew")
    band = half_red[:, : size // 2]
    band[(band.astype(int).sum(axis=2) < 300)] = RED_BGR
    for fy in (0.17, 0.83):
        cv2.circle(half_red, (int(0.17 * size), int(fy * size)), int(0.06 * size), WAVE_BGR, -1)
    rules = TileReader()
    rules.second = None
    cells = rules.read(grid_image({Cell.parse("C3"): spotted, Cell.parse("F6"): half_red})).cells()
    assert cells[Cell.parse("C3")].label() == "red ew"
    assert cells[Cell.parse("F6")].state is CellState.UNREADABLE


def test_four_cream_dots_say_red_where_the_hue_abstains_and_a_black_tile_so_tinted_stays_black():
    # Glare, shade, blur or a small tile's mixing can pale a red body toward the redness split, where the hue abstains;
    # no light prints cream at each of a black tile's four plain corners, so the four dots say red. A black tile whose
    # ink is tinted as far toward red (into the hue's gap) shows no dots and is never read red.
    cell = Cell.parse("E5")
    geometry = BoardFinder().geometry
    size = geometry.px_per_cell
    x0 = geometry.margin_px + 4 * size                  # E5: the fifth column and row

    def in_gap(colour: Colour, piece: str, paled: float, tint: int) -> np.ndarray:
        grid = grid_image({cell: face(colour, piece)}).astype(np.float32)
        square = grid[x0:x0 + size, x0:x0 + size]
        square[:] = paled * square + (1 - paled) * square.mean(axis=2, keepdims=True)
        square[..., 2] += np.where(square.max(axis=2) < 120, tint, 0)
        return np.clip(grid, 0, 255).astype(np.uint8)

    model = ColourModel()
    for piece in ("ns", "new"):
        for paled in (0.22, 0.25, 0.3):
            reader = TileReader()
            assert reader.read(in_gap(Colour.RED, piece, paled, 0)).cells()[cell].label() == f"red {piece}", paled
            assert abs(reader.measures["body_red"][cell.index] - model.redness_split) <= model.redness_gap
        for tint in (30, 40, 45):
            reader = TileReader()
            got = reader.read(in_gap(Colour.BLACK, piece, 1.0, tint)).cells()[cell]
            assert not got.label().startswith("red"), (piece, tint)


def test_a_smudged_arm_is_doubt_not_a_guess():
    smudged = face(Colour.BLACK, "nes")
    size = smudged.shape[0]
    # Grey over the east arm: neither wave nor blank.
    smudged[int(0.4 * size):int(0.6 * size), int(0.6 * size):] = (130, 130, 130)
    cells = TileReader().read(grid_image({Cell.parse("E5"): smudged})).cells()
    assert cells[Cell.parse("E5")].state is CellState.UNREADABLE


def test_the_colour_model_comes_from_a_profile_and_ignores_nonsense():
    model = ColourModel.from_profile({"colour_model": {"redness_split": 0.2, "bogus": 1, "red_min": "x",
                                                       "dot_red_min": float("nan")}})
    assert model.redness_split == 0.2
    assert model.red_min == ColourModel().red_min and model.dot_red_min == ColourModel().dot_red_min
    assert ColourModel.from_profile(None) == ColourModel()
    assert ColourModel.from_profile({"colour_model": [1, 2]}) == ColourModel()


def test_cells_the_pose_may_misplace_read_no_tile_and_far_off_nothing():
    frame, truth = render(Scene.random(11, level="clean", hand=False))
    finder = BoardFinder()
    grid = finder.warp(frame, finder.find(frame).pose)
    reader = TileReader(finder.geometry)
    tiles = [c.index for c in truth.tiles]
    empties = [c.index for c in CELLS if c not in truth.tiles]
    assert tiles and empties
    # A fifth of a cell or more off: an arm's inner half may lie on the hub, so no tile is read there;
    # an empty cell would still show a misplaced tile's ink in its middle, so it reads empty.
    some = reader.read(grid, doubt=np.full(100, 0.3))
    assert all(some.state.ravel()[i] == 2 for i in tiles)
    assert all(some.state.ravel()[i] == 0 for i in empties)
    assert all("markers" in some.why[CELLS[i]] for i in tiles)
    # A sharp picture: the markers that would fix the pose are hidden, not smeared.
    assert {some.causes[CELLS[i]] for i in tiles} == {Cause.HAND}
    # Half a cell or more off: nothing is read.
    assert np.all(reader.read(grid, doubt=np.full(100, 0.6)).state == 2)
    # No doubt: the frame reads exactly, as without the argument.
    wrong, unreadable = tally(reader.read(grid, doubt=np.zeros(100)), truth)
    assert wrong == [] and unreadable == 0
