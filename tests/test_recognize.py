"""The recogniser and ``thoughtwave recognize``: a frame in, the board as JSON out; bad input never crashes."""

import json
from dataclasses import replace

import cv2
import numpy as np
import pytest
import threadpoolctl

from thoughtwave.cli import main
from thoughtwave.synth import Camera, Scene, render
from thoughtwave.vision.reading import CellState
from thoughtwave.vision.recognizer import Recognizer


@pytest.fixture(scope="module")
def mild_frame():
    return render(Scene.random(61, level="mild", hand=False))


def test_a_frame_reads_as_the_board_it_shows(mild_frame):
    frame, truth = mild_frame
    reading = Recognizer().read(frame)
    assert reading.board_found and not reading.occluded
    assert {str(c): r.label() for c, r in reading.tiles().items()} == truth.board_state()
    assert reading.unreadable() == []
    assert reading.ms > 0


@pytest.mark.parametrize("bad", [None, "frame.png", np.zeros(10), np.zeros((8, 8, 3), np.uint8),
                                 np.zeros((64, 64, 5), np.uint8), np.full((64, 64), np.nan),
                                 np.zeros((64, 64, 3), np.int64)])
def test_bad_frames_read_as_no_board(bad):
    recognizer = Recognizer()
    reading = recognizer.read(bad)
    assert not reading.board_found and reading.cells == {}
    assert not recognizer.pose_moved


def test_grey_and_float_frames_still_find_the_board(mild_frame):
    frame, _ = mild_frame
    assert Recognizer().read(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)).board_found
    assert Recognizer().read(frame.astype(np.float32) / 255.0).board_found


