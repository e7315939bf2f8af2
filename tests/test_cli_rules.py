"""``thoughtwave referee --moves``, ``legal`` and ``play``: the JSON shapes of DESIGN.md for every rule decision,
and bad input that never crashes."""

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from thoughtwave.cli import main
from thoughtwave.engine import GameRecord, Outcome

STANDARD = {"terminator": 1, "bend": 10, "straight": 5, "junction": 6, "cross": 2}
KEYS = ["n", "colour", "move", "verdict", "reason", "next", "winner", "draw", "left"]
RED_ROW_5 = ["ew@A5", "ew@B5", "ew@C5", "ew@D5", "ew@E5", "new@F5", "new@G5", "new@H5", "new@I5", "new@J5"]
BLACK_ASIDE = ["ne@A8", "ne@C8", "ne@G8", "ne@I8", "ne@A10", "ne@C10", "ne@G10", "ne@I10", "ne@G2"]
# The help page's example around B2, laid by Red and Black in turn
SERVER_EXAMPLE = ["esw@B1", "nw@A2", "sw@C2", "n@B3"]
THOUGHTWAVE = Path(sys.executable).with_name("thoughtwave")


def referee(tmp_path: Path, capsys, lines: list[str], *flags: str) -> list[dict]:
    """Run ``thoughtwave referee --moves FILE`` on ``lines``; the JSON objects it printed."""
    moves = tmp_path / "moves.txt"
    moves.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["referee", "--moves", str(moves), *flags]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    return [json.loads(line) for line in out.splitlines()]


def legal(tmp_path: Path, capsys, lines: list[str], cell: str, *flags: str) -> dict:
    moves = tmp_path / "moves.txt"
    moves.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["legal", "--moves", str(moves), "--at", cell, *flags]) == 0
    out, err = capsys.readouterr()
    assert err == "" and len(out.splitlines()) == 1
    return json.loads(out)


def only(**counts: int) -> str:
    """A ``--red-pieces``/``--black-pieces`` value naming every kind, 0 unless given."""
    return " ".join(f"{kind}={counts.get(kind, 0)}" for kind in STANDARD)


def interleave(first: list[str], second: list[str]) -> list[str]:
    out = []
    for a, b in zip(first, second, strict=False):
        out += [a, b]
    return out + first[len(second):]


# ---- referee --moves: the shapes -----------------------------------------------------------------------

def test_the_design_example_line_exactly(tmp_path, capsys):
    out = referee(tmp_path, capsys, ["ne@J10", "black ne@A1", "red nes@B2"], "--first", "black")
    assert out[2] == {
        "n": 3, "colour": "red", "move": "nes@B2", "verdict": "legal", "reason": None,
        "next": "black", "winner": None, "draw": False,
        "left": {"red": {"terminator": 1, "bend": 10, "straight": 5, "junction": 5, "cross": 2},
                 "black": {"terminator": 1, "bend": 9, "straight": 5, "junction": 6, "cross": 2}},
    }
    assert out[1]["verdict"] == "rejected" and out[1]["reason"] == "it is Red's turn, not Black's"
    assert out[-1] == {"result": "ongoing", "moves": 3}
    assert all(list(line) == KEYS for line in out[:-1])


def test_a_win_ends_the_game_and_later_lines_are_rejected(tmp_path, capsys):
    out = referee(tmp_path, capsys, interleave(RED_ROW_5, BLACK_ASIDE) + ["black ns@A1"])
    win = out[18]
    assert (win["colour"], win["move"], win["verdict"], win["winner"], win["next"]) == (
        "red", "new@J5", "legal", "red", None)
    assert out[19]["verdict"] == "rejected" and out[19]["reason"] == "the game is over: Red has won"
    assert out[19]["winner"] == "red" and out[19]["next"] is None
    assert out[-1] == {"result": "red", "moves": 20}


