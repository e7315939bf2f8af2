"""The lens model: the printed sheet is what the detector expects, ten synthetic views through a wide lens
give back that lens, too few views say what to do, and the board is placed more truly through the model."""

import dataclasses
import json
import random
import re

import cv2
import numpy as np
import pytest
from pdfpages import pdf_pages
from PIL import Image

from thoughtwave.calibration.calibrate import calibrate_image
from thoughtwave.calibration.lens import (
    MIN_VIEWS,
    SHEET_SQUARES,
    SQUARE_MM,
    LensError,
    LensModel,
    SheetNotSeen,
    ViewCollector,
    calibrate_lens,
    charuco_board,
    detect,
    sheet_art,
    sheet_size_mm,
)
from thoughtwave.calibration.profile import load_profile
from thoughtwave.cli import main
from thoughtwave.engine import Cell, Sides
from thoughtwave.i18n import Text
from thoughtwave.i18n.calibration import words as calibration_words
from thoughtwave.kit import PAPER_MM, SHEET_QUIET_MM, sheet_image
from thoughtwave.synth import Camera, Scene, TileLay, random_position, render, undistorted
from thoughtwave.vision.artwork import BoardLayout, board_image
from thoughtwave.vision.finder import BoardFinder
from thoughtwave.vision.recognizer import lens_of
from thoughtwave.vision.tiles import TileReader

#: A wide Pi-like lens: ~66 degrees across, strong barrel distortion.
LENS = Camera(resolution=(960, 720), fov_deg=66.0, k1=-0.2, k2=0.04)
#: Texture resolution of the rendered sheet, px per mm.
PPM = 6.0
INNER_CORNERS = (SHEET_SQUARES[0] - 1) * (SHEET_SQUARES[1] - 1)


# ---- a planar renderer: the sheet seen through a distorted pinhole camera ---------------------------------


def render_sheet(camera: Camera, texture: np.ndarray, seed: int) -> np.ndarray:
    """The lens sheet (lying at z = 0 in sheet mm) as ``camera`` sees it: every pixel's ray through the lens meets
    the sheet plane; rendered at 2x and averaged down, then uneven light, a little blur and sensor noise."""
    rng = np.random.default_rng(seed)
    w, h = camera.resolution
    fw, fh = 2 * w, 2 * h
    step = 8  # the map is smooth: computed every 8 fine pixels, bilinearly filled in
    xs, ys = np.meshgrid(np.arange(0, fw + step, step, dtype=np.float64),
                         np.arange(0, fh + step, step, dtype=np.float64))
    ux, uy = undistorted(camera, (xs + 0.5) / 2 - 0.5, (ys + 0.5) / 2 - 0.5)
    inv = np.linalg.inv(camera.board_to_image())
    bx, by, bw = (inv[i, 0] * ux + inv[i, 1] * uy + inv[i, 2] for i in range(3))
    coarse_x = ((bx / bw + SHEET_QUIET_MM) * PPM - 0.5).astype(np.float32)
    coarse_y = ((by / bw + SHEET_QUIET_MM) * PPM - 0.5).astype(np.float32)
    gx, gy = np.meshgrid(np.arange(fw, dtype=np.float32) / step, np.arange(fh, dtype=np.float32) / step)
    map_x = cv2.remap(coarse_x, gx, gy, cv2.INTER_LINEAR)
    map_y = cv2.remap(coarse_y, gx, gy, cv2.INTER_LINEAR)
    fine = cv2.remap(texture, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=90)
    frame = cv2.resize(fine, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32)
    light = 0.75 + 0.25 * np.linspace(rng.uniform(0, 1), rng.uniform(0, 1), w, dtype=np.float32)[None, :]
    frame = cv2.GaussianBlur(frame * light, (0, 0), 0.7) + rng.normal(0, 2.0, (h, w)).astype(np.float32)
    return cv2.cvtColor(np.clip(frame + 0.5, 0, 255).astype(np.uint8), cv2.COLOR_GRAY2BGR)


