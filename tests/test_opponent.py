"""Playing the computer on the physical board: the opponent stored with the game, the instruction the
display gives, the table that accepts only the instructed piece, and the search kept off the camera loop."""

import os
import random
import sqlite3
import threading
import time

import pytest
from doubles import Driver, shown
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from thoughtwave.engine import Cell, Colour, Move, Piece, Referee, Rules
from thoughtwave.engine.ai import Choice, Computer, random_move
from thoughtwave.game import Companion, ScriptedGame, ScriptedSource, Settings, Store
from thoughtwave.game.opponent import Instruction, Opponent, laying_advice, wave_words
from thoughtwave.webui.app import create_app, load_secret_key

FAST = Settings(backoff_start=0.02, backoff_cap=0.05, stall_seconds=0.5, speech=False)

# ---- the opponent and its storage -------------------------------------------------------------------

def test_the_opponent_reads_its_stored_form_and_form_fields_and_refuses_bad_ones():
    opponent = Opponent(Colour.BLACK, 2, 1.5)
    assert Opponent.from_json(opponent.to_json()) == opponent
    assert Opponent.from_json({"colour": "red", "level": "1", "seconds": "0.5"}) == Opponent(Colour.RED, 1, 0.5)
    for nobody in (None, {}, "", {"colour": ""}, {"colour": "none"}):
        assert Opponent.from_json(nobody) is None
    for bad in ({"colour": "green"}, {"colour": "red", "level": 4}, {"colour": "red", "level": "x"},
                {"colour": "red", "seconds": 0}, {"colour": "red", "seconds": "nan"}, {"colour": "red", "level": 1.5},
                {"colour": "red", "level": True}, [1]):
        with pytest.raises(ValueError):
            Opponent.from_json(bad)


def test_a_game_against_the_computer_is_stored_and_an_old_database_gains_the_column(tmp_path):
    path = tmp_path / "old.sqlite3"
    old = sqlite3.connect(path)
    old.executescript("""CREATE TABLE games (id INTEGER PRIMARY KEY, rules TEXT NOT NULL, red TEXT NOT NULL DEFAULT '',
        black TEXT NOT NULL DEFAULT '', started TEXT NOT NULL, ended TEXT, result TEXT NOT NULL DEFAULT 'ongoing');
        INSERT INTO games (rules, red, black, started) VALUES ('{}', 'Ann', 'Bob', '2026-01-01T00:00:00+00:00');""")
    old.commit()
    old.close()
    store = Store(path)
    first = store.game(1)
    assert first is not None and (first.red, first.opponent) == ("Ann", None)
    game = store.new_game(Rules(), "Ann", "Computer", Opponent(Colour.BLACK, 1, 0.5).to_json())
    assert store.game(game).opponent == {"colour": "black", "level": 1, "seconds": 0.5}
    assert store.game(game).to_json()["opponent"]["colour"] == "black"
    store.close()
    assert Store(path).latest_game().opponent["level"] == 1      # opening it again: no second migration


# ---- what the person is told ------------------------------------------------------------------------

def test_the_instruction_names_the_piece_the_cell_and_how_the_wave_runs():
    told = Instruction(Move.parse("ne@F4"), Colour.BLACK, 0.61, ())
    assert told.text == "Black plays bend ne at F4"
    assert told.detail == "lay the black bend so its wave runs north and east"
    assert told.spoken == "Black plays the bend, north and east, at F 4"
    assert told.to_json()["move"] == "ne@F4" and told.to_json()["kind"] == "bend"
    assert wave_words(Move.parse("nes@A1").piece) == "north, east and south"
    assert "any way round" in laying_advice(Move.parse("nesw@A1").piece, Colour.RED)
    assert laying_advice(Move.parse("w@A1").piece, Colour.RED) == \
        "lay the red terminator so its wave runs west from the middle"


# ---- a game against the computer, driven frame by frame -----------------------------------------------

class Told:
    """A fake computer: answers with ``move`` (or the first legal placement), at once or when released."""

    def __init__(self, move: str | None = None, hold: bool = False) -> None:
        self.move = Move.parse(move) if move else None
        self.release = threading.Event()
        if not hold:
            self.release.set()
        self.threads: list[str] = []
        self.positions: list[int] = []

    def __call__(self, opponent: Opponent) -> "Told":
        return self

    def search(self, referee: Referee):
        self.threads.append(threading.current_thread().name)
        self.positions.append(len(referee.verdicts))
        self.release.wait(10)
        move = self.move or next(referee.board.legal_placements(referee.available(referee.to_move)))
        return Choice(move, referee.to_move, 0.5, 0.0, 1, 1)


