"""bench/beliefs.py: the positions where the computer's search claims a forced result the game contradicts."""

import subprocess
import sys
from pathlib import Path

from thoughtwave.engine import Referee
from thoughtwave.engine.record import GameRecord

BENCH = Path(__file__).resolve().parent.parent / "bench"
BLACK_QUIET = [f"ns@{c}1" for c in "ACEGI"] + [f"ne@{c}10" for c in "ACEGI"]


def _record(tmp_path: Path, result: str, red: str = "L3@1", black: str = "twoply") -> Path:
    """Red's wave runs A5-I5, one placement from the east side, Red to move: a win the search sees at once."""
    referee = Referee()
    for k, column in enumerate("ABCDEFGHI"):
        referee.play(f"red {'ew' if column < 'F' else 'new'}@{column}5")
        referee.play(f"black {BLACK_QUIET[k]}")
    record = GameRecord.from_referee(referee, red=red, black=black)
    record.result = result
    path = tmp_path / f"{result}.txt"
    path.write_text(record.to_text())
    return path


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(BENCH / "beliefs.py"), *args], capture_output=True, text=True,
                          timeout=120)


def test_a_claimed_win_in_a_game_not_won_is_reported_and_not_in_one_won(tmp_path):
    drawn, won = _record(tmp_path, "draw"), _record(tmp_path, "red")
    done = _run(str(drawn), str(won), "--nodes", "100")
    assert done.returncode == 0, done.stderr
    # Red at H5 with the move already has a double threat: the first position the search claims the win in.
    assert "draw.txt: placement 17, red to move: the search claims a forced win" in done.stdout
    assert "the game was drawn" in done.stdout and "red.txt" not in done.stdout
    assert "1 of 2 games" in done.stdout
    done = _run(str(drawn), "--nodes", "100", "--from", "17")
    assert "draw.txt: placement 19, red to move" in done.stdout


def test_a_claimed_loss_counts_only_in_a_game_not_lost_and_the_side_comes_from_the_names(tmp_path):
    # Black as the computer, to move at placement 18 against Red's two winning cells: a forced loss.
    done = _run(str(_record(tmp_path, "draw", red="ann", black="L3@1")), "--nodes", "100")
    assert done.returncode == 0 and "placement 18, black to move: the search claims a forced loss" in done.stdout
    done = _run(str(_record(tmp_path, "red", red="ann", black="L3@1")), "--nodes", "100")
    assert done.returncode == 0 and "0 of 1 games" in done.stdout
    unnamed = _record(tmp_path, "draw", red="ann", black="bob")
    done = _run(str(unnamed), "--nodes", "100")
    assert done.returncode == 2 and "say --side" in done.stderr and "Traceback" not in done.stderr
    done = _run(str(unnamed), "--nodes", "100", "--side", "red")
    assert done.returncode == 0 and "1 of 1 games" in done.stdout


def test_a_file_that_is_no_game_record_is_one_line(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"\xff\xfe not a record")
    done = _run(str(bad))
    assert done.returncode == 2 and "cannot read it as a game record" in done.stderr
    assert "Traceback" not in done.stderr
