"""The companion loop: verdicts stored before shown, the camera lost and found, garbage frames, hands,
undo, corrections, new games. Fakes stand in for the camera; a real Table rules on what they show."""

import time

import numpy as np
import pytest
from doubles import FAST, Driver, Published, shown, state

from thoughtwave.engine import Cell, Colour, Outcome, Piece, Rules
from thoughtwave.game import (
    Companion,
    ControlError,
    ScriptedGame,
    ScriptedSource,
    ScriptFrame,
    Settings,
    Store,
)
from thoughtwave.webui.view import encode_preview

RECORDERS: dict[int, Published] = {}


def recorded(companion: Companion) -> Companion:
    """Keep every state the companion publishes (the scripts run faster than a test can look, so the test
    reads what was shown, in order)."""
    RECORDERS[id(companion)] = Published(companion)
    return companion


def wait_until(companion: Companion, test, timeout: float = 10.0, after: int = 0) -> dict:
    """The first published state (after version ``after``) that passes ``test``; fails after ``timeout``."""
    deadline = time.monotonic() + timeout
    checked = 0
    while True:
        history = RECORDERS[id(companion)].states
        for published in history[checked:]:
            if published["version"] > after and test(published):
                return published
        checked = len(history)
        left = deadline - time.monotonic()
        last = history[-1] if history else {}
        assert left > 0, f"never happened; last state: moves={last.get('moves')} flags={last.get('flags')}"
        companion.wait_for_change(last.get("version", 0), min(left, 0.2))


def moves(state: dict) -> list[tuple[str, str]]:
    return [(m["move"], m["verdict"]) for m in state["moves"]]


def make(script: list[str], store: Store | None = None, source=None, settings: Settings = FAST,
         rules: Rules | None = None) -> tuple[Companion, ScriptedGame]:
    game = ScriptedGame(script, frames_per_step=1)
    companion = Companion(store or Store(":memory:"), rules or Rules(),
                          source or (lambda: ScriptedSource(fps=50, realtime=False)), game.watcher, settings)
    return recorded(companion), game


@pytest.fixture
def running():
    started: list[Companion] = []

    def start(companion: Companion) -> Companion:
        started.append(companion)
        companion.start()
        return companion

    yield start
    for companion in started:
        companion.stop()


def test_verdicts_flags_and_their_clearing_reach_the_published_state(running):
    companion, _ = make(["red ew@E5", "black ns@E6", "wait 3", "off E6", "red ew@F5"])
    running(companion)
    state = wait_until(companion, lambda s: any(f["kind"] == "illegal-piece" for f in s["flags"]))
    flag = next(f for f in state["flags"] if f["kind"] == "illegal-piece")
    assert flag["cell"] == "E6" and "take the black straight ns off E6" in flag["message"]
    assert "Black misses a turn" in flag["message"]
    state = wait_until(companion, lambda s: len(s["moves"]) == 3)
    assert moves(state) == [("ew@E5", "legal"), ("ns@E6", "illegal"), ("ew@F5", "legal")]
    assert not [f for f in state["flags"] if f["cell"] == "E6"]
    assert state["cells"] == {"E5": {"colour": "red", "piece": "ew"}, "F5": {"colour": "red", "piece": "ew"}}
    assert state["next"] == "red" and state["last"] == "F5" and 'data-cell="F5"' in state["svg"]


def test_a_verdict_is_committed_before_it_is_shown(running):
    seen_when_stored: list[list] = []

    class WatchfulStore(Store):
        def add_attempt(self, game, colour, move, verdict, reason):
            seen_when_stored.append([m["move"] for m in state(companion)["moves"]])
            return super().add_attempt(game, colour, move, verdict, reason)

    companion, _ = make(["red ew@E5", "black ew@F5"], store=WatchfulStore(":memory:"))
    running(companion)
    wait_until(companion, lambda s: len(s["moves"]) == 2)
    assert seen_when_stored == [[], ["ew@E5"]]


def test_a_verdict_that_cannot_be_stored_is_not_shown_and_the_loop_goes_on(running):
    class FullDisk(Store):
        fail = True

        def add_attempt(self, *args):
            if FullDisk.fail:
                FullDisk.fail = False
                raise OSError("disk full")
            return super().add_attempt(*args)

    companion, _ = make(["red ew@E5", "wait 2", "black ns@C3"], store=FullDisk(":memory:"))
    running(companion)
    state = wait_until(companion, lambda s: any(f["kind"] == "storage" for f in s["flags"]))
    assert state["moves"] == [] and "disk full" in state["flags"][0]["message"]
    # Restarted from the store, the table sees E5 the game does not have: flagged, not ruled.
    state = wait_until(companion, lambda s: any(f["kind"] == "differs" for f in s["flags"]))
    assert state["moves"] == []


