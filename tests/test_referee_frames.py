"""``thoughtwave referee --frames``: frames in, the ``--moves`` lines (with a frame index) and events out."""

import json
import sys
import types

import cv2
import numpy as np
import pytest

from thoughtwave.cli import main
from thoughtwave.engine.cells import CELLS, Cell
from thoughtwave.engine.pieces import Colour, Piece
from thoughtwave.vision.reading import BoardReading, CellReading

# ---- the command's wiring, with a stand-in reader: each frame's image says which tiles lie where ----
#: frame images are 8x8; pixel (0, c) non-zero means the tile TILES[c] is on the board, pixel (1, 0) a hand
TILES = [("E5", "red", "ew"), ("F5", "black", "ns"), ("D5", "black", "ew")]


class _PixelRecognizer:
    def __init__(self, profile=None):
        self.profile = profile
        self.pose_moved = False

    def read(self, image):
        cells = {c: CellReading.empty() for c in CELLS}
        for i, (cell, colour, piece) in enumerate(TILES):
            if image[0, i, 0] > 128:
                cells[Cell.parse(cell)] = CellReading.tile(Colour.parse(colour), Piece.parse(piece))
        return BoardReading(True, cells, occluded=bool(image[1, 0, 0] > 128))

    def draw_overlay(self, image):
        return image


@pytest.fixture
def pixel_reader(monkeypatch):
    monkeypatch.setitem(sys.modules, "thoughtwave.vision.recognizer",
                        types.SimpleNamespace(Recognizer=_PixelRecognizer))


def _write_frames(directory, states: list[tuple[set[int], bool]], repeat: int = 6):
    """PNG frames: each (tiles shown, hand) state held for ``repeat`` frames."""
    directory.mkdir(exist_ok=True)
    n = 0
    for tiles, hand in states:
        for _ in range(repeat):
            image = np.zeros((8, 8, 3), np.uint8)
            for i in tiles:
                image[0, i] = 255
            image[1, 0] = 255 if hand else 0
            cv2.imwrite(str(directory / f"frame_{n:05d}.png"), image)
            n += 1


def _run(capsys, *argv) -> tuple[int, list[dict], str]:
    code = main(["referee", *argv])
    out, err = capsys.readouterr()
    return code, [json.loads(line) for line in out.splitlines()], err


def test_frames_from_a_directory_are_refereed_like_typed_moves(tmp_path, capsys, pixel_reader):
    _write_frames(tmp_path / "game", [
        (set(), False), (set(), True), ({0}, False), ({0}, True), ({0, 1}, False),   # F5 is illegal
        ({0}, True), ({0}, False), ({0, 2}, True), ({0, 2}, False),                  # D5 is out of turn
        ({0}, True), ({0}, False),
    ])
    (tmp_path / "game" / "frame_00007.png").write_bytes(b"broken")
    code, lines, _ = _run(capsys, "--frames", str(tmp_path / "game"), "--fps", "5")
    assert code == 0
    moves = [(x["colour"], x["move"], x["verdict"]) for x in lines if "verdict" in x]
    assert moves == [("red", "ew@E5", "legal"), ("black", "ns@F5", "illegal"), ("black", "ew@D5", "rejected")]
    typed = tmp_path / "typed.txt"
    typed.write_text("red ew@E5\nblack ns@F5\nblack ew@D5\n")
    _, by_hand, _ = _run(capsys, "--moves", str(typed))
    for seen, want in zip([x for x in lines if "verdict" in x], by_hand, strict=False):
        assert {k: v for k, v in seen.items() if k != "frame"} == want
    events = [x["event"] for x in lines if "event" in x]
    assert events[0] == "board-found" and "warning" in events
    assert events.count("flag") == 2 and events.count("cleared") == 2
    assert lines[-1] == {"result": "ongoing", "moves": 3, "frames": 65}
    assert all("frame" in x for x in lines[:-1])


def test_frames_from_a_video_file_take_its_frame_rate(tmp_path, capsys, pixel_reader):
    video = tmp_path / "game.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 5, (64, 48))
    for tiles, hand in [(set(), False), (set(), True), ({0}, False)]:
        for _ in range(6):
            image = np.zeros((48, 64, 3), np.uint8)
            for i in tiles:
                image[0:2, i * 2:i * 2 + 1] = 255     # MJPG smears single pixels: paint small blocks
            image[1, 0] = 255 if hand else 0
            writer.write(image)
    writer.release()
    code, lines, _ = _run(capsys, "--frames", str(video))
    assert code == 0
    moves = [(x["move"], x["frame"]) for x in lines if "verdict" in x]
    assert [m for m, _ in moves] == ["ew@E5"] and 12 + 2 <= moves[0][1] <= 12 + 3     # 0.4 s at the file's 5 fps


def test_the_rules_flags_apply_to_frames(tmp_path, capsys, pixel_reader):
    _write_frames(tmp_path / "game", [(set(), False), ({2}, False)])
    code, lines, _ = _run(capsys, "--frames", str(tmp_path / "game"), "--first", "black")
    assert code == 0 and [x["move"] for x in lines if "verdict" in x] == ["ew@D5"]


