"""The Watcher pipeline with a scripted reader: frames -> stabiliser -> table -> verdict and observation events."""

import cv2
import numpy as np
import pytest

from thoughtwave.engine import Referee, Rules
from thoughtwave.engine.cells import CELLS, Cell
from thoughtwave.engine.pieces import Colour, Piece
from thoughtwave.engine.table import FlagKind
from thoughtwave.vision.events import BoardChange, BoardSeen, Flagged, HandOver, Ruled, to_json
from thoughtwave.vision.reading import BoardReading, CellReading
from thoughtwave.vision.sources import Frame
from thoughtwave.vision.watch import Watcher

FPS = 10
RNG = np.random.default_rng(3)
TEXTURE = RNG.integers(40, 140, (40, 40)).astype(np.uint8)


def reading(tiles: dict[str, str] | None = None, occluded: bool = False, unreadable=()) -> BoardReading:
    """A board with ``{"E5": "red ew"}`` tiles on it."""
    cells = {c: CellReading.empty() for c in CELLS}
    for name, what in (tiles or {}).items():
        colour, piece = what.split()
        cells[Cell.parse(name)] = CellReading.tile(Colour.parse(colour), Piece.parse(piece))
    for name in unreadable:
        cells[Cell.parse(name)] = CellReading.unreadable()
    return BoardReading(True, cells, occluded=occluded)


NO_BOARD = BoardReading(False)


class ScriptedReader:
    """Reads frame i as the i-th scripted reading; the board texture darkens under a hand."""

    def __init__(self, script: list[tuple[BoardReading, bool]]):
        self.script = script
        self.pose_moved = False
        self.warped: np.ndarray | None = None
        self.moved_at: set[int] = set()
        self.broken_at: set[int] = set()
        self.give_warped = True

    def read(self, image: np.ndarray) -> BoardReading:
        i = int(image[0, 0, 0]) + 256 * int(image[0, 0, 1])
        if i in self.broken_at:
            raise cv2.error("corrupt frame")
        board, hand = self.script[i]
        self.pose_moved = i in self.moved_at
        self.warped = TEXTURE.copy()
        if hand:
            self.warped[10:30, 10 + i % 7:] = 15     # a hand, never quite still
        if not self.give_warped:
            self.warped = None
        return board

    def draw_overlay(self, image: np.ndarray) -> np.ndarray:
        out = image.copy()
        out[:, :, 2] = 255
        return out


def lines(watcher: Watcher, frame: Frame) -> list[dict]:
    """The frame's events as ``referee --frames`` prints them."""
    return [to_json(event) for event in watcher.feed(frame)]


def frames(count: int):
    for i in range(count):
        image = np.zeros((4, 4, 3), np.uint8)
        image[0, 0, 0], image[0, 0, 1] = i % 256, i // 256
        yield Frame(i, i / FPS, image)


def steady(board: BoardReading, seconds: float = 1.0):
    return [(board, False)] * int(seconds * FPS)


def hand(board: BoardReading, seconds: float = 0.5):
    return [(board, True)] * int(seconds * FPS)


def play(script, **kwargs) -> tuple[Watcher, list[dict], ScriptedReader]:
    reader = ScriptedReader(script)
    watcher = Watcher(kwargs.pop("rules", Rules()), reader=reader, **kwargs)
    events = []
    for frame in frames(len(script)):
        events += lines(watcher, frame)
    return watcher, events, reader


def verdicts(events: list[dict]) -> list[tuple[str, str, str]]:
    return [(e["colour"], e["move"], e["verdict"]) for e in events if "verdict" in e]


def test_a_placed_tile_is_refereed_once_with_its_frame_in_the_moves_shape():
    empty = reading()
    placed = reading({"E5": "red ew"})
    script = steady(empty) + hand(reading(occluded=True)) + steady(placed, 2.0)
    watcher, events, _ = play(script)
    lines = [e for e in events if "verdict" in e]
    assert verdicts(events) == [("red", "ew@E5", "legal")]
    assert set(lines[0]) == {"n", "colour", "move", "verdict", "reason", "next", "winner", "draw", "left", "frame"}
    hand_left = 10 + 5
    assert hand_left + 4 <= lines[0]["frame"] <= hand_left + 6
    assert watcher.summary() == {"result": "ongoing", "moves": 1, "frames": len(script)}
    assert watcher.status == "steady" and watcher.snapshot()["next"] == "black"