class FlakySource:
    """Frames, then a lost camera (exceptions) for a while, then frames again."""

    opened = 0

    def __init__(self, fail_after: int, fail_opens: int) -> None:
        FlakySource.opened += 1
        self.fail_after = fail_after if FlakySource.opened == 1 else 10**9
        self.failing_open = 1 < FlakySource.opened <= 1 + fail_opens
        self.index = 0
        if self.failing_open:
            raise OSError("no camera on /dev/video0")

    def read(self):
        self.index += 1
        if self.index > self.fail_after:
            raise RuntimeError("camera unplugged")
        return ScriptFrame(self.index, self.index / 50)

    def close(self):
        pass


def test_a_lost_camera_is_shown_retried_with_backoff_and_play_resumes(running):
    FlakySource.opened = 0
    companion, _ = make(["red ew@E5", "wait 10", "black ew@F5"], source=lambda: FlakySource(5, 3))
    running(companion)
    lost = wait_until(companion, lambda s: s["camera"]["state"] == "lost")
    assert lost["flags"][0]["kind"] == "camera" and "camera lost" in lost["flags"][0]["message"]
    state = wait_until(companion, lambda s: s["camera"]["state"] == "ok", after=lost["version"])
    retries = [s["camera"]["retry_in"] for s in RECORDERS[id(companion)].states
               if lost["version"] <= s["version"] < state["version"] and s["camera"]["state"] == "lost"]
    assert retries == [0.02, 0.04, 0.05, 0.05]  # lost once while reading, then three failed opens: doubling, capped
    state = wait_until(companion, lambda s: len(s["moves"]) == 2)
    assert moves(state) == [("ew@E5", "legal"), ("ew@F5", "legal")]
    assert not [f for f in state["flags"] if f["kind"] == "camera"]


def test_a_camera_that_stops_giving_pictures_counts_as_lost(running):
    class Silent:
        def read(self):
            return None

        def close(self):
            pass

    companion, _ = make([], source=Silent, settings=Settings(stall_seconds=0.1, backoff_start=0.01, backoff_cap=0.02))
    running(companion)
    state = wait_until(companion, lambda s: s["camera"]["state"] == "lost")
    assert "stopped giving pictures" in state["camera"]["message"]


def test_garbage_frames_never_stop_the_loop(running):
    rng = np.random.default_rng(6)
    garbage = [np.zeros((0, 0, 3), np.uint8), rng.integers(0, 255, (7, 5, 9), dtype=np.uint8), "not a picture",
               None, rng.random((40, 30)), rng.integers(0, 255, (480, 640, 3), dtype=np.uint8)]

    class Noise:
        def __init__(self):
            self.index = 0

        def read(self):
            self.index += 1
            return ScriptFrame(self.index, self.index / 50, garbage[self.index % len(garbage)])

        def close(self):
            pass

    class Fussy:
        """A watcher that chokes on anything but a picture (as an unguarded reader would)."""

        def __init__(self, inner):
            self.inner = inner

        def feed(self, frame):
            if not isinstance(frame.image, np.ndarray) or frame.image.ndim != 3 or frame.image.shape[2] != 3:
                raise ValueError("not a BGR picture")
            return self.inner.feed(frame)

        table = property(lambda self: self.inner.table)
        status = property(lambda self: self.inner.status)
        hand_seconds = property(lambda self: self.inner.hand_seconds)
        overlay = None
        reading = None

    game = ScriptedGame(["red ew@E5", "black ew@F5"])
    companion = Companion(Store(":memory:"), Rules(), Noise, lambda table: Fussy(game.watcher(table)), FAST)
    running(recorded(companion))
    state = wait_until(companion, lambda s: len(s["moves"]) == 2)
    assert moves(state) == [("ew@E5", "legal"), ("ew@F5", "legal")]
    assert companion.bad_frames > 0


def test_preview_encoding_takes_pictures_and_refuses_the_rest():
    picture = np.full((960, 1280, 3), 120, np.uint8)
    jpeg = encode_preview(picture, 640, 70)
    assert jpeg[:2] == b"\xff\xd8"
    for bad in (None, "x", np.zeros((0, 4), np.uint8), np.zeros((5, 5, 7), np.uint8), np.zeros((9, 9), np.float64)):
        assert encode_preview(bad, 640, 70) is None