def test_a_grey_camera_never_guesses_red(mild_frame):
    frame, truth = mild_frame
    grey = cv2.cvtColor(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    reading = Recognizer().read(grey)
    assert all(r.colour.value != "red" for r in reading.tiles().values())
    # Red tiles lose their hue: their dots then disagree, so they are unreadable, not black.
    red_cells = [c for c, (colour, _) in truth.tiles.items() if colour.value == "red"]
    assert all(reading.get(c).state is CellState.UNREADABLE for c in red_cells)


def test_pose_flags_over_a_stream_and_the_overlay(mild_frame):
    frame, truth = mild_frame
    recognizer = Recognizer()
    recognizer.read(frame)
    assert not recognizer.pose_moved and not recognizer.pose_reused
    overlay = recognizer.draw_overlay(frame)
    assert overlay.shape == frame.shape and overlay is not frame
    centre = np.rint(truth.project(np.array([[177.0, 177.0]]))[0]).astype(int)
    # The grid is drawn over the board, not elsewhere.
    board_area = np.s_[centre[1] - 150:centre[1] + 150, centre[0] - 150:centre[0] + 150]
    assert np.any(overlay[board_area] != frame[board_area])
    assert np.array_equal(overlay[:5, :5], frame[:5, :5])

    # The markers hidden (a sheet over the rim): the last pose is reused, the board still read.
    rim_hidden = frame.copy()
    inside = np.rint(truth.project(np.array([[40.0, 40.0], [314.0, 40.0], [314.0, 314.0], [40.0, 314.0]])))
    mask = np.zeros(frame.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, inside.astype(np.int32), 1)
    rim_hidden[mask == 0] = (90, 120, 150)
    reading = recognizer.read(rim_hidden)
    assert recognizer.pose_reused and reading.board_found
    assert {str(c): r.label() for c, r in reading.tiles().items()} == truth.board_state()

    # Everything hidden under a cloth: no board, not an empty one.
    covered = np.full_like(frame, (90, 120, 150))
    assert not recognizer.read(covered).board_found

    turned, _ = render(replace(Scene.random(61, level="mild", hand=False),
                               camera=Camera(fov_deg=62, height_mm=700, yaw_deg=40, aim_mm=(177, 177))))
    recognizer.read(turned)
    assert recognizer.pose_moved and not recognizer.pose_reused


def test_a_profile_can_be_a_dict_or_a_file(tmp_path, mild_frame):
    frame, truth = mild_frame
    path = tmp_path / "profile.json"
    path.write_text(json.dumps({"colour_model": {"redness_split": 0.18}, "lens": None}))
    assert Recognizer(str(path)).reader.model.redness_split == 0.18
    assert Recognizer({"colour_model": {"redness_split": 0.17}}).reader.model.redness_split == 0.17
    with pytest.raises(OSError):
        Recognizer(str(tmp_path / "missing.json"))
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(ValueError):
        Recognizer(str(tmp_path / "bad.json"))


# -- the CLI -------------------------------------------------------------------------------------

def test_recognize_prints_the_board(tmp_path, capsys, mild_frame):
    frame, truth = mild_frame
    image = tmp_path / "board.jpg"
    cv2.imwrite(str(image), frame, [cv2.IMWRITE_JPEG_QUALITY, 92])
    assert main(["recognize", str(image)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"board_found", "cells", "unreadable", "ms"}
    assert out["board_found"] is True and out["unreadable"] == []
    assert {cell: f"{v['colour']} {v['piece']}" for cell, v in out["cells"].items()} == truth.board_state()
    assert all(0.5 <= v["confidence"] <= 1 for v in out["cells"].values())


def test_recognize_with_a_calibration_profile(tmp_path, capsys, mild_frame):
    from thoughtwave.calibration.profile import Profile, save_profile

    frame, truth = mild_frame
    image = tmp_path / "board.png"
    cv2.imwrite(str(image), frame)
    profile = tmp_path / "profile.json"
    save_profile(Profile(resolution=(1280, 960), homography=((1, 0, 0), (0, 1, 0), (0, 0, 1)), cell_px=40.0,
                         colour_model={"redness_split": 0.17}), profile)
    assert main(["recognize", str(image), "--profile", str(profile)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["cells"]) == len(truth.tiles)


def test_recognize_exit_codes(tmp_path, capsys):
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((480, 640, 3), 230, np.uint8))
    assert main(["recognize", str(blank)]) == 1
    assert "no board" in capsys.readouterr().err

    text = tmp_path / "notes.png"
    text.write_text("not a picture")
    empty = tmp_path / "empty.jpg"
    empty.write_bytes(b"")
    bad_profile = tmp_path / "profile.json"
    bad_profile.write_text("{")
    for argv in (["recognize", str(text)], ["recognize", str(empty)], ["recognize", str(tmp_path / "none.png")],
                 ["recognize", str(tmp_path)], ["recognize", str(blank), "--profile", str(bad_profile)],
                 ["recognize"]):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("error:"), argv


def test_a_lens_model_made_at_another_resolution_is_not_used_and_says_why():
    image, _ = render(Scene.random(3, level="clean", hand=False, resolution=(640, 480)))
    lens = {"camera_matrix": [[500.0, 0, 320], [0, 500.0, 240], [0, 0, 1]], "dist_coeffs": [-0.2, 0.04, 0, 0, 0],
            "image_size": [1280, 960]}
    recognizer = Recognizer({"lens": lens})
    assert recognizer.finder.lens is not None
    reading = recognizer.read(image)
    assert recognizer.finder.lens is None and "1280x960" in recognizer.lens_warning
    assert reading.board_found and np.isfinite(reading.ms)


def test_numpy_blas_runs_on_one_thread_while_a_frame_is_read_and_as_before_after(mild_frame, monkeypatch):
    # A second BLAS thread spins for far more CPU than the read's small products take (see ``recognizer._blas``).
    def blas_threads():
        return {lib["num_threads"] for lib in threadpoolctl.threadpool_info() if lib["user_api"] == "blas"}

    before, seen = blas_threads(), []
    if not before:
        pytest.skip("numpy here has no BLAS that threadpoolctl can see")
    recognizer = Recognizer()
    read = recognizer.reader.read

    def reading(*args, **kwargs):
        seen.append(blas_threads())
        return read(*args, **kwargs)

    monkeypatch.setattr(recognizer.reader, "read", reading)
    assert recognizer.read(mild_frame[0]).board_found
    assert seen and all(threads <= {1} for threads in seen)
    assert blas_threads() == before


@pytest.mark.parametrize(("seed", "level"), [(4, "medium"), (1, "hard")])
def test_a_frame_read_once_measures_its_sharpness_once(seed, level, monkeypatch):
    # The arms ask whether the picture is blurred for a blank arm lit by the hub and again for a faint blank side, and
    # the recogniser asks before measuring the markers' blur: one grid, one answer (a few ms a frame each time).
    import thoughtwave.vision.causes as causes
    import thoughtwave.vision.recognizer as recognizer
    import thoughtwave.vision.tiles as tiles

    calls = []
    for module in (tiles, recognizer):
        monkeypatch.setattr(module, "sharpness", lambda grid: calls.append(grid.shape) or causes.sharpness(grid))
    frame, _ = render(Scene.random(seed, level=level, resolution=(960, 720)))
    assert Recognizer().read(frame).board_found
    assert len(calls) == 1
