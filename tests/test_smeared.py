"""A frame smeared by a shaken camera: the cells the smear keeps from being read are read again from the board
with the finder's motion blur deconvolved, right and never wrong; other cells, and sharp frames, are untouched."""

from dataclasses import replace

import cv2
import numpy as np
import pytest

from thoughtwave.engine.cells import CELLS, Cell
from thoughtwave.synth import Scene, render
from thoughtwave.synth.camera import Optics
from thoughtwave.vision.causes import Cause
from thoughtwave.vision.deblur import Motion, deblurred_colour, line_psf
from thoughtwave.vision.reading import CellState
from thoughtwave.vision.recognizer import Recognizer
from thoughtwave.vision.smeared import (
    SMEARED_TILE_MIN,
    board_box,
    cell_boxes,
    deblurred_frame,
    restore_unsure,
    smeared_cells,
    take_sharper,
    unsure_tiles_smeared,
)
from thoughtwave.vision.stabiliser import GONE_CONFIDENCE_MIN
from thoughtwave.vision.tilemodel import TileReadout
from thoughtwave.vision.tiles import TileReader


def smeared(seed: int, length: float, angle: float):
    scene = Scene.random(seed, level="medium", hand=False, resolution=(960, 720))
    return render(replace(scene, optics=Optics(motion_px=length, motion_angle_deg=angle)))


def readout(state: int, causes: dict[Cell, Cause] | None = None) -> TileReadout:
    why = {c: "smeared" for c in CELLS} if state == 2 else {}
    return TileReadout(np.full((10, 10), state), np.full((10, 10), 5), np.zeros((10, 10), bool),
                       np.full((10, 10), 0.9 if state != 2 else 0.0, np.float32), np.zeros((10, 10), bool),
                       np.zeros((10, 10, 2)), np.zeros((10, 10)), why, causes=dict(causes or {}))


def test_cells_the_smear_hid_are_read_right_from_the_deconvolved_board():
    # (A 10 px shake: the 9 px one of scene 1 the smeared picture now reads nearly whole by itself, below.)
    frame, truth = smeared(3, 10.0, 37.0)
    recognizer = Recognizer()
    reading = recognizer.read(frame)
    assert reading.board_found
    # What the smeared picture alone gives with the same pose: many cells unreadable for the motion.
    pose = recognizer.pose
    alone = TileReader().read(recognizer.finder.warp(frame, pose), moved=True,
                              doubt=recognizer.finder.cell_doubt(pose))
    hidden = [c for c, cause in alone.causes.items() if cause is Cause.MOTION]
    assert len(hidden) >= 10
    expected = truth.board_state()
    now_right = [c for c in hidden if reading.get(c).state is not CellState.UNREADABLE
                 and reading.get(c).label() == expected.get(str(c), "empty")]
    assert len(now_right) >= 8
    wrong = [c for c in CELLS if reading.get(c).state is not CellState.UNREADABLE
             and reading.get(c).label() != expected.get(str(c), "empty")]
    assert wrong == []
    # A cell still unreadable keeps its cause.
    assert all(reading.causes.get(c) is not None for c in CELLS if reading.get(c).state is CellState.UNREADABLE)


def test_only_unreadable_cells_named_motion_take_the_sharper_reading():
    e5, a1, b2 = Cell.parse("E5"), Cell.parse("A1"), Cell.parse("B2")
    first = readout(2, {e5: Cause.MOTION, a1: Cause.HAND, b2: Cause.MOTION})
    first.state[b2.row, b2.col] = 0                      # already read: kept whatever the second picture says
    cells = smeared_cells(first)
    assert cells == [e5.index]
    second = readout(1)
    second.arms[e5.row, e5.col] = 9
    assert take_sharper(first, second, cells) == 1
    assert first.state[e5.row, e5.col] == 1 and first.arms[e5.row, e5.col] == 9
    assert e5 not in first.causes and e5 not in first.why
    assert first.causes[a1] is Cause.HAND and first.state[a1.row, a1.col] == 2


def test_an_unsure_second_reading_leaves_the_cell_unreadable_with_its_cause():
    e5 = Cell.parse("E5")
    first = readout(2, {e5: Cause.MOTION})
    assert take_sharper(first, readout(2), smeared_cells(first)) == 0
    assert first.causes[e5] is Cause.MOTION and first.state[e5.row, e5.col] == 2