def test_illegal_and_out_of_turn_pieces_are_flagged_until_taken_off():
    one = reading({"E5": "red ew"})
    bad = reading({"E5": "red ew", "F5": "black ns"})          # blank west edge against E5's wave
    script = (steady(reading()) + hand(reading(occluded=True)) + steady(one)
              + hand(reading(occluded=True)) + steady(bad) + hand(reading(occluded=True)) + steady(one))
    watcher, events, _ = play(script)
    assert verdicts(events) == [("red", "ew@E5", "legal"), ("black", "ns@F5", "illegal")]
    flags = [e for e in events if e.get("event") == "flag"]
    cleared = [e for e in events if e.get("event") == "cleared"]
    assert [(f["flag"], f["cell"]) for f in flags] == [("illegal-piece", "F5")]
    assert [(c["flag"], c["cell"]) for c in cleared] == [("illegal-piece", "F5")]
    assert flags[0]["frame"] < cleared[0]["frame"] and "take the" in flags[0]["message"]
    assert watcher.table.flags == {}


def test_a_resting_hand_is_one_hand_event_and_no_verdict():
    script = steady(reading()) + [(reading({"C3": "black n"}, occluded=True), True)] * 50 + steady(reading())
    watcher, events, _ = play(script)
    assert [e["event"] for e in events] == ["board-found", "hand"]
    assert events[1]["message"] == "hand over the board" and events[1]["frame"] == 10


def test_board_lost_found_and_moved_are_reported_once_each():
    script = steady(reading()) + [(NO_BOARD, False)] * 15 + steady(reading())
    reader = ScriptedReader(script)
    reader.moved_at = {25}
    watcher = Watcher(Rules(), reader=reader, lost_seconds=1.0)
    events = [e for f in frames(len(script)) for e in lines(watcher, f)]
    assert [(e["event"], e["frame"]) for e in events] == [
        ("board-found", 0), ("board-lost", 20), ("board-found", 25)]
    # a bump the reader notices while the board stays in view: moved, then found again once steady
    reader.moved_at = {30}
    watcher = Watcher(Rules(), reader=reader)
    events = [(e["event"], e["frame"]) for f in frames(len(script)) for e in lines(watcher, f)]
    assert events[-2:] == [("board-moved", 30), ("board-found", 34)]


def test_a_cell_that_stays_unreadable_is_an_unreadable_event_not_a_move():
    script = steady(reading()) + steady(reading(unreadable=["G7"]), 3.0)
    watcher, events, _ = play(script)
    unreadable = [e for e in events if e["event"] == "unreadable"]
    assert [(e["cell"], e["flag"]) for e in unreadable] == [("G7", "unreadable")]
    assert "G7" in unreadable[0]["message"]
    assert watcher.snapshot()["unreadable"] == ["G7"]
    assert verdicts(events) == []


def test_a_frame_the_reader_chokes_on_is_no_board_not_a_crash():
    script = steady(reading(), 2.0)
    reader = ScriptedReader(script)
    reader.broken_at = {12}
    watcher = Watcher(Rules(), reader=reader)
    for f in frames(len(script)):
        lines(watcher, f)
    lines(watcher, Frame(99, 9.9, np.zeros((0, 0, 3), np.uint8)))
    assert watcher.frames == len(script) + 1


def test_continuing_a_stored_game_flags_a_piece_it_does_not_know():
    referee = Referee(Rules())
    referee.play("ew@E5")
    script = steady(reading({"E5": "red ew", "A1": "black n"}))
    watcher, events, _ = play(script, referee=referee)
    assert verdicts(events) == []
    assert [(e["flag"], e["cell"]) for e in events if e["event"] == "flag"] == [("differs", "A1")]


def test_overlay_is_kept_for_a_preview_unless_not_wanted():
    watcher, _, _ = play(steady(reading(), 0.3))
    assert watcher.overlay is not None and watcher.overlay[0, 0, 2] == 255
    watcher, _, _ = play(steady(reading(), 0.3), keep_overlay=False)
    assert watcher.overlay is None