def sheet_views(count: int, seed: int = 5) -> list[np.ndarray]:
    """``count`` pictures of the sheet held 33-45 cm from LENS, tilted up to 40 degrees, all over the picture."""
    texture = sheet_image(sheet_art(), PPM)
    sw, sh = sheet_size_mm()
    rnd = random.Random(seed)
    views = []
    for i in range(count):
        camera = dataclasses.replace(
            LENS, height_mm=rnd.uniform(330, 450), tilt_deg=rnd.uniform(5, 40) if i % 4 else 0.0,
            tilt_toward_deg=rnd.uniform(0, 360), yaw_deg=rnd.uniform(-40, 40),
            aim_mm=(sw / 2 + rnd.uniform(-150, 150), sh / 2 + rnd.uniform(-110, 110)))
        views.append(render_sheet(camera, texture, seed * 100 + i))
    return views


@pytest.fixture(scope="module")
def views():
    return sheet_views(10)


@pytest.fixture(scope="module")
def model(views):
    return calibrate_lens(views)


# ---- the sheet ----------------------------------------------------------------------------------------------


def test_the_printed_sheet_is_the_board_the_detector_expects():
    art = sheet_art()
    flat = sheet_image(art, 8.0)
    corners, ids = detect(flat)
    assert len(ids) == INNER_CORNERS
    # Every chessboard corner sits exactly where the sheet's millimetres put it (pixel centre convention).
    want = (charuco_board().getChessboardCorners()[ids, :2] + SHEET_QUIET_MM) * 8.0 - 0.5
    assert np.abs(corners - want).max() < 0.3
    # And the drawing agrees with OpenCV's own picture of the board, square for square.
    w, h = (round(v * 8.0) for v in sheet_size_mm())
    quiet = round(SHEET_QUIET_MM * 8.0)
    ours = flat[quiet:quiet + h, quiet:quiet + w] < 128
    theirs = charuco_board().generateImage((w, h), marginSize=0, borderBits=1) < 128
    assert np.mean(ours != theirs) < 0.01


def test_the_sheet_and_the_game_board_are_never_taken_for_each_other():
    flat = cv2.cvtColor(sheet_image(sheet_art(), 6.0), cv2.COLOR_GRAY2BGR)
    assert BoardFinder().detect_markers(flat) == {}
    board = board_image(BoardLayout(), 4.0, Sides.WE)
    assert len(detect(board)[1]) == 0


# ---- the lens model -----------------------------------------------------------------------------------------


def test_the_lens_models_check_reads_whole_in_french_and_german(model):
    flat = dataclasses.replace(model, tilted_views=0).check()      # failed: no tilted picture, with advice
    assert not flat.ok and flat.measured.endswith(", no tilted picture")
    for lang, fit, tilt in (("fr", "reprojection de ", "inclinée"), ("de", "Rückprojektion ", "geneigt")):
        t = Text(lang)
        measured, advice = calibration_words(t, flat.measured), calibration_words(t, flat.advice)
        assert measured.startswith(fit) and "px" in measured and measured != flat.measured, measured
        assert tilt in advice, advice


def test_ten_views_through_a_wide_lens_give_that_lens_back(model):
    truth = LENS.matrix()
    assert model.views_used == model.views_given == 10
    assert model.image_size == LENS.resolution
    assert model.rms_px < 1.0
    assert model.camera_matrix[0, 0] == pytest.approx(truth[0, 0], rel=0.01)
    assert model.camera_matrix[1, 1] == pytest.approx(truth[1, 1], rel=0.01)
    assert np.abs(model.camera_matrix[:2, 2] - truth[:2, 2]).max() < 6.0
    assert model.dist_coeffs[0] == pytest.approx(LENS.k1, abs=0.02)
    check = model.check()
    assert check.ok and not check.warning and check.name == "lens model"
    # The model undoes the lens: undistorting the frame's corner lands where the pinhole would have put it.
    corner = np.array([[[5.0, 5.0]]])
    true_ideal = np.array(undistorted(LENS, corner[..., 0], corner[..., 1])).ravel()
    ours = cv2.undistortPoints(corner, *model.as_pair(), P=model.camera_matrix).ravel()
    assert np.abs(ours - true_ideal).max() < 3.0


