"""Calibration: a good setup calibrates and reads at least as well with its profile; a blurred, a dark and a
half-visible board each fail the right check with the right advice; a damaged profile is refused cleanly."""

import dataclasses
import json
import random

import cv2
import pytest

from thoughtwave.calibration.calibrate import calibrate_image
from thoughtwave.calibration.checks import BLACK_SAMPLE, RED_SAMPLE
from thoughtwave.calibration.profile import ProfileError, load_profile, load_reader_profile, save_profile
from thoughtwave.cli import main
from thoughtwave.engine import Cell, Colour, Piece
from thoughtwave.synth import Optics, Printing, Scene, TileLay, cast_gains, random_position, render
from thoughtwave.vision.finder import BoardFinder
from thoughtwave.vision.tiles import ColourModel, TileReader

SAMPLES = {RED_SAMPLE: (Colour.RED, Piece.parse("ew")), BLACK_SAMPLE: (Colour.BLACK, Piece.parse("ns"))}


def warm_lamp_setup(resolution=(960, 720)) -> Scene:
    """One camera over one printed board under a 2700 K lamp, with a printer that browns the red."""
    base = Scene.random(11, tiles={}, level="mild", hand=False, resolution=resolution)
    light = dataclasses.replace(base.light, cast_bgr=cast_gains(2700, False, 0.8), glare=())
    return dataclasses.replace(base, light=light, printing=Printing(colour_shift=0.6, ink_lift=15, paper_texture=0.02))


def with_tiles(scene: Scene, tiles: dict) -> Scene:
    return dataclasses.replace(scene, tiles=tiles, lays={c: TileLay() for c in tiles})


def check(result, name):
    return next(c for c in result.checks if c.name == name)


@pytest.fixture(scope="module")
def setup():
    scene = warm_lamp_setup()
    image, _ = render(with_tiles(scene, SAMPLES))
    return scene, calibrate_image(image)


def test_a_board_under_a_warm_lamp_calibrates_and_learns_its_colours(setup, tmp_path):
    _, result = setup
    assert result.ok, [c.line() for c in result.checks]
    assert {c.name for c in result.checks} == {"markers", "board in frame", "pixels per cell", "focus", "exposure",
                                               "glare", "colour separation"}
    assert result.profile.colour_model, "the sample tiles on E5 and F6 teach the colour model"
    assert 20 < result.profile.cell_px < 80
    path = tmp_path / "profile.json"
    save_profile(result.profile, path)
    assert load_profile(path) == result.profile
    assert list(tmp_path.iterdir()) == [path], "no temporary file is left behind"


def read_score(image, truth, profile):
    finder = BoardFinder()
    found = finder.find(image)
    cells = TileReader(finder.geometry, ColourModel.from_profile(profile)).read(finder.warp(image, found.pose)).cells()
    right = wrong = 0
    for cell in map(Cell.from_index, range(100)):
        got, want = cells[cell], truth.get(cell)
        if got.state.value == "unreadable":
            continue
        seen = (got.colour, got.piece) if got.state.value == "tile" else None
        right, wrong = (right + 1, wrong) if seen == want else (right, wrong + 1)
    return right, wrong


def test_reading_the_same_setup_is_at_least_as_good_with_the_profile(setup):
    scene, result = setup
    with_profile = without = (0, 0)
    for k in range(2):
        tiles = random_position(random.Random(300 + k), 36)
        image, truth = render(dataclasses.replace(with_tiles(scene, tiles), noise_seed=k))
        a, b = read_score(image, truth.tiles, result.profile.reader_profile()), read_score(image, truth.tiles, None)
        with_profile = (with_profile[0] + a[0], with_profile[1] + a[1])
        without = (without[0] + b[0], without[1] + b[1])
    assert with_profile[1] == 0, "never confidently wrong with the profile"
    assert with_profile[0] >= without[0]


def test_a_blurred_board_fails_the_focus_check(setup):
    scene, _ = setup
    image, _ = render(dataclasses.replace(with_tiles(scene, SAMPLES), optics=Optics(defocus=2.8)))
    result = calibrate_image(image)
    focus = check(result, "focus")
    assert not focus.ok and "focus the lens" in focus.advice
    assert not result.ok


