"""The CLI's front door: a moves file in, the DESIGN.md JSON shape out; ``python -m thoughtwave.cli`` is the
same program, and a command loads only its own module."""

import json
import subprocess
import sys

import pytest

from thoughtwave.cli import COMMANDS, main


def test_referee_prints_one_line_per_move_and_a_summary(tmp_path, capsys):
    moves = tmp_path / "game.txt"
    moves.write_text("# opening\new@E5\n\nblack ns@E6\n")
    assert main(["referee", "--moves", str(moves)]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [x.get("verdict") for x in lines[:2]] == ["legal", "illegal"]
    assert set(lines[0]) == {"n", "colour", "move", "verdict", "reason", "next", "winner", "draw", "left"}
    assert lines[-1] == {"result": "ongoing", "moves": 2}


def test_python_dash_m_runs_the_cli_with_its_exit_codes():
    done = subprocess.run([sys.executable, "-m", "thoughtwave.cli", "legal", "--moves", "-", "--at", "E6"],
                          input="ew@E5\n", capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stderr == ""
    assert json.loads(done.stdout)["colour"] == "black"
    bad = subprocess.run([sys.executable, "-m", "thoughtwave.cli", "legal", "--moves", "-", "--at", "Z9"],
                         input="", capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and bad.stdout == "" and bad.stderr.startswith("error: ")


def test_a_command_imports_its_own_module_and_not_the_others():
    # `legal` is typed at a terminal: it must not pay for OpenCV, Flask or the other commands' modules.
    probe = ("import json, sys; from thoughtwave.cli import main; main(['legal', '--moves', '-', '--at', 'A1']); "
             "json.dump(sorted(m for m in sys.modules if m.split('.')[0] in ('cv2', 'flask') "
             "or m.startswith(('thoughtwave.cli.', 'thoughtwave.webui.cmd_'))), sys.stderr)")
    done = subprocess.run([sys.executable, "-c", probe], input="", capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    loaded = set(json.loads(done.stderr))
    assert loaded == {"thoughtwave.cli.errors", "thoughtwave.cli.legal", "thoughtwave.cli.main",
                      "thoughtwave.cli.rulesargs"}


def test_help_lists_every_command_in_order(capsys):
    with pytest.raises(SystemExit) as done:   # argparse's --help prints and exits 0
        main(["--help"])
    assert done.value.code == 0
    names = {name for name, _, _ in COMMANDS}
    listed = [line.split()[0] for line in capsys.readouterr().out.splitlines() if line.startswith("    ")]
    assert [name for name in listed if name in names] == [name for name, _, _ in COMMANDS]
