"""The CLI's front door: a moves file in, the DESIGN.md JSON shape out."""

import json

from thoughtwave.webui.cli import main


def test_referee_prints_one_line_per_move_and_a_summary(tmp_path, capsys):
    moves = tmp_path / "game.txt"
    moves.write_text("# opening\new@E5\n\nblack ns@E6\n")
    assert main(["referee", "--moves", str(moves)]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [x.get("verdict") for x in lines[:2]] == ["legal", "illegal"]
    assert set(lines[0]) == {"n", "colour", "move", "verdict", "reason", "next", "winner", "draw", "left"}
    assert lines[-1] == {"result": "ongoing", "moves": 2}