def test_a_sharp_frame_reads_as_the_reader_reads_its_warp():
    frame, _ = render(Scene.random(3, level="medium", hand=True, resolution=(960, 720)))
    recognizer = Recognizer()
    reading = recognizer.read(frame)
    assert reading.board_found and Cause.MOTION not in set(reading.causes.values())
    pose = recognizer.pose
    # (With the paper round the markers the recogniser gives it: tests of the paper's hue beside a hand ask it.)
    papers = recognizer._marker_paper(frame, recognizer._seen.found.marker_corners)
    direct = TileReader().read(recognizer.finder.warp(frame, pose),
                               doubt=recognizer.finder.cell_doubt(pose), **papers).board_reading()
    assert {c: reading.get(c).label() for c in CELLS} == {c: direct.get(c).label() for c in CELLS}


def test_the_box_reaches_past_the_board_by_the_blur_and_stays_in_the_frame():
    corners = np.array([[100.0, 120.0], [500.0, 110.0], [510.0, 470.0], [90.0, 480.0]])
    x0, y0, x1, y1 = board_box(corners, Motion(8.0, 30.0), (720, 960, 3))
    assert x0 <= 90 - 16 and y0 <= 110 - 16 and x1 >= 510 + 16 and y1 >= 480 + 16
    assert board_box(corners * 2, Motion(8.0, 30.0), (720, 960, 3))[2:] == (960, 720)


def test_a_few_cells_are_deconvolved_each_with_its_surroundings_and_nothing_else():
    frame, _ = smeared(1, 9.0, 37.0)
    motion = Motion(9.0, 37.0)
    steps = np.arange(11) * 55.0
    corners = np.stack(np.meshgrid(200 + steps, 80 + steps), axis=-1)            # cells 55 px wide, row by row
    box = board_box(corners.reshape(-1, 2), motion, frame.shape)
    parts = cell_boxes(corners, [0, 55], motion, frame.shape)
    assert parts[0][0] == (172, 52, 283, 163)                                    # A1 and half a cell around it
    x0, y0, x1, y1 = parts[0][1]
    assert x0 <= 172 - 30 and y1 >= 163 + 30                                     # ... widened by the blur's reach
    few, whole = deblurred_frame(frame, motion, box, parts), deblurred_frame(frame, motion, box)
    kept = np.zeros(frame.shape[:2], bool)
    for (u0, v0, u1, v1), _ in parts:
        kept[v0:v1, u0:u1] = True
    assert np.array_equal(few[~kept], frame[~kept])
    # Inside, what the whole board's deconvolution gives (away from the board's own border, F6), but for faint ringing
    # (0.9 grey levels on average; the smeared picture is 29 away).
    u0, v0, u1, v1 = parts[1][0]
    assert np.mean(np.abs(few[v0:v1, u0:u1].astype(int) - whole[v0:v1, u0:u1])) < 2.0
    # Many cells cost as much as the board: then the board is deconvolved whole.
    assert np.array_equal(deblurred_frame(frame, motion, box, cell_boxes(corners, list(range(40)), motion,
                                                                         frame.shape)), whole)


def test_deconvolving_colour_undoes_a_known_blur_on_every_channel():
    rng = np.random.default_rng(7)
    # Blocks of a different colour in each channel (8 px blocks, wider than the blur).
    sharp = np.kron(rng.integers(30, 230, (30, 33, 3)), np.ones((8, 8, 1))).astype(np.uint8)
    motion = Motion(6.0, 60.0)
    linear = np.power(sharp / 255.0, 2.2).astype(np.float32)
    kernel = line_psf(motion.length_px, motion.angle_deg)
    blurred = np.stack([cv2.filter2D(linear[..., c], -1, kernel, borderType=cv2.BORDER_REFLECT) for c in range(3)], -1)
    blurred = (np.power(blurred, 1 / 2.2) * 255 + 0.5).astype(np.uint8)
    restored = deblurred_colour(blurred, motion)
    inner = (slice(16, -16), slice(16, -16))
    assert restored.shape == sharp.shape
    for c in range(3):
        before = np.abs(blurred[inner][..., c].astype(int) - sharp[inner][..., c]).mean()
        after = np.abs(restored[inner][..., c].astype(int) - sharp[inner][..., c]).mean()
        assert after < 0.85 * before


@pytest.mark.parametrize(("scene", "length", "angle", "cell", "label"), [
    # An 8.4 px smear at 137 degrees left G3's east and west waves at a third of the way to cream: read "black n",
    # a black new. Blur closes ink over a wave's narrow channel, so a blank side needs more in a blurred picture.
    (14363, 8.37, 136.7, "G3", "black new"),
    # Seed 11's sweep, scene 76624, smeared 7.4 px nearly along x: read from the smeared picture, I10 (a black nsw)
    # came out "black nw" at 0.51, its south wave's end smeared into the body. Left to the board deconvolved (a tile
    # the smeared picture reads unsurely), it reads right.
    (76624, 7.424837438193826, 174.73223321204236, "I10", "black nsw"),
])
def test_a_wave_a_smear_hides_is_never_read_blank(scene, length, angle, cell, label):
    frame, truth = smeared(scene, length, angle)
    reading = Recognizer().read(frame)
    expected = truth.board_state()
    said = {c: reading.get(c).label() for c in CELLS if reading.get(c).state is not CellState.UNREADABLE}
    assert [c for c, got in said.items() if got != expected.get(str(c), "empty")] == []
    assert said.get(Cell.parse(cell)) in (None, label)