def test_too_few_views_say_how_many_showed_the_sheet_and_what_to_take(views):
    blank = np.full((720, 960, 3), 120, np.uint8)
    with pytest.raises(SheetNotSeen, match=r"only 3 of 5 pictures show the sheet; take 6 or more from "
                                           r"different angles, filling different parts of the picture"):
        calibrate_lens([*views[:3], blank, blank])
    with pytest.raises(SheetNotSeen, match="only 1 picture shows"):
        calibrate_lens(views[:1])
    with pytest.raises(LensError, match="no pictures"):
        calibrate_lens([])


def test_pictures_of_different_sizes_or_no_picture_at_all_are_refused(views):
    with pytest.raises(LensError, match="picture 2 is 480x360 but the first is 960x720"):
        calibrate_lens([views[0], cv2.resize(views[1], (480, 360))])
    with pytest.raises(LensError, match="picture 1 is not a usable picture"):
        calibrate_lens([None])


def _model(rms: float, coverage: float = 1.0, tilted: int = 5) -> LensModel:
    return LensModel(LENS.matrix(), np.zeros(5), rms, LENS.resolution, 10, 10, coverage, tilted)


@pytest.mark.parametrize("rms, ok, warning", [(0.4, True, False), (1.5, True, True), (2.6, False, False)])
def test_the_reprojection_error_is_judged(rms, ok, warning):
    check = _model(rms).check()
    assert (check.ok, check.warning) == (ok, warning)
    assert f"{rms:.2f} px" in check.measured
    assert (check.advice is None) == (ok and not warning)


def test_a_sheet_kept_in_the_middle_or_flat_on_is_sent_back_for_more_pictures(views):
    middle = _model(0.3, coverage=0.25).check()
    assert middle.ok and middle.warning and "corners and edges" in middle.advice
    flat = _model(0.3, tilted=1).check()
    assert flat.ok and flat.warning and "tilted" in flat.advice
    # One flat-on picture six times: a model comes out, with a small error, but its focal length is a guess.
    repeated = calibrate_lens([views[0]] * 6)
    assert abs(repeated.camera_matrix[0, 0] - LENS.matrix()[0, 0]) > 20
    check = repeated.check()
    assert not check.ok and "no tilted picture" in check.measured and "tilted" in check.advice


def curled(image: np.ndarray, amplitude_px: float) -> np.ndarray:
    """The picture as if the sheet were not flat: everything pushed up to ``amplitude_px`` along waves."""
    h, w = image.shape[:2]
    x, y = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
    dx, dy = amplitude_px * np.sin(2 * np.pi * y / 240), amplitude_px * np.sin(2 * np.pi * x / 320)
    return cv2.remap(image, x + dx, y + dy, cv2.INTER_LINEAR)


def test_a_picture_of_a_curled_sheet_is_left_out_of_the_model(views):
    model = calibrate_lens([*views[:3], curled(views[3], 5.0), *views[4:]])
    assert (model.views_used, model.views_given) == (9, 10)
    assert model.rms_px < 1.0 and model.dist_coeffs[0] == pytest.approx(LENS.k1, abs=0.02)


def test_a_live_capture_keeps_a_view_only_when_the_sheet_is_still_and_somewhere_new(views):
    collector = ViewCollector()
    blank = np.full_like(views[0], 120)
    offered = [views[0], views[0], views[0], views[1], views[1], blank, views[2]]
    kept = [collector.offer(v) for v in offered]
    # first sight (no frame before to be still against), still, same place again, moved, still and new,
    # no sheet, moved since the blank
    assert kept == [False, True, False, False, True, False, False]
    assert len(collector.views) == 2 and not collector.full


# ---- the board through the lens ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def board_scene():
    camera = dataclasses.replace(LENS, height_mm=420.0, yaw_deg=4.0, tilt_deg=6.0, tilt_toward_deg=30.0)
    tiles = random_position(random.Random(8), 30)
    scene = dataclasses.replace(Scene(), camera=camera, tiles=tiles, lays={c: TileLay() for c in tiles})
    return render(scene)


