"""The demo camera: its scripted game is refereed as promised, and its frames show that game."""

from __future__ import annotations

import numpy as np
import pytest

from thoughtwave.config import CameraSpec, open_camera
from thoughtwave.engine.cells import Cell
from thoughtwave.engine.pieces import Colour
from thoughtwave.engine.referee import Referee
from thoughtwave.synth.demo import (
    DEMO_EXPECTED,
    DEMO_SCRIPT,
    DEMO_WINNER,
    SETTLE_SECONDS,
    DemoCamera,
    Lay,
    Rest,
    TakeOff,
    Timeline,
    script_frames,
)
from thoughtwave.vision.sources import FrameSource

TINY = (192, 144)
SHORT = (Lay.parse("red ew@E5"), Lay.parse("black ns@E6"), TakeOff(Colour.BLACK, Cell.parse("E6")))


def test_the_demo_game_is_refereed_as_expected() -> None:
    referee = Referee()
    got = []
    for action in DEMO_SCRIPT:
        if isinstance(action, Lay):
            verdict = referee.attempt(action.move, action.colour)
            got.append((action.colour.value, str(action.move), verdict.outcome.value))
    assert tuple(got) == DEMO_EXPECTED
    assert referee.result == DEMO_WINNER
    verdicts = [v for _, _, v in got]
    assert 15 <= len(got) <= 25
    assert "illegal" in verdicts and "rejected" in verdicts
    assert verdicts.index("illegal") < verdicts.index("rejected")
    assert {c for c, _, v in got if v == "legal"} == {"red", "black"}
    assert any(isinstance(a, Rest) and a.seconds >= 3 for a in DEMO_SCRIPT)


def test_every_refused_tile_is_taken_off_before_play_goes_on() -> None:
    expected = iter(DEMO_EXPECTED)
    pending: Cell | None = None
    for action in DEMO_SCRIPT:
        if isinstance(action, Lay):
            assert pending is None, "a tile the referee refused is still on the board"
            _, _, verdict = next(expected)
            if verdict != "legal":
                pending = action.move.cell
        elif isinstance(action, TakeOff):
            assert action.cell == pending
            pending = None
    assert pending is None


def test_timeline_tiles_change_only_under_a_hand_and_end_as_the_referee_ends() -> None:
    timeline = Timeline()
    for visit in timeline.visits:
        if visit.change is not None:
            assert visit.arrive <= visit.change <= visit.depart
            assert timeline.at(visit.change).visit == visit
        quiet = visit.end + 0.5 * SETTLE_SECONDS
        assert timeline.at(quiet).visit is None, "the board is left alone between actions"
    referee = Referee()
    for action in DEMO_SCRIPT:
        if isinstance(action, Lay):
            referee.attempt(action.move, action.colour)
    final = timeline.at(timeline.duration - 0.01)
    on_board = {cell: str(piece) for cell, piece in referee.board.pieces()}
    assert {cell: str(piece) for cell, (_, piece) in final.tiles.items()} == on_board
    assert final.visit is None
    assert timeline.at(0.0).tiles == {} and len(timeline.changes()) == 21


def test_a_rest_changes_nothing() -> None:
    timeline = Timeline()
    rest = next(v for v in timeline.visits if isinstance(v.action, Rest))
    before, during = timeline.at(rest.start - 0.01), timeline.at((rest.arrive + rest.depart) / 2)
    assert before.tiles == during.tiles and during.progress == 1.0 and during.visit == rest


def test_frames_show_the_script_hand_and_tiles() -> None:
    frames = list(script_frames(SHORT, fps=2.0, resolution=TINY, seed=3))
    timeline = Timeline(SHORT)
    assert len(frames) == int(np.ceil(timeline.duration * 2.0))
    for k, (frame, truth) in enumerate(frames):
        assert frame.index == k and frame.t == pytest.approx(k / 2.0)
        assert frame.image.shape == (TINY[1], TINY[0], 3)
        assert truth.tiles == timeline.at(frame.t).tiles
    # The camera stays put for the whole game.
    poses = {truth.board_to_image.tobytes() for _, truth in frames}
    assert len(poses) == 1
    # When the hand is at the cell it covers the tile it lays; between actions nothing covers the board.
    first = timeline.visits[0]
    at_cell = next(t for f, t in frames if first.arrive <= f.t <= first.depart)
    assert Cell.parse("E5") in at_cell.occluded_cells
    quiet = next(t for f, t in frames if first.end + 0.2 < f.t < timeline.visits[1].start)
    assert quiet.occluded_cells == frozenset() and quiet.hand_mask is None


def test_not_looping_ends_and_close_stops() -> None:
    camera = DemoCamera(fps=1.0, realtime=False, loop=False, script=SHORT, resolution=TINY)
    count = 0
    while camera.read() is not None:
        count += 1
    assert count == int(np.ceil(camera.timeline.duration))
    assert camera.read() is None
    camera = DemoCamera(fps=1.0, realtime=False, script=SHORT, resolution=TINY)
    assert camera.read() is not None
    camera.close()
    assert camera.read() is None


def test_looping_starts_a_new_game_with_a_new_look() -> None:
    camera = DemoCamera(fps=1.0, realtime=False, loop=True, script=SHORT, resolution=TINY, seed=5)
    first_game = camera.game(0).scene.camera
    frames = [camera.read() for _ in range(int(np.ceil(camera.timeline.duration)) + 2)]
    assert all(f is not None for f in frames)
    assert [f.index for f in frames] == list(range(len(frames)))
    assert camera.game(1).scene.camera != first_game
    assert camera.truth is not None and camera.truth.tiles == {}, "the new game starts on an empty board"


def test_same_seed_same_film() -> None:
    a = DemoCamera(fps=2.0, realtime=False, script=SHORT, resolution=TINY, seed=9)
    b = DemoCamera(fps=2.0, realtime=False, script=SHORT, resolution=TINY, seed=9)
    c = DemoCamera(fps=2.0, realtime=False, script=SHORT, resolution=TINY, seed=10)
    for _ in range(6):
        fa, fb, fc = a.read(), b.read(), c.read()
        assert np.array_equal(fa.image, fb.image)
    assert not np.array_equal(fa.image, fc.image)


def test_realtime_paces_reads_to_the_frame_rate() -> None:
    clock = {"now": 100.0}
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        clock["now"] += seconds

    camera = DemoCamera(fps=4.0, realtime=True, script=SHORT, resolution=TINY, clock=lambda: clock["now"],
                        sleep=sleep)
    camera.read()
    assert slept == []
    clock["now"] += 0.05            # rendering took 50 ms: wait out the rest of the quarter second
    camera.read()
    assert slept == [pytest.approx(0.2)]
    clock["now"] += 0.5             # fell behind: no waiting, and the frame that is late is skipped
    frame = camera.read()
    assert len(slept) == 1
    assert frame.index == 3 and frame.t == pytest.approx(0.75)


def test_it_is_a_frame_source_and_open_camera_finds_it() -> None:
    camera = DemoCamera(fps=3.0, realtime=False, resolution=TINY)
    assert isinstance(camera, FrameSource) and camera.fps == 3.0
    opened = open_camera(CameraSpec.parse(" Demo "), fps=4.0, resolution=TINY)
    assert isinstance(opened, DemoCamera) and opened.fps == 4.0 and opened.resolution == TINY
    opened.close()


def test_bad_script_lines_are_refused() -> None:
    with pytest.raises(ValueError):
        Lay.parse("ew@E5")
    with pytest.raises(ValueError):
        DemoCamera(fps=0)
