"""``thoughtwave play`` on a terminal: at 80x24 the board and the last verdict stay on screen (the screen is
redrawn, not scrolled), both players' pieces are in colour, and adjacent pieces are kept apart; piped
output has no colour codes."""

import io
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from thoughtwave.cli.main import main
from thoughtwave.cli.screen import screen_lines, visible
from thoughtwave.engine import Referee

THOUGHTWAVE = Path(sys.executable).with_name("thoughtwave")


def test_adjacent_pieces_are_kept_apart_and_coloured_by_owner():
    referee = Referee()
    for move in ("red ew@E5", "black ew@F5", "red ew@D5"):
        referee.play(move)
    row = screen_lines(referee, colour=True, unicode=True)[9]
    assert "·\x1b[97;41m───\x1b[0m·\x1b[97;41m───\x1b[0m·\x1b[30;47m───\x1b[0m·" in row
    assert all(visible(line) <= 80 for line in screen_lines(referee, colour=True, unicode=True))
    plain = screen_lines(referee, colour=False, unicode=False)
    assert " 5 .   .   .   .---.---.---.   ." in plain[9] and "\x1b" not in "".join(plain)


def test_piped_output_has_no_colour_or_screen_codes(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("ew@E5\nns@E7\nquit\n"))
    assert main(["play"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "Red laid ew@E5." in out and "Black to move" in out


def _screen(session: str) -> tuple[str, str]:
    plain = subprocess.run(["tmux", "capture-pane", "-t", session, "-p"], capture_output=True, text=True).stdout
    coloured = subprocess.run(["tmux", "capture-pane", "-t", session, "-p", "-e"], capture_output=True,
                              text=True).stdout
    return plain, coloured


@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")
@pytest.mark.parametrize("no_color", [False, True])
def test_at_80x24_the_board_and_the_last_verdict_stay_on_screen(tmp_path, no_color):
    session = f"twplay{time.monotonic_ns()}"
    command = f"env TERM=xterm-256color LANG=C.UTF-8 {'NO_COLOR=1 ' if no_color else ''}{THOUGHTWAVE} play"
    subprocess.run(["tmux", "new", "-d", "-s", session, "-x", "80", "-y", "24", command], check=True)
    try:
        moves = ["ew@E5", "ew@F5", "ew@D5", "ns@C3", "nesw@E4"]
        for move in moves:
            plain = ""
            for _ in range(100):            # wait for the prompt before typing
                plain, _ = _screen(session)
                if "to move>" in plain:
                    break
                time.sleep(0.05)
            subprocess.run(["tmux", "send-keys", "-t", session, move, "Enter"], check=True)
        for _ in range(100):
            plain, coloured = _screen(session)
            if "Illegal" in plain and "to move>" in plain:
                break
            time.sleep(0.05)
        lines = plain.splitlines()
        assert lines[0].split()[:10] == list("ABCDEFGHIJ"), "the column letters are still the top line"
        assert any(line.startswith("10 ") for line in lines), "the last row is on screen"
        assert any("Illegal" in line for line in lines) and lines[-1].startswith("Black to move>")
        assert "·───·───·───·" in plain
        tiles = "\x1b[97m\x1b[41m" in coloured, "\x1b[30m\x1b[47m" in coloured
        assert tiles == ((False, False) if no_color else (True, True)), "both players' pieces in colour, or none"
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session])
