"""bench/scaling.py: positions of self-play searched at several budgets, sorted into dead draws, decided and open."""

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

from scaling import kind  # noqa: E402


def test_a_position_every_search_values_at_exactly_nothing_is_drawn_and_a_forced_result_decided():
    assert kind([0.0, 0.0]) == "drawn"
    assert kind([0.0, 0.12]) == "open" and kind([0.5, 0.0]) == "open"
    assert kind([995.0, 995.0]) == "decided" and kind([-996.0, 0.3]) == "decided"


def test_scaling_prints_a_line_a_position_and_counts_the_changed_moves():
    done = subprocess.run([sys.executable, str(BENCH / "scaling.py"), "--seeds", "5001-5002", "--nodes", "20,40",
                           "--play-nodes", "10"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == ("| seed | placement | Red needs | Black needs | 20 positions, 6 root moves | "
                        "40 positions, 6 root moves |")
    assert [line.split(" | ")[0] for line in lines[2:4]] == ["| 5001", "| 5002"]
    assert all(" of " in line.split(" | ")[2] and " of " in line.split(" | ")[3] for line in lines[2:4])
    assert "2 positions: " in done.stdout
    assert "40 positions with 6 root moves chose another move than 20 with 6 in " in done.stdout


def test_scaling_says_in_one_line_what_is_wrong_with_its_arguments():
    for args in (["--nodes", "a,b"], ["--nodes", "0"], ["--seeds", "x-y"]):
        done = subprocess.run([sys.executable, str(BENCH / "scaling.py"), *args], capture_output=True, text=True,
                              timeout=60)
        assert done.returncode != 0 and "Traceback" not in done.stderr, args
        assert done.stderr.strip().count("\n") == 0, done.stderr