def test_red_sides_and_first_player_flags(tmp_path, capsys):
    column = ["ns@E1", "ns@E2", "ns@E3", "ns@E4", "ns@E5", "nes@E6", "nes@E7", "nes@E8", "nes@E9", "nes@E10"]
    out = referee(tmp_path, capsys, interleave(column, BLACK_ASIDE), "--red-sides", "ns", "--first", "BLACK")
    assert out[0]["colour"] == "black"                  # Black moves first and lays column E
    assert out[18]["winner"] == "red"                   # which joins north and south: Red's sides here
    assert out[-1]["result"] == "red"


# ---- penalties -----------------------------------------------------------------------------------------

ILLEGAL = ["ew@E5", "ns@F5"]   # Black's blank west edge against E5's wave


def test_skip_turn_by_default_the_opponent_moves_twice(tmp_path, capsys):
    out = referee(tmp_path, capsys, ILLEGAL + ["ne@A1", "ne@A3", "ne@J10"])
    assert out[1]["verdict"] == "illegal"
    assert out[1]["reason"] == "blank west edge of ns@F5 touches the wave of E5"
    assert out[1]["left"]["black"]["straight"] == 4            # the piece is out of the game
    assert [line["colour"] for line in out[2:5]] == ["red", "red", "black"]
    assert [line["next"] for line in out[1:5]] == ["red", "red", "black", "red"]


def test_forfeit_the_turn_passes_normally(tmp_path, capsys):
    out = referee(tmp_path, capsys, ILLEGAL + ["ne@A1", "ne@A3"], "--illegal-penalty", "forfeit")
    assert out[1]["verdict"] == "illegal" and out[1]["left"]["black"]["straight"] == 4
    assert [line["colour"] for line in out[2:4]] == ["red", "black"]


def test_retry_the_piece_comes_back_and_the_same_player_tries_again(tmp_path, capsys):
    out = referee(tmp_path, capsys, ILLEGAL + ["ew@F5"], "--illegal-penalty", "retry")
    assert out[1]["verdict"] == "illegal" and out[1]["next"] == "black"
    assert out[1]["left"]["black"] == STANDARD
    assert out[2]["colour"] == "black" and out[2]["verdict"] == "legal"


def test_the_penalty_is_read_from_a_records_header_and_a_flag_overrides_it(tmp_path, capsys):
    lines = ["# Thoughtwave game record", "# Penalty: retry"] + ILLEGAL
    assert referee(tmp_path, capsys, lines)[1]["next"] == "black"
    assert referee(tmp_path, capsys, lines, "--illegal-penalty", "forfeit")[1]["next"] == "red"


# ---- rejections, passes and draws -----------------------------------------------------------------------

def test_a_malformed_line_is_rejected_with_its_reason_and_play_goes_on(tmp_path, capsys):
    out = referee(tmp_path, capsys, ["ew@E5", "black ns@E5 please", "ns@K1", "hello world  # a comment",
                                     "  # only a comment", "ns@A1"])
    assert [line.get("verdict") for line in out[:-1]] == ["legal", "rejected", "rejected", "rejected", "legal"]
    assert out[1]["reason"] == ("'black ns@E5 please' is not a move: write [red|black] PIECE@CELL, "
                                "e.g. red ew@E5")
    assert out[2]["reason"] == "'K1' is not a cell: use a letter A-J and a number 1-10"
    assert out[3]["move"] == "hello world" and out[3]["colour"] is None
    assert all(line["next"] == "black" for line in out[1:4])
    assert out[-1] == {"result": "ongoing", "moves": 5}


@pytest.mark.parametrize("line, reason", [
    ("red ne@A1", "it is Black's turn, not Red's"),
    ("ns@E5", "E5 is already taken by ew"),
    ("X@A1", "Black has no cross left"),
])
def test_rejections_in_their_order(tmp_path, capsys, line, reason):
    out = referee(tmp_path, capsys, ["ew@E5", line], "--black-pieces", "cross=0")
    assert out[1]["verdict"] == "rejected" and out[1]["reason"] == reason
    assert out[1]["left"] == out[0]["left"] and out[1]["next"] == "black"


