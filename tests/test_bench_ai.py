"""bench/ai.py: the players a spec names and their budgets."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

import ai  # noqa: E402


def test_a_node_budget_is_per_second_of_the_named_clock_so_time_odds_hold_without_a_clock():
    knobs = {"max_nodes": 1500, "clock": False}
    four, one = ai.make_player("L3@4", 1, knobs).__self__, ai.make_player("L3@1", 1, knobs).__self__
    assert (four.max_nodes, four.seconds) == (6000, None)
    assert (one.max_nodes, one.seconds) == (1500, None)
    assert knobs == {"max_nodes": 1500, "clock": False}          # the shared knobs are not changed by a player


def test_without_a_node_budget_the_named_clock_is_the_clock():
    player = ai.make_player("L2@0.5", 1, {}).__self__
    assert (player.level, player.seconds, player.max_nodes) == (2, 0.5, None)


def test_set_first_gives_the_measured_computer_its_own_knobs_and_its_computer_opponent_none(monkeypatch):
    made: list[tuple[str, dict]] = []
    real = ai.make_player

    def spy(spec, seed, knobs):
        made.append((spec, dict(knobs)))
        return real(spec, seed, knobs)

    monkeypatch.setattr(ai, "make_player", spy)
    job = ai._jobs([("L3@4", "L3@1")], 1, 7, 2, {"max_nodes": 20, "clock": False}, {"root_beam": 12})[0]
    result = ai.play_one(job)
    assert result["first"] == "L3@4" and result["result"] in ("win", "draw", "loss")
    assert made == [("L3@4", {"max_nodes": 20, "clock": False, "root_beam": 12}),
                    ("L3@1", {"max_nodes": 20, "clock": False})]


def test_set_first_refuses_an_unknown_knob_in_one_line_before_any_game(tmp_path):
    import subprocess
    done = subprocess.run([sys.executable, str(Path(ai.__file__)), "--games", "2", "--opponents", "random",
                           "--set-first", "roots=12"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "Traceback" not in done.stderr and "roots" in done.stderr
    bad = subprocess.run([sys.executable, str(Path(ai.__file__)), "--games", "2", "--set-first", "root_beam=x"],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and "name=number" in bad.stderr