@pytest.mark.parametrize("make", [
    lambda p: str(p / "missing"),
    lambda p: str(p),                                                      # a directory without images
    lambda p: (p / "notes.avi").write_text("not a video") and str(p / "notes.avi"),
])
def test_a_missing_or_unreadable_source_is_exit_2_with_one_line(tmp_path, capsys, make):
    code, lines, err = _run(capsys, "--frames", make(tmp_path))
    assert code == 2 and lines == []
    assert err.startswith("error: ") and err.count("\n") == 1


def test_frames_without_a_board_are_exit_1_after_the_summary(tmp_path, capsys):
    frames = tmp_path / "table"
    frames.mkdir()
    for i in range(12):
        cv2.imwrite(str(frames / f"{i:03d}.jpg"), np.full((120, 160, 3), 90 + i, np.uint8))
    code, lines, err = _run(capsys, "--frames", str(frames))
    assert code == 1 and err.startswith("not found: no board")
    assert [x.get("event") for x in lines[:-1]] == ["board-lost"]
    assert lines[-1] == {"result": "ongoing", "moves": 0, "frames": 12}


@pytest.mark.parametrize("profile", ["missing.json", "list.json"])
def test_a_missing_or_malformed_profile_is_exit_2(tmp_path, capsys, profile):
    _write_frames(tmp_path / "game", [(set(), False)])
    (tmp_path / "list.json").write_text("[1, 2]")
    code, lines, err = _run(capsys, "--frames", str(tmp_path / "game"), "--profile", str(tmp_path / profile))
    assert code == 2 and lines == [] and err.count("\n") == 1 and profile in err


def test_a_damaged_profile_in_the_state_directory_is_reported_and_the_defaults_are_used(tmp_path, capsys,
                                                                                         monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.delenv("STATE_DIRECTORY", raising=False)
    monkeypatch.setattr("thoughtwave.config.DEFAULT_CONFIG_PATH", tmp_path / "no-config.toml")
    (tmp_path / "state" / "thoughtwave").mkdir(parents=True)
    (tmp_path / "state" / "thoughtwave" / "profile.json").write_text('{"kind": "thoughtwave-calibration", "vers')
    _write_frames(tmp_path / "game", [(set(), False)])
    code, lines, err = _run(capsys, "--frames", str(tmp_path / "game"))
    assert code == 1 and "damaged" in err and "default colour model" in err
    assert lines[-1]["frames"] >= 1


def test_fps_must_be_positive(tmp_path, capsys):
    _write_frames(tmp_path / "game", [(set(), False)])
    code, _, err = _run(capsys, "--frames", str(tmp_path / "game"), "--fps", "0")
    assert code == 2 and "fps" in err


def test_moves_and_frames_are_exclusive(tmp_path, capsys):
    code, _, _ = _run(capsys, "--frames", str(tmp_path), "--moves", "x.txt")
    assert code == 2


# ---- the whole pipeline: the demo camera's scripted game, rendered to a directory, refereed from pixels ----
@pytest.mark.slow
def test_the_demo_game_filmed_and_refereed_from_frames_gives_the_scripted_verdicts(tmp_path, capsys):
    from thoughtwave.synth.demo import DEMO_EXPECTED, DEMO_WINNER, DemoCamera

    fps = 4
    camera = DemoCamera(fps=fps, seed=0, loop=False, realtime=False, resolution=(480, 360))
    frames = tmp_path / "frames"
    frames.mkdir()
    count = 0
    while (frame := camera.read()) is not None:
        cv2.imwrite(str(frames / f"frame_{frame.index:05d}.png"), frame.image, [cv2.IMWRITE_PNG_COMPRESSION, 1])
        count += 1
    code, lines, _ = _run(capsys, "--frames", str(frames), "--fps", str(fps))
    assert code == 0
    got = [(x["colour"], x["move"], x["verdict"]) for x in lines if "verdict" in x]
    assert got == list(DEMO_EXPECTED)           # the illegal bend, the out-of-turn straight, Red's win
    assert lines[-1] == {"result": DEMO_WINNER, "moves": len(DEMO_EXPECTED), "frames": count}
    # the two refused tiles were flagged, then cleared when taken off; nothing else was left standing
    flags = [(x["flag"], x["cell"]) for x in lines if x.get("event") == "flag"]
    cleared = [(x["flag"], x["cell"]) for x in lines if x.get("event") == "cleared"]
    assert flags.count(("illegal-piece", "G8")) == 1 and flags.count(("rejected-piece", "G8")) == 1
    assert ("illegal-piece", "G8") in cleared and ("rejected-piece", "G8") in cleared
    assert not [f for f in flags if f[0] not in ("illegal-piece", "rejected-piece", "unreadable")]
    # frames only grow, and every verdict comes after the hand that laid its tile
    numbers = [x["frame"] for x in lines[:-1]]
    assert numbers == sorted(numbers)
    assert sum(1 for x in lines if x.get("event") == "hand") >= len(DEMO_EXPECTED)