def test_an_automatic_pass_and_then_a_draw(tmp_path, capsys):
    out = referee(tmp_path, capsys, ["X@E5", "ne@A1", "ne@A3"],
                  "--red-pieces", only(cross=1), "--black-pieces", only(bend=2))
    assert [line["next"] for line in out[:3]] == ["black", "black", None]   # Red has nothing left: passes
    assert out[2]["draw"] is True and out[2]["winner"] is None
    assert out[-1] == {"result": "draw", "moves": 3}


def test_all_pieces_placed_is_a_draw(tmp_path, capsys):
    out = referee(tmp_path, capsys, ["ne@A1", "ne@J10", "ne@E5"],
                  "--red-pieces", only(bend=1), "--black-pieces", only(bend=1))
    assert out[1]["draw"] is True and out[1]["next"] is None
    assert out[2]["reason"] == "the game is over: it was drawn"
    assert out[-1] == {"result": "draw", "moves": 3}


def test_moves_from_standard_input(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("ew@E5\nblack ns@E6\n"))
    assert main(["referee", "--moves", "-"]) == 0
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line.get("verdict") for line in out] == ["legal", "illegal", None]


# ---- legal --------------------------------------------------------------------------------------------

def test_legal_the_help_pages_example(tmp_path, capsys):
    assert legal(tmp_path, capsys, SERVER_EXAMPLE, "A3") == {"cell": "A3", "colour": "red", "pieces": ["s", "sw", "w"]}
    assert legal(tmp_path, capsys, SERVER_EXAMPLE, "b2") == {"cell": "B2", "colour": "red", "pieces": ["nes"]}


def test_legal_lists_only_kinds_the_player_still_has(tmp_path, capsys):
    # Red's one junction went to B1, and only a junction fits B2
    assert legal(tmp_path, capsys, SERVER_EXAMPLE, "B2", "--red-pieces", "junction=1")["pieces"] == []
    assert legal(tmp_path, capsys, SERVER_EXAMPLE[:3], "B2")["colour"] == "black"


def test_legal_on_a_taken_cell_and_after_the_game(tmp_path, capsys):
    assert legal(tmp_path, capsys, SERVER_EXAMPLE, "B1")["pieces"] == []
    done = legal(tmp_path, capsys, interleave(RED_ROW_5, BLACK_ASIDE), "E9")
    assert done == {"cell": "E9", "colour": None, "pieces": []}


# ---- bad input: exit 2, exactly one line on stderr --------------------------------------------------------

def _bad_utf8(tmp_path: Path) -> str:
    path = tmp_path / "latin1.txt"
    path.write_bytes(b"\xff\xfe ew@E5\n")
    return str(path)


@pytest.mark.parametrize("argv", [
    lambda d: ["referee", "--moves", str(d / "missing.txt")],
    lambda d: ["referee", "--moves", str(d)],
    lambda d: ["referee", "--moves", _bad_utf8(d)],
    lambda d: ["referee", "--moves", "-", "--illegal-penalty", "death"],
    lambda d: ["referee", "--moves", "-", "--red-sides", "NE"],
    lambda d: ["referee", "--moves", "-", "--first", "blue"],
    lambda d: ["referee", "--moves", "-", "--red-pieces", "cross=x"],
    lambda d: ["referee", "--moves", "-", "--black-pieces", "knight=1"],
    lambda d: ["referee", "--moves", "-", "--bogus"],
    lambda d: ["referee"],
    lambda d: ["legal", "--moves", "-", "--at", "Z9"],
    lambda d: ["legal", "--moves", "-"],
    lambda d: ["legal", "--moves", str(d / "missing.txt"), "--at", "A1"],
    lambda d: [],
    lambda d: ["nonsense"],
])
def test_bad_input_exits_2_with_one_line_on_stderr(tmp_path, capsys, monkeypatch, argv):
    monkeypatch.setattr(sys, "stdin", io.StringIO("ew@E5\n"))
    assert main(argv(tmp_path)) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert len(err.splitlines()) == 1 and err.startswith("error: ")


def test_a_records_bad_header_is_bad_input(tmp_path, capsys):
    moves = tmp_path / "game.txt"
    moves.write_text("# Penalty: death\new@E5\n", encoding="utf-8")
    assert main(["referee", "--moves", str(moves)]) == 2
    assert capsys.readouterr().err == "error: Penalty 'death' is not skip-turn, forfeit or retry\n"