def against(computer, script: list[str], store: Store | None = None, colour: Colour = Colour.BLACK,
            realtime: bool = False) -> Driver:
    """A companion (not started, driven frame by frame) playing a new game against ``computer``, which
    plays ``colour``."""
    game = ScriptedGame(script, frames_per_step=1)
    companion = Companion(store or Store(":memory:"), Rules(),
                          lambda: ScriptedSource(fps=50, realtime=realtime), game.watcher, FAST, make_computer=computer)
    companion.new_game(Rules(), "Ann", "", Opponent(colour, level=1, seconds=0.5))
    return Driver(companion, game)


def instructed(companion: Companion, timeout: float = 10.0) -> dict:
    """The state once the computer's instruction is shown."""
    snapshot = companion.state()
    deadline = time.monotonic() + timeout
    while not (snapshot.computer and snapshot.computer.instruction):
        assert time.monotonic() < deadline, f"no instruction; computer: {snapshot.computer}"
        snapshot = companion.wait_for_change(snapshot.version, 0.2) or companion.state()
    return shown(snapshot)


def verdicts(state: dict) -> list[tuple[str, str, str]]:
    return [(m["colour"], m["move"], m["verdict"]) for m in state["moves"]]


def test_the_instruction_appears_and_the_piece_laid_as_told_is_the_computers_move():
    computer = Told("ns@J10")
    drive = against(computer, ["red ew@E5", "computer", "red ew@F5"])
    companion = drive.companion
    state = drive.steps()               # the first look, then Red's piece
    assert state["computer"]["colour"] == "black" and state["next"] == "black"
    state = instructed(companion)
    told = state["computer"]["instruction"]
    assert told["move"] == "ns@J10" and told["text"] == "Black plays straight ns at J10"
    assert told["detail"] == "lay the black straight so its wave runs north and south"
    assert 'class="ghost black" data-cell="J10" data-piece="ns"' in state["svg"]
    assert state["game"]["black"] == "Computer (level 1)" and state["game"]["opponent"]["colour"] == "black"
    state = drive.steps()               # the scripted person lays exactly what was told
    assert verdicts(state) == [("red", "ew@E5", "legal"), ("black", "ns@J10", "legal")]
    assert state["computer"]["instruction"] is None and not state["computer"]["to_move"]
    assert "ghost" not in state["svg"]
    state = drive.steps()
    assert verdicts(state)[-1] == ("red", "ew@F5", "legal")
    assert computer.threads == ["computer"] * 2      # one search per computer turn, never on the loop


@pytest.mark.parametrize(("wrong", "advice"), [
    ("black ew@A1", "that is not the computer's move: take the black straight ew off A1 and put the black "
                    "straight ns on J10"),
    ("black ew@J10", "that is not the computer's move: turn the black straight on J10 to ns (its wave running "
                     "north and south)"),
])
def test_a_piece_laid_otherwise_is_flagged_and_not_accepted_until_the_told_one_is_laid(wrong, advice):
    store = Store(":memory:")
    drive = against(Told("ns@J10"), ["red ew@E5", wrong, "wait 1", f"off {wrong.split('@')[1]}", "computer"],
                        store=store)
    companion = drive.companion
    drive.steps()
    instructed(companion)
    state = drive.steps()
    flag = next(f for f in state["flags"] if f["cell"] == wrong.split("@")[1])
    assert flag["kind"] == "rejected-piece" and flag["message"] == advice
    assert verdicts(state) == [("red", "ew@E5", "legal")]      # not a move: nothing ruled, nothing stored
    assert [a.move for a in store.actions(companion.game.id)] == ["ew@E5"]
    state = drive.steps()             # the flag stands while the wrong piece lies there
    assert flag in state["flags"] and verdicts(state) == [("red", "ew@E5", "legal")]
    state = drive.steps(2)          # taken off, then laid as told
    assert ("black", "ns@J10", "legal") in verdicts(state)
    assert not [f for f in state["flags"] if f["kind"] == "rejected-piece"]


def test_a_computer_piece_laid_before_the_computer_has_chosen_is_flagged():
    computer = Told("ns@J10", hold=True)
    drive = against(computer, ["red ew@E5", "black ns@J10"])
    companion = drive.companion
    state = drive.steps(2)
    assert state["computer"]["thinking"] and state["computer"]["instruction"] is None
    flag = next(f for f in state["flags"] if f["cell"] == "J10")
    assert flag["message"].startswith("the computer has not chosen its move yet: take the black straight ns off J10")
    assert verdicts(state) == [("red", "ew@E5", "legal")]
    computer.release.set()
    instructed(companion)