def test_a_smeared_frames_unsure_tiles_go_to_the_reread_and_keep_their_reading_where_it_says_nothing():
    got = readout(1)
    got.confidence[2, 3] = got.confidence[5, 5] = SMEARED_TILE_MIN - 0.01
    got.confidence[4, 4] = SMEARED_TILE_MIN
    unsure = unsure_tiles_smeared(got)
    d3, f6 = Cell.parse("D3"), Cell.parse("F6")
    assert sorted(unsure) == [d3.index, f6.index] and (got.state == 2).sum() == 2
    assert got.causes[d3] is Cause.MOTION and smeared_cells(got) == [d3.index, f6.index]
    again = readout(1)
    again.arms[:] = 7
    again.state[5, 5] = 2                          # the deconvolved board reads D3 surely, F6 not
    take_sharper(got, again, smeared_cells(got))
    assert restore_unsure(got, unsure) == 1
    assert got.state[5, 5] == 1 and got.confidence[5, 5] == pytest.approx(SMEARED_TILE_MIN - 0.01)
    assert f6 not in got.why and f6 not in got.causes and got.arms[5, 5] == 5
    assert got.state[2, 3] == 1 and got.arms[2, 3] == 7


def test_a_smeared_tile_read_as_surely_as_seed_83s_misread_goes_to_the_reread():
    # Seed 83 frame 174 J7, a black nes smeared 8.1 px with a hand's shadow over its east wave's end: read "black ns"
    # at 0.63 from the smeared picture; the board deconvolved reads it right.
    got = readout(1)
    got.confidence[6, 9] = 0.63
    assert list(unsure_tiles_smeared(got)) == [Cell.parse("J7").index]


def test_a_smeared_picture_reads_its_red_tiles_whose_dots_the_smear_darkened():
    # A 9 px shake at 37 degrees carries the bands' cream into the corner dots' rings: a red tile's dots read dark
    # against them, and no longer deny the second opinion red. The smeared picture alone reads nearly every cell (it
    # left 17 to the deconvolved re-read before), and none wrong.
    frame, truth = smeared(1, 9.0, 37.0)
    recognizer = Recognizer()
    assert recognizer.read(frame).board_found
    pose = recognizer.pose
    alone = TileReader().read(recognizer.finder.warp(frame, pose), moved=True,
                              doubt=recognizer.finder.cell_doubt(pose)).cells()
    expected = truth.board_state()
    read = [c for c in CELLS if alone[c].state is not CellState.UNREADABLE]
    assert len(read) >= 95
    assert all(alone[c].label() == expected.get(str(c), "empty") for c in read)


def test_no_empty_cell_of_a_smeared_frame_is_read_surely_enough_to_take_a_tile_off():
    # Seed 179 frame 81 D7: a red nw under a pale hand in a frame smeared 5.5 px, read empty at 1.00 (the rules saw no
    # hand, the networks saw the cell uncovered). A smear wipes out what tells paper from pale skin over a tile: once
    # one is known, the finder's (markers deconvolved) or measured on the markers, paper reads at 0.60 at most, too
    # unsure to take a tile off; a still frame reads it surely.
    def empties(frame):
        recognizer = Recognizer()
        reading = recognizer.read(frame)
        assert reading.board_found
        papers = [reading.get(c).confidence for c in CELLS if reading.get(c).state is CellState.EMPTY]
        return recognizer, papers

    _, papers = empties(smeared(3, 0.0, 0.0)[0])
    assert len(papers) >= 30 and max(papers) >= GONE_CONFIDENCE_MIN
    for length, angle, deconvolved in ((10.0, 37.0, True), (6.82, 58.5, False)):
        frame, _ = smeared(3 if deconvolved else 3864, length, angle)
        recognizer, papers = empties(frame)
        assert (recognizer._seen.found.motion is not None) is deconvolved   # the finder's blur, or the markers'
        assert len(papers) >= 30 and max(papers) < GONE_CONFIDENCE_MIN
        # The smeared picture alone reads some of them surely.
        pose = recognizer.pose
        alone = TileReader().read(recognizer.finder.warp(frame, pose), moved=True,
                                  doubt=recognizer.finder.cell_doubt(pose)).board_reading()
        sure = [alone.get(c).confidence for c in CELLS if alone.get(c).state is CellState.EMPTY]
        assert max(sure) >= GONE_CONFIDENCE_MIN