def test_the_board_is_placed_more_truly_through_the_lens_model(model, board_scene):
    image, truth = board_scene
    without, through = _reading(image, truth, None), _reading(image, truth, model)
    assert without[2] > 2.0, without          # the wide lens really does bend the board
    assert through[2] < 0.25 * without[2] and through[2] < 1.0, through
    assert through[0] == 0 and through[1] <= without[1], (without, through)
    reprojection = [BoardFinder(lens=lens).find(image).pose.reprojection_px for lens in (None, model.as_pair())]
    assert reprojection[1] < 0.5 * reprojection[0], reprojection


def _reading(image: np.ndarray, truth, lens: LensModel | None) -> tuple[int, int, float]:
    """(wrong cells, unreadable cells, largest cell-centre error in px) reading ``image`` with or without ``lens``."""
    layout = BoardLayout()
    centres = np.array([[layout.grid_origin_mm[0] + (c + 0.5) * layout.cell_mm,
                         layout.grid_origin_mm[1] + (r + 0.5) * layout.cell_mm] for r in range(10) for c in range(10)])
    finder = BoardFinder(layout, lens=lens.as_pair() if lens else None)
    pose = finder.find(image).pose
    assert pose is not None
    cells = TileReader(finder.geometry).read(finder.warp(image, pose)).cells()
    wrong = unreadable = 0
    for cell in map(Cell.from_index, range(100)):
        got = cells[cell]
        if got.state.value == "unreadable":
            unreadable += 1
        else:
            wrong += ((got.colour, got.piece) if got.state.value == "tile" else None) != truth.tiles.get(cell)
    error = np.linalg.norm(finder.to_frame(pose, centres) - truth.project(centres), axis=1).max()
    return wrong, unreadable, float(error)


def test_a_board_whose_far_markers_are_out_of_the_picture_is_placed_truly_only_through_the_lens_model(model):
    # The camera is off to one side: the markers along the top are out of the picture, and the bent picture
    # of the others, fitted flat, puts the far cells several pixels away from where they are. (The reader
    # tolerates some of that, so without the model it may still read every cell; it must never misread.)
    camera = dataclasses.replace(LENS, height_mm=380.0, aim_mm=(227.0, 214.5))
    tiles = random_position(random.Random(8), 36)
    image, truth = render(dataclasses.replace(Scene(), camera=camera, tiles=tiles, lays={c: TileLay() for c in tiles}))
    without, through = _reading(image, truth, None), _reading(image, truth, model)
    assert without[0] == 0 and without[2] > 5.0, without
    assert through == (0, 0, pytest.approx(0.0, abs=1.0)), through


def test_calibrating_with_a_lens_model_judges_it_and_writes_it_into_the_profile(model, board_scene):
    image, _ = board_scene
    result = calibrate_image(image, lens=model)
    assert result.checks[0].name == "lens model" and result.checks[0].ok
    lens = result.profile.lens
    assert np.allclose(lens["camera_matrix"], model.camera_matrix) and lens["views_used"] == 10
    assert lens_of(result.profile.reader_profile()) is not None  # the recognizer will read through it
    with pytest.raises(ValueError, match="lens pictures are 960x720 but the board picture is 480x360"):
        calibrate_image(cv2.resize(image, (480, 360)), lens=model)


# ---- the commands -------------------------------------------------------------------------------------------