def test_clearing_the_board_after_a_game_is_a_board_empty_event():
    script = steady(reading()) + hand(reading(occluded=True)) + steady(reading({"A1": "red e"}))
    script += hand(reading(occluded=True)) + steady(reading())
    _, events, _ = play(script, rules=Rules())
    kinds = [e["event"] for e in events if "event" in e]
    assert kinds.count("board-empty") == 1 and kinds[-1] in ("board-empty", "flag")


@pytest.mark.parametrize("stable", [0.2, 0.6])
def test_stable_seconds_sets_how_long_a_placement_waits(stable):
    script = steady(reading()) + hand(reading(occluded=True)) + steady(reading({"A1": "red e"}), 2.0)
    _, events, _ = play(script, stable_seconds=stable)
    frame = next(e["frame"] for e in events if "verdict" in e)
    assert 15 + stable * FPS <= frame <= 15 + stable * FPS + 2


def test_a_bump_that_hides_the_board_briefly_is_moved_then_found_not_lost():
    script = steady(reading()) + [(NO_BOARD, False)] * 3 + steady(reading())
    reader = ScriptedReader(script)
    reader.moved_at = {10}          # the finder sees markers where the old pose says they cannot be
    watcher = Watcher(Rules(), reader=reader)
    events = [(e["event"], e["frame"]) for f in frames(len(script)) for e in lines(watcher, f)]
    assert events == [("board-found", 0), ("board-moved", 10), ("board-found", 17)]


def test_a_bumped_board_is_found_again_and_play_goes_on_rendered():
    """Rendered frames, the real recogniser: the camera's view of the board shifts and turns between
    two frames (the board was knocked); the tile on it is not a new move, the next one is."""
    from dataclasses import replace

    from thoughtwave.synth import Scene, render

    e5 = {Cell.parse("E5"): (Colour.RED, Piece.parse("ew"))}
    scene = Scene.random(11, tiles=e5, level="mild", hand=False, resolution=(480, 360))
    camera = scene.camera
    knocked = replace(camera, yaw_deg=camera.yaw_deg + 6, aim_mm=(camera.aim_mm[0] + 25, camera.aim_mm[1] - 15))
    g10 = {**e5, Cell.parse("G10"): (Colour.BLACK, Piece.parse("ns"))}
    phases = [scene, replace(scene, camera=knocked), replace(scene, camera=knocked, tiles=g10, lays={})]
    watcher = Watcher(Rules(), keep_overlay=False)
    events = []
    for p, phase in enumerate(phases):
        for k in range(8):
            index = 8 * p + k
            image, _ = render(replace(phase, noise_seed=index))
            events += lines(watcher, Frame(index, index / 5, image))
    board_events = [(e["event"], e["frame"]) for e in events if e.get("event", "").startswith("board-")]
    assert [name for name, _ in board_events] == ["board-found", "board-moved", "board-found"]
    assert board_events[1][1] == 8
    assert verdicts(events) == [("red", "ew@E5", "legal"), ("black", "ns@G10", "legal")]
    assert [e["frame"] for e in events if "verdict" in e][1] >= 16
    assert watcher.flags == {}


@pytest.mark.parametrize("make", [
    lambda i: np.dstack([_index_image(i), np.full((4, 4, 1), 255, np.uint8)]),          # BGRA
    lambda i: _index_image(i).astype(np.float64),                                      # float64: cvtColor refuses
    lambda i: _index_image(i)[:, :, :2],                                               # two channels
])
def test_odd_frames_from_a_reader_without_a_warped_board_never_crash(make):
    script = steady(reading(), 1.0)
    reader = ScriptedReader(script)
    reader.give_warped = False
    watcher = Watcher(Rules(), reader=reader)
    for i in range(len(script)):
        lines(watcher, Frame(i, i / FPS, make(i)))
    assert watcher.frames == len(script) and watcher.status == "steady"


def _index_image(i: int) -> np.ndarray:
    image = np.zeros((4, 4, 3), np.uint8)
    image[0, 0, 0], image[0, 0, 1] = i % 256, i // 256
    return image