def test_a_computer_piece_on_the_persons_turn_is_flagged_not_ruled_in_some_order():
    """Red's piece and a black piece seen at once: Black's would be legal after Red's, but the computer
    never told anyone to lay it."""
    drive = against(Told(), ["wait 1", "red ew@E5"])
    drive.steps()
    drive.game.board[Cell.parse("A1")] = (Colour.BLACK, Piece.parse("ns"))
    state = drive.steps()             # the board is seen with both pieces on it
    assert verdicts(state) == []
    assert "it is Red's turn, not the computer's" in next(f for f in state["flags"] if f["cell"] == "A1")["message"]


def test_the_search_runs_off_the_camera_loop_and_frames_keep_coming_while_it_thinks():
    computer = Told("ns@J10", hold=True)
    drive = against(computer, ["red ew@E5", "computer", "red ew@F5"], realtime=True)
    companion = drive.companion
    companion.start()
    try:
        deadline = time.monotonic() + 10
        while not computer.threads:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        frames = companion.frames
        time.sleep(0.3)                  # the search is stuck; the loop is not
        assert companion.frames >= frames + 5
        state = shown(companion.state())
        assert state["computer"]["thinking"] and state["next"] == "black"
        computer.release.set()
        deadline = time.monotonic() + 10
        while len(companion.state().verdicts) < 3:
            assert time.monotonic() < deadline, companion.state().verdicts
            time.sleep(0.02)
        assert verdicts(shown(companion.state()))[1:] == [("black", "ns@J10", "legal"), ("red", "ew@F5", "legal")]
        assert set(computer.threads) == {"computer"}         # never "companion", the loop thread
    finally:
        computer.release.set()
        companion.stop()


def test_an_answer_for_a_position_that_has_changed_is_dropped_and_the_new_one_searched():
    computer = Told(hold=True)
    drive = against(computer, ["red ew@E5", "off E5", "red ew@A5"])
    companion = drive.companion
    drive.steps()
    deadline = time.monotonic() + 10
    while not computer.threads:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    companion.undo()                     # Red's piece taken back while the computer thinks
    computer.release.set()
    deadline = time.monotonic() + 10
    while companion.thinker.busy is not None:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    state = shown(companion.state())
    assert state["next"] == "red" and not state["computer"]["to_move"] and companion.thinker.answer is None
    state = drive.steps(2)           # E5 off, Red plays A5: a new search for the new position
    state = instructed(companion)
    assert computer.positions == [1, 1] and state["moves"][-1]["move"] == "ew@A5"
    assert companion.thinker.searches == 2


def test_after_a_restart_the_game_is_still_against_the_computer_and_it_thinks_again(tmp_path):
    store = Store(tmp_path / "games.sqlite3")
    first = Told("ns@J10")
    drive = against(first, ["red ew@E5"], store=store)
    companion = drive.companion
    drive.steps()
    instructed(companion)
    game_id = companion.game.id
    companion.stop()
    again = Told("ns@J10")
    restarted = Companion(Store(tmp_path / "games.sqlite3"), Rules(), lambda: ScriptedSource(50, realtime=False),
                          ScriptedGame([]).watcher, FAST, make_computer=again)
    restarted.refresh()
    state = instructed(restarted)
    assert restarted.game.id == game_id and state["computer"]["instruction"]["move"] == "ns@J10"
    assert again.positions == [1]
    restarted.stop()


def test_a_search_that_fails_is_shown_and_not_retried_in_a_loop():
    class Broken:
        calls = 0

        def search(self, referee):
            Broken.calls += 1
            raise RuntimeError("bug")

    drive = against(lambda opponent: Broken(), ["red ew@E5"])
    companion = drive.companion
    drive.steps()
    deadline = time.monotonic() + 10
    while not (companion.state().computer and companion.state().computer.error):
        assert time.monotonic() < deadline
        time.sleep(0.01)
    state = shown(companion.state())
    assert "could not choose a move (RuntimeError)" in state["computer"]["error"] and not state["computer"]["thinking"]
    companion.refresh()
    assert Broken.calls == 1