def test_a_hand_over_the_board_for_ten_seconds_gives_no_verdict_and_a_warning(running):
    # 50 frames a second of frame time: 600 steps of hand are twelve seconds as the camera counts them.
    companion, _ = make(["red ew@E5", "hand 600", "black ew@F5"])
    running(companion)
    state = wait_until(companion, lambda s: any(f["kind"] == "hand" for f in s["flags"]), timeout=20)
    assert moves(state) == [("ew@E5", "legal")]
    state = wait_until(companion, lambda s: len(s["moves"]) == 2, timeout=20)
    assert not any(f["kind"] == "hand" for f in state["flags"])


def test_undo_takes_the_verdict_back_flags_the_piece_and_survives_a_restart(running):
    store = Store(":memory:")
    companion, game = make(["red ew@E5", "black ew@F5"], store=store)
    running(companion)
    wait_until(companion, lambda s: len(s["moves"]) == 2)
    state = shown(companion.undo())
    assert moves(state) == [("ew@E5", "legal")] and state["next"] == "black"
    assert any(f["kind"] == "undone" and f["cell"] == "F5" for f in state["flags"])
    companion.stop()
    again = Companion(store, Rules(), lambda: ScriptedSource(0), ScriptedGame([]).watcher, FAST)
    assert moves(shown(again.state())) == [("ew@E5", "legal")] and shown(again.state())["next"] == "black"


def test_undo_with_nothing_to_take_back_is_refused():
    companion, _ = make([])
    with pytest.raises(ControlError):
        companion.undo()


def test_correcting_a_misread_move_re_referees_the_game(running):
    companion, _ = make(["red ew@E5", "black ns@E6"])
    running(companion)
    wait_until(companion, lambda s: len(s["moves"]) == 2)
    state = shown(companion.correct("E6", "black", "w"))
    assert moves(state) == [("ew@E5", "legal"), ("w@E6", "legal")]
    assert state["next"] == "red"
    actions = companion.store.actions(companion.game.id)
    assert [a.kind for a in actions] == ["attempt", "attempt", "correct"]


def test_correcting_a_cell_not_yet_ruled_lets_the_table_rule_on_the_truth(running):
    companion, _ = make(["red ew@E5", "wait 1000"])
    running(companion)
    wait_until(companion, lambda s: len(s["moves"]) == 1)
    # the camera keeps missing a black piece on F5: the operator says it is there
    state = shown(companion.correct("F5", "black", "ew"))
    assert moves(state) == [("ew@E5", "legal"), ("ew@F5", "legal")]


@pytest.mark.parametrize("args", [("Z9", "red", "n"), ("E5", "green", "n"), ("E5", "red", "q"), ("E5", None, "n")])
def test_bad_corrections_are_refused_with_a_reason(args):
    companion, _ = make([])
    with pytest.raises(ControlError):
        companion.correct(*args)


def test_a_new_game_ends_the_old_one_and_the_table_checks_the_board(running):
    companion, _ = make(["red ew@E5", "wait 1000"])
    running(companion)
    first = wait_until(companion, lambda s: len(s["moves"]) == 1)["game"]["id"]
    state = shown(companion.new_game(Rules(first=Rules().first.other), red="Ann", black="Bob"))
    assert state["game"]["id"] != first and state["game"]["red"] == "Ann" and state["next"] == "black"
    assert companion.store.game(first).ended is not None
    # the red piece still lies on E5: the new game's table wants it off
    state = wait_until(companion, lambda s: any(f["cell"] == "E5" for f in s["flags"]))
    assert state["moves"] == []


def test_after_a_win_a_cleared_board_starts_the_next_game(running):
    # Red joins west and east along row 5 (5 straights, 2 crosses, 3 junctions); Black lays apart.
    row = ["ew@A5", "ew@B5", "ew@C5", "ew@D5", "ew@E5", "nesw@F5", "nesw@G5", "esw@H5", "esw@I5", "esw@J5"]
    black = ["ns@A1", "ns@C1", "ns@E1", "ns@G1", "ns@I1", "nesw@A3", "nesw@C3", "nes@E3", "nes@G3"]
    script = []
    for i, move in enumerate(row):
        script.append(f"red {move}")
        if i < len(black):
            script.append(f"black {black[i]}")
    companion, _ = make([*script, "wait 5", "clear", "red ew@E5"])
    running(companion)
    won = wait_until(companion, lambda s: s["winner"] == "red")
    assert won["wave"] and set(won["wave"]) == {m.split("@")[1] for m in row}
    state = wait_until(companion, lambda s: s["game"]["id"] != won["game"]["id"] and s["moves"], after=won["version"])
    assert moves(state) == [("ew@E5", "legal")]
    assert companion.store.game(won["game"]["id"]).result == "red"


def test_waiting_clients_are_woken_by_a_change_and_time_out_without_one():
    companion, _ = make([])
    companion.start()
    try:
        version = companion.state().version
        assert companion.wait_for_change(version, 0.05) is None
        companion.new_game()
        assert companion.wait_for_change(version, 5).version > version
    finally:
        companion.stop()
    assert companion.wait_for_change(companion.state().version, 5) is None  # stopped: nobody hangs