def test_a_dark_board_fails_the_exposure_check(setup):
    scene, _ = setup
    image, _ = render(dataclasses.replace(with_tiles(scene, SAMPLES),
                                          light=dataclasses.replace(scene.light, exposure=0.15)))
    exposure = check(calibrate_image(image), "exposure")
    assert not exposure.ok and "add light" in exposure.advice


def test_a_half_visible_board_fails_the_in_frame_check(setup):
    scene, _ = setup
    camera = dataclasses.replace(scene.camera, aim_mm=(scene.layout.width_mm * 1.4, scene.layout.height_mm / 2))
    image, _ = render(dataclasses.replace(with_tiles(scene, SAMPLES), camera=camera))
    result = calibrate_image(image)
    in_frame = check(result, "board in frame")
    assert not in_frame.ok and "raise the camera" in in_frame.advice


def test_no_samples_means_no_learnt_colours_and_says_how_to_measure_them(setup):
    scene, _ = setup
    image, _ = render(scene)
    result = calibrate_image(image)
    colours = check(result, "colour separation")
    assert colours.ok and colours.warning and "red tile on E5" in colours.advice
    assert result.profile.colour_model == {}


@pytest.mark.parametrize("damage", ["truncated", "foreign", "not-json", "bad-numbers"])
def test_a_damaged_profile_is_refused_cleanly_and_the_defaults_are_used(setup, tmp_path, damage):
    _, result = setup
    path = tmp_path / "profile.json"
    save_profile(result.profile, path)
    text = path.read_text()
    path.write_text({
        "truncated": text[: len(text) // 2],
        "foreign": json.dumps({"kind": "something-else"}),
        "not-json": "\x00\x01garbage",
        "bad-numbers": text.replace('"cell_px": ', '"cell_px": -'),
    }[damage])
    with pytest.raises(ProfileError, match="profile"):
        load_profile(path)
    profile, warning = load_reader_profile(path)
    assert profile is None and "default" in warning


def test_calibrate_command_writes_the_profile_and_refuses_bad_input(setup, tmp_path, capsys):
    scene, _ = setup
    image, _ = render(with_tiles(scene, SAMPLES))
    photo = tmp_path / "board.png"
    cv2.imwrite(str(photo), image)
    out = tmp_path / "state" / "profile.json"
    assert main(["calibrate", "--image", str(photo), "--out", str(out)]) == 0
    assert load_profile(out).cell_px > 0
    assert "ok    markers: 8 of 8 found" in capsys.readouterr().out
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), image[:40, :40] * 0 + 128)
    assert main(["calibrate", "--image", str(blank), "--out", str(tmp_path / "x.json")]) == 1
    assert not (tmp_path / "x.json").exists()
    assert capsys.readouterr().err == "not found: no board in the picture; nothing written\n"
    notimage = tmp_path / "notes.txt"
    notimage.write_text("hello")
    assert main(["calibrate", "--image", str(notimage)]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_calibrate_writes_where_serve_reads_the_profile(setup, tmp_path, capsys):
    # One rule (thoughtwave.config's Config.profile_path): [vision] profile, else profile.json in the state
    # directory, --state-dir over the configured one.
    scene, _ = setup
    photo = tmp_path / "board.png"
    cv2.imwrite(str(photo), render(with_tiles(scene, SAMPLES))[0])
    plain = tmp_path / "plain.toml"
    plain.write_text(f'state_dir = "{tmp_path / "state"}"\n')
    assert main(["calibrate", "--image", str(photo), "--config", str(plain)]) == 0
    assert load_profile(tmp_path / "state" / "profile.json").cell_px > 0
    assert main(["calibrate", "--image", str(photo), "--config", str(plain), "--state-dir", str(tmp_path / "s2")]) == 0
    assert (tmp_path / "s2" / "profile.json").is_file()
    configured = tmp_path / "configured.toml"
    configured.write_text(f'[vision]\nprofile = "{tmp_path / "kept.json"}"\n')
    assert main(["calibrate", "--image", str(photo), "--config", str(configured), "--state-dir", str(tmp_path)]) == 0
    assert (tmp_path / "kept.json").is_file() and not (tmp_path / "profile.json").exists()
    capsys.readouterr()
    broken = tmp_path / "broken.toml"
    broken.write_text("[vision]\nprofile = 3\n")
    assert main(["calibrate", "--image", str(photo), "--config", str(broken)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "[vision] profile: must be a string" in err