def test_a_whole_game_against_the_real_computer_player_plays_to_its_end():
    """The person (random placements) and the computer (level 1) take turns until the game ends;
    every black piece is the instruction shown just before it was laid."""
    drive = against(lambda o: Computer(level=1, seconds=None, seed=3), [])
    companion = drive.companion
    script = drive.game.steps
    told: list[str] = []
    rng = random.Random(4)
    for _ in range(120):
        referee = companion.watcher.table.referee
        if referee.over:
            break
        if referee.to_move is Colour.BLACK:
            told.append(instructed(companion)["computer"]["instruction"]["move"])
            script.append("computer")
        else:
            script.append(f"red {random_move(referee, rng)}")
        drive.steps()
    state = shown(companion.state())
    assert state["result"] != "ongoing"
    black = [m["move"] for m in state["moves"] if m["colour"] == "black"]
    assert black == told and all(m["verdict"] == "legal" for m in state["moves"])
    assert len(state["analysis"]["history"]) == len(state["moves"]) + 1


# ---- the control page and API -------------------------------------------------------------------------

@pytest.fixture
def client(tmp_path):
    companion = Companion(Store(":memory:"), Rules(), lambda: ScriptedSource(50, realtime=False),
                          ScriptedGame([]).watcher, Settings(), make_computer=Told())
    companion.refresh()
    app = create_app(companion, pin="2468", secret_key=load_secret_key(tmp_path), threads=4)
    client = app.test_client()
    token = client.get("/api/session").get_json()["csrf"]
    token = client.post("/api/login", json={"pin": "2468"}, headers={"X-CSRF-Token": token}).get_json()["csrf"]
    client.environ_base["HTTP_X_CSRF_TOKEN"] = token
    yield client
    companion.stop()


def test_a_new_game_against_the_computer_through_the_api_and_back_to_two_people(client):
    state = client.post("/api/game/new", json={"computer": "red", "level": "2", "seconds": "1.5",
                                               "black": "Bea"}).get_json()
    assert state["computer"]["colour"] == "red" and state["computer"]["level"] == 2
    assert state["computer"]["seconds"] == 1.5 and state["game"]["red"] == "Computer (level 2)"
    assert state["next"] == "red" and state["computer"]["to_move"]
    page = client.get("/control").get_data(as_text=True)
    assert '<option value="red" selected>' in page and "The computer plays red at level 2, up to 1.5 s a move" in page
    kept = client.post("/api/game/end", json={}).get_json()
    assert kept["computer"]["colour"] == "red"                   # ending a game keeps its kind
    same = client.post("/api/game/new", json={}).get_json()
    assert same["computer"]["colour"] == "red"
    people = client.post("/api/game/new", json={"computer": "none"}).get_json()
    assert people["computer"] is None and people["game"]["opponent"] is None


@pytest.mark.parametrize("body", [{"computer": "green"}, {"computer": "black", "level": 7},
                                  {"computer": "black", "seconds": "soon"}, {"computer": "black", "seconds": 500},
                                  {"computer": ["black"]}])
def test_a_bad_computer_setting_is_a_400_with_a_reason(client, body):
    response = client.post("/api/game/new", json=body)
    assert response.status_code == 400 and "computer" in response.get_json()["error"]


def test_the_engines_computer_searches_in_a_worker_process_and_its_move_is_laid():
    """By default the search runs in another process, so it never holds the camera loop's GIL."""
    game = ScriptedGame(["red ew@E5", "computer"], frames_per_step=1)
    companion = Companion(Store(":memory:"), Rules(), lambda: ScriptedSource(fps=50, realtime=False), game.watcher,
                          FAST)
    companion.new_game(Rules(), "Ann", "", Opponent(Colour.BLACK, level=1, seconds=0.5))
    drive = Driver(companion, game)
    try:
        drive.steps()
        told = instructed(companion, timeout=60)["computer"]["instruction"]
        worker = companion.thinker.worker
        assert worker is not None and worker.submit(os.getpid).result(timeout=60) != os.getpid()
        state = drive.steps()
        assert verdicts(state)[-1] == ("black", told["move"], "legal")
    finally:
        companion.stop()
    assert companion.thinker.worker is None


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
                    max_leaves=6)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(computer=JSON | st.sampled_from(["red", "black", "none"]), level=JSON, seconds=JSON)
def test_any_computer_settings_are_a_new_game_or_a_400_never_a_crash(client, computer, level, seconds):
    response = client.post("/api/game/new", json={"computer": computer, "level": level, "seconds": seconds})
    assert response.status_code in (200, 400), response.get_json()
