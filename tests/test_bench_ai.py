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