def test_real_recogniser_odd_frames_are_no_board_and_no_crash():
    watcher = Watcher(Rules(), keep_overlay=True)
    odd = [np.zeros((480, 640), np.uint8), np.zeros((480, 640, 4), np.uint8), np.zeros((10, 10, 3), np.uint8),
           np.full((240, 320, 3), 1.5, np.float32), np.zeros((0, 0, 3), np.uint8)]
    events = [e for i, image in enumerate(odd * 4) for e in lines(watcher, Frame(i, i / 2, image))]
    assert [e["event"] for e in events] == ["board-lost"]
    assert watcher.status == "no board" and watcher.frames_with_board == 0 and watcher.frames == 20


def test_a_new_piece_waits_while_a_cell_that_may_hold_an_earlier_move_cannot_be_read():
    """Red's tile on E5 cannot be read; Black lays G10. Ruling G10 now would reject it as out of turn:
    it waits, and once E5 is read both are ruled in the order of turns."""
    e5_unread = reading(unreadable=["E5"])
    both_unread = reading({"G10": "black ns"}, unreadable=["E5"])
    both = reading({"E5": "red ew", "G10": "black ns"})
    script = (steady(reading()) + hand(reading(occluded=True)) + steady(e5_unread, 2.0)
              + hand(reading(occluded=True)) + steady(both_unread, 3.0) + steady(both, 1.0))
    reader = ScriptedReader(script)
    watcher = Watcher(Rules(), reader=reader)
    events = []
    for frame in frames(len(script)):
        events += lines(watcher, frame)
        if frame.index == 10 + 5 + 20 + 5 + 20:      # Black's tile lies there, E5 still unread
            assert watcher.snapshot()["waiting_for"] == ["E5"]
    assert watcher.snapshot()["waiting_for"] == []
    assert verdicts(events) == [("red", "ew@E5", "legal"), ("black", "ns@G10", "legal")]
    unread = [e for e in events if e["event" if "event" in e else "n"] == "unreadable"]
    assert [e["cell"] for e in unread] == ["E5"]
    assert all(e["frame"] >= 10 + 5 + 20 + 5 + 30 for e in events if "verdict" in e)


def test_a_cell_unreadable_for_long_stops_holding_play_up():
    stuck = reading(unreadable=["A1"])       # glare on an empty corner, for good
    e5 = reading({"E5": "red ew"}, unreadable=["A1"])
    script = steady(stuck, 2.0) + hand(reading(occluded=True)) + steady(e5, 4.0)
    _, events, _ = play(script, hold_seconds=3.0)
    lines = [e for e in events if "verdict" in e]
    assert verdicts(events) == [("red", "ew@E5", "legal")]
    assert lines[0]["frame"] == 4 + 30        # A1 unreadable in the first steady view (frame 4): held 3 s


def test_the_events_are_typed_and_carry_the_engines_verdict_and_flag_kind():
    one = reading({"E5": "red ew"})
    bad = reading({"E5": "red ew", "F5": "black ns"})
    script = steady(reading()) + hand(reading(occluded=True)) + steady(one) + hand(reading(occluded=True)) + steady(bad)
    watcher = Watcher(Rules(), reader=ScriptedReader(script))
    events = [e for f in frames(len(script)) for e in watcher.feed(f)]
    assert isinstance(events[0], BoardSeen) and events[0].change is BoardChange.FOUND and events[0].frame == 0
    assert any(isinstance(e, HandOver) for e in events)
    ruled = [e for e in events if isinstance(e, Ruled)]
    assert [str(e.verdict.cell) for e in ruled] == ["E5", "F5"] and ruled[1].verdict.outcome.value == "illegal"
    flag = next(e for e in events if isinstance(e, Flagged))
    assert flag.kind is FlagKind.ILLEGAL_PIECE and str(flag.cell) == "F5"
    assert to_json(flag) == {"frame": flag.frame, "event": "flag", "flag": "illegal-piece", "cell": "F5",
                             "message": flag.message}


def test_a_watcher_given_a_table_rules_with_it_and_its_referee():
    from thoughtwave.engine.table import Table

    referee = Referee(Rules())
    table = Table(referee)
    script = steady(reading()) + hand(reading(occluded=True)) + steady(reading({"E5": "red ew"}))
    watcher = Watcher(reader=ScriptedReader(script), table=table)
    assert watcher.table is table and watcher.referee is referee
    for f in frames(len(script)):
        watcher.feed(f)
    assert [v.move for v in referee.verdicts] == ["ew@E5"]