def test_rejected_pieces_are_stored_and_undo_skips_them(running):
    companion, _ = make(["red ew@E5", "red ew@F5", "wait 1000"])
    running(companion)
    state = wait_until(companion, lambda s: len(s["moves"]) == 2)
    assert moves(state)[1] == ("ew@F5", "rejected")
    state = shown(companion.undo())
    assert state["moves"] == [] and state["next"] == "red"
    assert Outcome.REJECTED.value in [a.verdict for a in companion.store.actions(companion.game.id)]
    with pytest.raises(ControlError):     # the rejected piece went with it: nothing is left to take back
        companion.undo()


def test_the_real_watcher_takes_garbage_frames_and_the_board_lost_flag_shows(running):
    watch = pytest.importorskip("thoughtwave.vision.watch")
    from thoughtwave.vision.reading import BoardReading

    class Blind:
        """A reader that never finds a board (as on noise): only the Watcher's own guards are tested."""

        pose_moved = False

        def read(self, image):
            return BoardReading(False)

        def draw_overlay(self, image):
            return image

    rng = np.random.default_rng(3)
    garbage = [None, "text", np.zeros((0, 3), np.uint8), rng.integers(0, 255, (48, 64, 3), dtype=np.uint8),
               rng.integers(0, 255, (3, 3, 3, 3), dtype=np.uint8)]

    class Noise:
        def __init__(self):
            self.index = 0

        def read(self):
            self.index += 1
            return ScriptFrame(self.index, self.index / 10, garbage[self.index % len(garbage)])

        def close(self):
            pass

    companion = recorded(Companion(Store(":memory:"), Rules(), Noise,
                                   lambda table: watch.Watcher(table=table, reader=Blind()), FAST))
    running(companion)
    state = wait_until(companion, lambda s: any(f["kind"] == "board-lost" for f in s["flags"]))
    assert state["moves"] == [] and state["camera"]["state"] == "ok"
    assert encode_preview(companion.wait_for_preview(0, 5)[1])[:2] == b"\xff\xd8"   # noise still makes a preview


@pytest.mark.parametrize("argv, words", [
    (["--moves", "/nonexistent/moves.txt"], "cannot read"),
    (["--moves", "-", "--move-seconds", "0"], "--move-seconds"),
    (["--port", "70000"], "--port"),
    (["--config", "/nonexistent/config.toml"], "no such file"),
    (["--demo", "--camera", "usb:0"], "not allowed"),
])
def test_serve_refuses_bad_arguments_with_one_line_and_exit_2(tmp_path, capsys, argv, words):
    from thoughtwave.cli import main

    assert main(["serve", "--state-dir", str(tmp_path), *argv]) == 2
    err = capsys.readouterr().err
    assert words in err and len(err.strip().splitlines()) == 1


def test_a_corrected_cell_the_camera_keeps_misreading_is_not_flagged_and_play_goes_on():
    # The pretend camera keeps seeing a black ns on E6; the operator says it is a black w terminator.
    companion, game = make(["red ew@E5", "black ns@E6"])
    drive = Driver(companion, game)
    assert moves(drive.frames(4)) == [("ew@E5", "legal"), ("ns@E6", "illegal")]
    companion.correct("E6", "black", "w")
    state = drive.frames(2)     # the rebuilt table looks, sees "ns" where the game has "w", and is told the truth
    assert state["flags"] == [] and moves(state) == [("ew@E5", "legal"), ("w@E6", "legal")]
    game.steps.append("red ew@F5")
    assert moves(drive.frames(2))[-1] == ("ew@F5", "legal")


def test_new_watchers_after_calibration_keep_the_game_and_a_resumed_table_checks_the_board():
    companion, game = make(["red ew@E5"])
    Driver(companion, game).frames(3)
    made = []

    def make_watcher(table):
        made.append(table)
        return ScriptedGame([]).watcher(table)

    companion.use_watchers(make_watcher)
    assert len(made) == 1 and [v.move for v in made[0].referee.verdicts] == ["ew@E5"]
    assert companion.watcher.table is made[0]
    assert moves(state(companion)) == [("ew@E5", "legal")]
    # resumed: the new table flags a piece the stored game does not have instead of ruling on it
    events = made[0].observe({Cell.parse("E5"): (Colour.RED, Piece.parse("ew")),
                              Cell.parse("A1"): (Colour.BLACK, Piece.parse("n"))})
    assert [e.flag.kind.value for e in events if e.flag] == ["differs"] and not [e for e in events if e.verdict]
