"""bench/cost_against.py: the other revision's reader is the one timed (taken from git, imported from where it was put),
each frame keeps its lowest time over the runs, and the ratios are over the frames the other reader found the
board in."""

import subprocess
import sys
from pathlib import Path

import cv2
import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

from cost_against import extract, figures, lowest, main, read_times  # noqa: E402

from thoughtwave.synth import Scene, render  # noqa: E402


def has_git_history() -> bool:
    run = subprocess.run(["git", "-C", str(BENCH.parent), "rev-parse", "--verify", "HEAD"], capture_output=True)
    return run.returncode == 0


@pytest.mark.skipif(not has_git_history(), reason="needs the checkout's git history")
def test_the_other_revisions_reader_is_taken_from_git_and_timed_apart(tmp_path):
    package = extract("HEAD", tmp_path / "rev")
    assert (package / "thoughtwave" / "vision" / "recognizer.py").is_file()
    assert (package / "thoughtwave" / "engine" / "cells.py").is_file()
    frames = tmp_path / "set"
    frames.mkdir()
    frame, _ = render(Scene.random(3, level="clean", hand=False, resolution=(640, 480)))
    cv2.imwrite(str(frames / "frame-00000.png"), frame)
    times, found = read_times(package, frames, None, 1)
    assert list(times) == ["frame-00000"] and times["frame-00000"] > 0
    assert found == {"frame-00000": True}
    # The child refuses a reader that did not come from where it was put: the checkout's, asked for another folder's.
    with pytest.raises(SystemExit, match="the reader came from"):
        read_times(tmp_path / "empty", frames, None, 1)


def test_each_frame_keeps_its_lowest_time_over_the_runs():
    assert lowest([{"a": 5.0, "b": 9.0}, {"a": 4.0, "b": 12.0, "c": 1.0}]) == {"a": 4.0, "b": 9.0}


def test_the_ratios_are_over_the_frames_the_other_reader_found_the_board_in_and_over_all():
    # A board it lost it may still have looked for a while (seed 149 frame 10: 16.6 ms): its time does not say.
    other = {"lost": 15.0, "f1": 20.0, "f2": 40.0}
    this = {"lost": 300.0, "f1": 30.0, "f2": 40.0}
    read, every = figures(this, other, {"lost": False, "f1": True, "f2": True})
    assert read.startswith("the 2 frames it found the board in: median 35.0 ms against 30.0 (1.17x)")
    assert "mean 35.0 ms against 30.0 (1.17x)" in read
    assert every.startswith("all 3 frames") and "mean 123.3 ms against 25.0 (4.93x)" in every


def test_a_folder_without_frames_is_a_one_line_error(tmp_path):
    with pytest.raises(SystemExit, match="no frame-"):
        main([str(tmp_path)])


def test_a_revision_that_is_not_there_is_a_one_line_error(tmp_path):
    with pytest.raises(SystemExit, match="not-a-revision: not a revision of this checkout"):
        extract("not-a-revision", tmp_path)