def test_standard_input_that_is_not_utf8_is_bad_input(capsys, monkeypatch):
    stdin = io.TextIOWrapper(io.BytesIO(b"\xff\xfe ew@E5\n"), encoding="utf-8", errors="surrogateescape")
    monkeypatch.setattr(sys, "stdin", stdin)
    assert main(["referee", "--moves", "-"]) == 2
    assert capsys.readouterr().err == "error: cannot read standard input: it is not UTF-8 text\n"


# ---- the installed script, once through a real process -------------------------------------------------------

def test_the_installed_script(tmp_path):
    done = subprocess.run([str(THOUGHTWAVE), "referee", "--moves", "-"], input="ew@E5\nblack ns@F5\nzz\n",
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stderr == ""
    out = [json.loads(line) for line in done.stdout.splitlines()]
    assert [line.get("verdict") for line in out] == ["legal", "illegal", "rejected", None]
    assert out[-1] == {"result": "ongoing", "moves": 3}
    bad = subprocess.run([str(THOUGHTWAVE), "referee", "--moves", str(tmp_path / "missing")],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and bad.stdout == "" and len(bad.stderr.splitlines()) == 1


# ---- play -----------------------------------------------------------------------------------------------

def _play(capsys, monkeypatch, lines: list[str], *flags: str) -> str:
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(lines) + "\n"))
    assert main(["play", *flags]) == 0
    return capsys.readouterr().out


def test_play_a_short_game_to_a_win(capsys, monkeypatch):
    out = _play(capsys, monkeypatch, interleave(RED_ROW_5, BLACK_ASIDE))
    assert "Red laid new@J5. Red has joined west and east and wins!" in out
    assert out.rstrip().endswith("Game over: Red wins.")


def test_play_explains_an_illegal_move_and_a_rejected_one(capsys, monkeypatch):
    out = _play(capsys, monkeypatch, ILLEGAL + ["red ew@E5", "legal F5", "quit"])
    assert ("Illegal: blank west edge of ns@F5 touches the wave of E5; the piece is out of the game and "
            "Black misses a turn.") in out
    assert "Not a move: E5 is already taken by ew. Nothing changed." in out
    assert "On F5 Red may lay: w, nw, ew, new, sw, nsw, esw, nesw" in out


def test_play_undo_and_the_record_file(tmp_path, capsys, monkeypatch):
    record = tmp_path / "game.twr"
    out = _play(capsys, monkeypatch, ["ew@E5", "ns@F5", "undo", "ew@F5"], "--record", str(record),
                "--red", "Ann", "--illegal-penalty", "forfeit")
    assert "Took back ns@F5." in out
    saved = GameRecord.parse(record.read_text(encoding="utf-8"))
    assert saved.red == "Ann" and saved.rules.penalty.value == "forfeit"
    assert [(m.move, m.outcome) for m in saved.moves] == [("ew@E5", Outcome.LEGAL), ("ew@F5", Outcome.LEGAL)]
    assert saved.replay().board.snapshot() == GameRecord.parse(saved.to_text()).replay().board.snapshot()


TOKENS = list("nesw XtrblABEJ0159@.#/-,\t\r\n") + ["red ", "black ", "ew@E5\n", "ns@E6\n", "é", "\u2028", "\x00"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.lists(st.sampled_from(TOKENS), max_size=60).map("".join))
def test_any_moves_file_gives_one_json_line_per_move_and_never_crashes(tmp_path, capsys, text):
    moves = tmp_path / "any.txt"
    moves.write_text(text, encoding="utf-8")
    assert main(["referee", "--moves", str(moves)]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    lines = [json.loads(line) for line in out.splitlines()]
    attempts = [line for line in text.splitlines() if line.split("#", 1)[0].strip()]
    assert len(lines) == len(attempts) + 1
    assert lines[-1]["moves"] == len(attempts) and lines[-1]["result"] in ("red", "black", "draw", "ongoing")
    assert all(list(line) == KEYS and line["verdict"] in ("legal", "illegal", "rejected") for line in lines[:-1])