def test_calibrate_command_adds_the_lens_model_from_sheet_photos(views, board_scene, tmp_path, capsys):
    photos = []
    for i, view in enumerate(views[:MIN_VIEWS]):
        photos.append(str(tmp_path / f"sheet-{i}.png"))
        cv2.imwrite(photos[-1], view)
    board = tmp_path / "board.png"
    cv2.imwrite(str(board), board_scene[0])
    out = tmp_path / "profile.json"
    assert main(["calibrate", "--image", str(board), "--lens-images", *photos, "--out", str(out), "--force"]) == 0
    printed = capsys.readouterr().out
    assert re.search(r"^(ok|warn) +lens model: reprojection 0\.\d\d px from 6 of 6 pictures", printed, re.M), printed
    lens = load_profile(out).lens
    assert lens["dist_coeffs"][0] == pytest.approx(LENS.k1, abs=0.03)
    assert json.loads(out.read_text())["lens"]["image_size"] == [960, 720]

    few = tmp_path / "few.json"
    assert main(["calibrate", "--image", str(board), "--lens-images", *photos[:MIN_VIEWS - 1], "--out", str(few)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "only 5 pictures show the sheet" in err and not few.exists()
    notes = tmp_path / "notes.txt"
    notes.write_text("not a picture")
    assert main(["calibrate", "--image", str(board), "--lens-images", str(notes), *photos, "--out", str(few)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "notes.txt" in err and not few.exists()


def test_calibrate_command_takes_the_lens_views_from_a_camera(views, board_scene, tmp_path, capsys):
    folder = tmp_path / "camera"
    folder.mkdir()
    for i, view in enumerate(views[:8]):
        for repeat in "ab":  # the sheet held still for two frames
            cv2.imwrite(str(folder / f"{i:02d}{repeat}.png"), view)
    board = tmp_path / "board.png"
    cv2.imwrite(str(board), board_scene[0])
    out = tmp_path / "profile.json"
    argv = ["calibrate", "--image", str(board), "--lens-camera", f"dir:{folder}", "--out", str(out), "--force"]
    assert main(argv) == 0
    kept = [int(n) for n in re.findall(r"lens: (\d+) view\(s\) kept", capsys.readouterr().err)]
    assert kept == list(range(1, len(kept) + 1)) and kept[-1] >= MIN_VIEWS
    assert load_profile(out).lens["views_used"] == kept[-1]
    assert main([*argv, "--lens-seconds", "0"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_print_kit_lens_sheet_adds_one_landscape_page_with_30_mm_squares(paper, tmp_path, capsys):
    plain, with_sheet = tmp_path / "kit.pdf", tmp_path / "kit-lens.pdf"
    assert main(["print-kit", "--out", str(plain), "--paper", paper]) == 0
    pages = json.loads(capsys.readouterr().out)["pages"]
    assert main(["print-kit", "--out", str(with_sheet), "--paper", paper, "--lens-sheet"]) == 0
    assert json.loads(capsys.readouterr().out)["pages"] == pages + 1
    pt = 72 / 25.4
    size, content = pdf_pages(with_sheet.read_bytes())[-1]
    assert size == pytest.approx((PAPER_MM[paper][1] * pt, PAPER_MM[paper][0] * pt), abs=0.01)  # landscape
    number = r"(-?[\d.]+)"
    rects = [tuple(float(v) for v in m) for m in re.findall(rf"{number} {number} {number} {number} re", content)]
    squares = [r for r in rects if abs(r[2] - SQUARE_MM * pt) < 0.01 and abs(r[3] - SQUARE_MM * pt) < 0.01]
    assert len(squares) == SHEET_SQUARES[0] * SHEET_SQUARES[1] // 2
    xs = sorted({round(r[0], 2) for r in squares})
    assert np.diff(xs) == pytest.approx([SQUARE_MM * pt] * (len(xs) - 1), abs=0.01)
    assert "take 10 photos" in content


def test_print_kit_png_lens_sheet_is_charuco_png_at_its_dpi(tmp_path, capsys):
    out = tmp_path / "png"
    assert main(["print-kit", "--png", str(out), "--dpi", "150", "--lens-sheet"]) == 0
    assert json.loads(capsys.readouterr().out)["files"] == 33
    picture = cv2.imread(str(out / "charuco.png"))
    assert len(detect(picture)[1]) == INNER_CORNERS
    with Image.open(out / "charuco.png") as png:
        assert png.info["dpi"] == pytest.approx((150, 150), abs=0.05)  # PNG stores whole pixels per metre
        assert png.size[0] == round((sheet_size_mm()[0] + 2 * SHEET_QUIET_MM) * 150 / 25.4)
