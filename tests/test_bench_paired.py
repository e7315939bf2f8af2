"""bench/ai.py --results, bench/paired.py (two runs compared game by game, with a sign test) and bench/pooled.py
(runs of one pairing on different openings added up)."""

import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench"


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=300)


def _write(path: Path, results: list[str], first_opening: int = 7) -> Path:
    path.write_text("".join(json.dumps({"first": "L3@1", "second": "twoply", "game": g,
                                        "opening": first_opening + g // 2,
                                        "colour": "red" if g % 2 == 0 else "black", "result": r}) + "\n"
                            for g, r in enumerate(results)))
    return path


def test_paired_counts_the_games_a_change_won_or_lost_and_tests_the_split(tmp_path):
    before = _write(tmp_path / "a.jsonl", ["draw", "draw", "win", "loss"])
    after = _write(tmp_path / "b.jsonl", ["win", "win", "win", "loss"])
    done = _run(str(BENCH / "paired.py"), str(before), str(after))
    assert done.returncode == 0, done.stderr
    assert "better in 2 games, worse in 0, the same in 2; sign test p = 0.50 (no more than noise)" in done.stdout
    assert "| 4 | 1 | 2 | 1 | 50 " in done.stdout and "| 4 | 3 | 0 | 1 | 75 " in done.stdout


def test_paired_compares_one_player_across_two_runs_not_two_players_in_one(tmp_path):
    one = _write(tmp_path / "a.jsonl", ["draw", "draw"])
    other = tmp_path / "b.jsonl"
    other.write_text(one.read_text().replace("L3@1", "L3@4"))     # the same computer at another clock
    done = _run(str(BENCH / "paired.py"), str(one), str(other))
    assert done.returncode == 0 and "the same in 2" in done.stdout
    mixed = tmp_path / "c.jsonl"
    mixed.write_text(one.read_text() + other.read_text())
    done = _run(str(BENCH / "paired.py"), str(one), str(mixed))
    assert done.returncode != 0 and "measures 2 players (L3@1, L3@4)" in done.stderr


def test_sign_test():
    sys.path.insert(0, str(BENCH))
    from ladder import sign_test
    assert sign_test(0, 0) == 1.0
    assert sign_test(3, 3) == 1.0
    assert sign_test(0, 5) == 0.0625
    assert sign_test(10, 0) < 0.01 and sign_test(10, 0) == sign_test(0, 10)


def test_paired_says_in_one_line_what_is_wrong_with_a_file(tmp_path):
    good = _write(tmp_path / "a.jsonl", ["draw", "win"])
    bad = tmp_path / "b.jsonl"
    bad.write_text('{"first": "L3@1"}\n')
    done = _run(str(BENCH / "paired.py"), str(good), str(bad))
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert done.stderr.strip().count("\n") == 0 and "b.jsonl:1: not a bench/ai.py --results line" in done.stderr
    binary = tmp_path / "c.jsonl"
    binary.write_bytes(b"\xff\xfe{}\n")
    done = _run(str(BENCH / "paired.py"), str(good), str(binary))
    assert done.returncode != 0 and "Traceback" not in done.stderr and "c.jsonl: cannot read it" in done.stderr
    missing = _run(str(BENCH / "paired.py"), str(good), str(tmp_path / "nothing.jsonl"))
    assert missing.returncode != 0 and "no such file" in missing.stderr


def test_ai_refuses_a_results_file_it_could_not_write_before_playing(tmp_path):
    done = _run(str(BENCH / "ai.py"), "--games", "2", "--results", str(tmp_path / "none" / "a.jsonl"))
    assert done.returncode == 2 and "no folder" in done.stderr and "Traceback" not in done.stderr


def test_ai_writes_results_that_paired_matches_game_by_game(tmp_path):
    common = ["--nodes", "20", "--games", "2", "--opponents", "random", "--opening", "2", "--processes", "1",
              "--seed", "5"]
    first = _run(str(BENCH / "ai.py"), *common, "--results", str(tmp_path / "a.jsonl"))
    assert first.returncode == 0, first.stderr
    second = _run(str(BENCH / "ai.py"), *common, "--set", "width=0.0", "--results", str(tmp_path / "b.jsonl"))
    assert second.returncode == 0, second.stderr
    lines = [json.loads(x) for x in (tmp_path / "b.jsonl").read_text().splitlines()]
    assert [(x["opening"], x["colour"]) for x in lines] == [(5, "red"), (5, "black")]
    assert {x["set"] for x in lines} == {"width=0.0"} and {x["nodes"] for x in lines} == {20}
    done = _run(str(BENCH / "paired.py"), str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl"))
    assert done.returncode == 0, done.stderr
    assert "| 2 |" in done.stdout and "sign test p =" in done.stdout


def test_pooled_adds_up_runs_on_different_openings_and_tests_wins_against_losses(tmp_path):
    one = _write(tmp_path / "a.jsonl", ["win", "draw", "win", "loss"])
    two = _write(tmp_path / "b.jsonl", ["win", "win", "draw", "draw"], first_opening=100)
    done = _run(str(BENCH / "pooled.py"), str(one), str(two))
    assert done.returncode == 0, done.stderr
    assert "L3@1 against twoply" in done.stdout
    assert "| 4 | 2 | 1 | 1 | 62 " in done.stdout and "| 4 | 2 | 2 | 0 | 75 " in done.stdout
    assert "| **all** | 8 | 4 | 3 | 1 | 69 " in done.stdout
    assert "Wins against losses 4 / 1: sign test p = 0.375 (no more than noise)" in done.stdout


def test_pooled_refuses_a_game_twice_and_two_pairings_in_one_line(tmp_path):
    one = _write(tmp_path / "a.jsonl", ["win", "draw"])
    again = _run(str(BENCH / "pooled.py"), str(one), str(one))
    assert again.returncode != 0 and "Traceback" not in again.stderr
    assert "both hold the game of opening 7 with red" in again.stderr
    other = tmp_path / "b.jsonl"
    other.write_text(_write(tmp_path / "c.jsonl", ["win"], first_opening=50).read_text().replace("twoply", "greedy"))
    mixed = _run(str(BENCH / "pooled.py"), str(one), str(other))
    assert mixed.returncode != 0 and "different pairings (L3@1 against greedy, L3@1 against twoply)" in mixed.stderr
    assert mixed.stderr.strip().count("\n") == 0
