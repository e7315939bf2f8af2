"""The store: every action survives a restart, and replaying it gives back the same game move for move."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from thoughtwave.engine import Move, Outcome, Penalty, Referee, Rules
from thoughtwave.engine.pieces import Colour, Kind
from thoughtwave.game import GameLog, Store

GAME = ["red ew@E5", "black ns@E6", "red ew@F5", "black ns@C3", "red ew@G5", "black ne@D4"]


def play_into(store: Store, game: int, lines: list[str], referee: Referee | None = None) -> Referee:
    referee = referee or Referee(store.game(game).rules)
    for line in lines:
        v = referee.play(line)
        store.add_attempt(game, v.colour.value if v.colour else None, v.move, v.outcome.value, v.reason)
    return referee


def test_a_reopened_store_replays_the_same_game_move_for_move(tmp_path):
    store = Store.in_dir(tmp_path)
    game = store.new_game(Rules(penalty=Penalty.FORFEIT), red="Ann", black="Bob")
    live = play_into(store, game, GAME)
    store.close()

    again = Store.in_dir(tmp_path)
    row = again.latest_game()
    assert (row.id, row.red, row.black, row.rules.penalty) == (game, "Ann", "Bob", Penalty.FORFEIT)
    replayed = GameLog.replay(row.rules, again.actions(game)).referee
    assert replayed.board.snapshot() == live.board.snapshot()
    assert [v.to_json() for v in replayed.verdicts] == [v.to_json() for v in live.verdicts]
    assert replayed.to_move == live.to_move


def test_the_database_is_in_wal_mode_with_full_sync(tmp_path):
    store = Store.in_dir(tmp_path)
    assert store.pragma("journal_mode") == "wal"
    assert store.pragma("synchronous") == 2  # FULL


def test_undo_takes_back_the_last_standing_verdict_and_rejected_ones_after_it(tmp_path):
    store = Store.in_dir(tmp_path)
    game = store.new_game(Rules())
    play_into(store, game, ["red ew@E5", "black ew@F5", "black ns@A1"])  # the last is out of turn: rejected
    store.add_undo(game)
    log = GameLog.replay(Rules(), store.actions(game))
    assert [e.move for e in log.entries] == ["ew@E5"]
    assert log.referee.to_move is Colour.BLACK
    assert log.referee.board[Move.parse("ew@F5").cell] is None


def test_undo_with_nothing_to_take_back_changes_nothing():
    log = GameLog(Rules())
    assert log.undo() is False
    log.play("red", "ew@E5")
    assert log.undo() is True and log.undo() is False


def test_a_correction_rewrites_the_misread_move_and_re_referees_what_followed(tmp_path):
    store = Store.in_dir(tmp_path)
    game = store.new_game(Rules())
    # The camera read E6 as ns (illegal against E5's blank south edge); it really was a black "w"
    # terminator, which fits: the illegal verdict (and Black's missed turn) must go.
    play_into(store, game, ["red ew@E5", "black ns@E6", "red ew@F5"])
    store.add_correction(game, "E6", "black", "w")
    log = GameLog.replay(Rules(), store.actions(game))
    assert [(e.move, e.outcome) for e in log.entries] == [
        ("ew@E5", Outcome.LEGAL), ("w@E6", Outcome.LEGAL), ("ew@F5", Outcome.LEGAL)]
    assert str(log.referee.board[Move.parse("w@E6").cell]) == "w"


def test_a_correction_to_empty_removes_the_move_and_one_on_an_untouched_cell_adds_it():
    log = GameLog(Rules())
    log.play("red", "ew@E5")
    log.correct("E5", None, None)
    assert log.entries == [] and len(log.referee.board) == 0
    log.correct("C3", "red", "nesw")
    assert [e.move for e in log.entries] == ["nesw@C3"]
    assert log.referee.to_move is Colour.BLACK


def test_results_and_end_times_follow_the_game(tmp_path):
    store = Store.in_dir(tmp_path)
    first = store.new_game(Rules())
    store.set_result(first, "red", ended=True)
    assert store.game(first).result == "red" and store.game(first).ended
    store.set_result(first, "ongoing", ended=False)    # the winning move was undone
    assert store.game(first).ended is None
    second = store.new_game(Rules())
    assert [g.id for g in store.games()] == [second, first]
    assert store.game(999) is None and store.record(999) is None


def test_the_record_holds_the_moves_that_stand(tmp_path):
    store = Store.in_dir(tmp_path)
    game = store.new_game(Rules(), red="Ann")
    play_into(store, game, ["red ew@E5", "black ns@E6"])
    store.add_undo(game)
    text = store.record(game).to_text()
    assert "# Red: Ann" in text and "red ew@E5  # legal" in text and "E6" not in text


def test_rules_round_trip_and_bad_rules_are_named():
    rules = Rules(penalty=Penalty.RETRY, red_sides="NS", first=Colour.BLACK,
                  inventory={Colour.RED: {k: 1 for k in Kind}, Colour.BLACK: {k: 2 for k in Kind}})
    assert Rules.from_json(rules.to_json()) == rules
    for bad, word in [({"penalty": "death"}, "penalty"), ({"red_sides": "XY"}, "red_sides"),
                      ({"first": 3}, "first"), ({"inventory": {"red": {"bend": -1}}}, "bend"),
                      ({"inventory": {"red": {"dragon": 1}}}, "dragon"), ({"inventory": []}, "inventory")]:
        with pytest.raises(ValueError, match=word):
            Rules.from_json(bad)


def test_a_stored_game_with_unreadable_rules_still_opens(tmp_path):
    store = Store.in_dir(tmp_path)
    game = store.new_game(Rules())
    with sqlite3.connect(store.path) as other:      # another writer (an old version, a bad edit) damaged it
        other.execute("UPDATE games SET rules = ? WHERE id = ?", ("{not json", game))
    assert store.game(game).rules == Rules()


def test_actions_are_committed_when_add_returns(tmp_path):
    store = Store.in_dir(tmp_path)
    game = store.new_game(Rules())
    store.add_attempt(game, "red", "ew@E5", "legal", None)
    # A second connection (another process after a crash) sees it without any close or checkpoint.
    other = sqlite3.connect(tmp_path / "games.sqlite3")
    assert other.execute("SELECT move, verdict FROM actions").fetchall() == [("ew@E5", "legal")]


# ---- the real process, killed ------------------------------------------------------------------------

def _start_serve(state_dir: Path, script: Path, step: float) -> tuple[subprocess.Popen, str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "thoughtwave.cli", "serve", "--moves", str(script), "--move-seconds", str(step),
         "--port", "0", "--state-dir", str(state_dir)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=Path(__file__).parent.parent)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if "http://" in line:
            return process, line.split("http://", 1)[1].split("/", 1)[0]
        if process.poll() is not None:
            break
    process.kill()
    raise AssertionError("serve did not print its address")


def _state(address: str) -> dict:
    with urllib.request.urlopen(f"http://{address}/api/state", timeout=5) as response:
        return json.load(response)


@pytest.mark.slow
def test_serve_killed_mid_game_resumes_the_same_game(tmp_path):
    moves = tmp_path / "moves.txt"
    # As a camera sees it: the illegal piece comes off before play goes on (Black misses a turn).
    moves.write_text("\n".join(["red ew@E5", "black ns@E6", "off E6", "red ew@F5", "red ew@G5", "black ns@C3",
                                "red ew@H5", "black ns@C4", "red ew@I5"]) + "\n")
    quiet = tmp_path / "quiet.txt"
    quiet.write_text("wait 100000\n")
    process, address = _start_serve(tmp_path / "state", moves, 0.05)
    try:
        deadline = time.monotonic() + 20
        before = _state(address)
        while len(before["moves"]) < 4 and time.monotonic() < deadline:
            time.sleep(0.05)
            before = _state(address)
        assert len(before["moves"]) >= 4
        process.send_signal(signal.SIGKILL)   # mid-game: moves keep coming until the very end
        process.wait(10)
    finally:
        if process.poll() is None:
            process.kill()

    process, address = _start_serve(tmp_path / "state", quiet, 0.05)
    try:
        after = _state(address)
        assert after["game"]["id"] == before["game"]["id"]
        # Nothing that was shown is lost: every verdict on the page before the kill is there, in order.
        assert after["moves"][: len(before["moves"])] == before["moves"]
        replay = Referee()
        for m in after["moves"]:
            replay.play(f"{m['colour']} {m['move']}")
        assert after["next"] == (replay.to_move.value if replay.to_move else None)
        assert after["left"] == {c.value: {k.value: replay.inventory[c][k] for k in Kind} for c in Colour}
        assert set(after["cells"]) == {str(c) for c, _ in replay.board.pieces()}
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(10)
    assert process.returncode == 0
    assert os.stat(tmp_path / "state" / "secret_key").st_mode & 0o777 == 0o600
