"""The synthetic camera: frames are reproducible, the ground truth is where the pixels are, and every
disturbance changes the frame the way it says."""

from __future__ import annotations

import random
from dataclasses import replace

import cv2
import numpy as np
import pytest

from thoughtwave.engine.cells import Cell
from thoughtwave.engine.pieces import OPPOSITE, START_INVENTORY, Colour, Piece
from thoughtwave.synth import (
    MAX_TILES,
    Camera,
    Glare,
    Hand,
    Scene,
    Shadow,
    TileLay,
    cast_gains,
    level_amount,
    random_position,
    render,
)
from thoughtwave.vision.artwork import ARUCO_DICTIONARY

SMALL = (640, 480)
C7 = Cell.parse("C7")
H2 = Cell.parse("H2")
TILES = {C7: (Colour.RED, Piece.parse("n")), H2: (Colour.BLACK, Piece.parse("e"))}


def clean_scene(seed: int = 3, tiles: dict | None = None, **camera: float) -> Scene:
    """A clean scene with a fixed, straight-down camera, so that pixel positions are predictable."""
    scene = Scene.random(seed, tiles=TILES if tiles is None else tiles, level="clean", resolution=SMALL, hand=False)
    return replace(scene, camera=replace(scene.camera, **camera))


@pytest.fixture(scope="module")
def clean() -> tuple[Scene, np.ndarray]:
    scene = clean_scene()
    frame, _ = render(scene)
    return scene, frame.astype(np.float32)


def at(frame: np.ndarray, xy: np.ndarray, r: int = 1) -> np.ndarray:
    """Mean BGR of the (2r+1)^2 pixels around a point."""
    x, y = int(round(xy[0])), int(round(xy[1]))
    return frame[y - r:y + r + 1, x - r:x + r + 1].reshape(-1, 3).mean(axis=0)


def mm_to_px(scene: Scene, points_mm: list[tuple[float, float]]) -> np.ndarray:
    _, truth = render(replace(scene, tiles={}))
    return truth.project(np.array(points_mm))


# ---- reproducibility -------------------------------------------------------------------------------


def test_same_seed_same_frame_bit_for_bit() -> None:
    a, truth_a = render(Scene.random(11, level="hard", hand=True, resolution=SMALL))
    b, truth_b = render(Scene.random(11, level="hard", hand=True, resolution=SMALL))
    assert a.shape == (480, 640, 3) and a.dtype == np.uint8
    assert np.array_equal(a, b)
    assert np.array_equal(truth_a.board_to_image, truth_b.board_to_image)
    assert truth_a.occluded_cells == truth_b.occluded_cells


def test_reusing_the_still_picture_never_leaks_between_scenes() -> None:
    scene = Scene.random(12, level="mild", resolution=SMALL, hand=False)
    first, _ = render(scene)
    with_hand, truth = render(replace(scene, hand=Scene.random(12, level="mild", hand=True).hand))
    assert truth.occlusion and not np.array_equal(first, with_hand)
    again, truth = render(scene)
    assert np.array_equal(first, again) and not truth.occlusion


def test_another_seed_another_frame() -> None:
    a, _ = render(Scene.random(1, level="medium", resolution=SMALL))
    b, _ = render(Scene.random(2, level="medium", resolution=SMALL))
    assert not np.array_equal(a, b)


def test_a_live_camera_changes_only_its_noise_between_frames() -> None:
    scene = Scene.random(5, level="medium", resolution=SMALL, hand=False)
    a, _ = render(scene)
    b, _ = render(replace(scene, noise_seed=scene.noise_seed + 1))
    diff = np.abs(a.astype(int) - b.astype(int))
    assert diff.max() > 0
    assert diff.mean() < 8


# ---- geometry --------------------------------------------------------------------------------------


def test_projected_cell_centres_show_the_tiles_there(clean: tuple[Scene, np.ndarray]) -> None:
    scene, frame = clean
    _, truth = render(scene)
    layout = scene.layout
    tile = layout.tile_mm
    # A terminator "n": cream wave north of the centre, bare face colour east of the hub.
    cx, cy = layout.cell_center_mm(C7)
    wave_px, face_px = truth.project(np.array([[cx, cy - 0.38 * tile], [cx + 0.33 * tile, cy]]))
    b, g, r = at(frame, face_px)
    assert r > 150 and r > 2 * g and r > 2 * b, "red face"
    assert at(frame, wave_px).min() > 170, "cream wave"
    hx, hy = layout.cell_center_mm(H2)
    black_px, empty_px = truth.project(np.array([[hx, hy + 0.33 * tile], layout.cell_center_mm(Cell.parse("E5"))]))
    assert at(frame, black_px).max() < 90, "black face"
    assert at(frame, empty_px).min() > 200, "empty cell is paper"


def test_marker_corners_match_aruco_detection_with_lens_distortion() -> None:
    scene = clean_scene(tiles={}, k1=-0.15, k2=0.02, yaw_deg=20.0, tilt_deg=8.0)
    frame, truth = render(scene)
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(ARUCO_DICTIONARY), params)
    corners, ids, _ = detector.detectMarkers(frame)
    assert ids is not None
    found = {int(i): c.reshape(4, 2) for c, i in zip(corners, ids.ravel(), strict=True)}
    assert set(found) == set(truth.markers_visible)
    assert len(found) >= 6
    for marker in scene.layout.markers:
        if marker.id in found:
            error = np.abs(found[marker.id] - truth.project(marker.corners_mm())).max()
            assert error < 2.0, f"marker {marker.id} off by {error:.2f} px"
    # Distortion matters: the undistorted homography alone misses by more than the tolerance somewhere.
    ideal = cv2.perspectiveTransform(scene.layout.markers[0].corners_mm().reshape(-1, 1, 2).astype(np.float64),
                                     truth.board_to_image).reshape(4, 2)
    assert np.abs(ideal - truth.project(scene.layout.markers[0].corners_mm())).max() > 2.0


def test_ground_truth_agrees_with_opencv_projection() -> None:
    scene = Scene.random(8, level="hard", resolution=SMALL)
    _, truth = render(scene)
    rotation, t = scene.camera.pose()
    points = np.array([[0.0, 0.0], [354.0, 0.0], [100.0, 250.0], [177.0, 177.0]])
    cv_px, _ = cv2.projectPoints(np.column_stack([points, np.zeros(4)]), cv2.Rodrigues(rotation)[0], t,
                                 truth.camera_matrix, truth.distortion)
    assert np.allclose(cv_px.reshape(-1, 2), truth.project(points), atol=1e-6)


def test_a_tile_laid_off_centre_and_turned_is_drawn_where_it_lies() -> None:
    lay = TileLay(offset=(0.2, -0.15), turn_deg=12.0)
    scene = replace(clean_scene(tiles={C7: (Colour.BLACK, Piece.parse("n"))}), lays={C7: lay})
    frame, truth = render(scene)
    layout = scene.layout
    cx, cy = layout.cell_center_mm(C7)
    moved = (cx + 0.2 * layout.cell_mm, cy - 0.15 * layout.cell_mm)
    hub, old_face = truth.project(np.array([moved, [cx - 0.3 * layout.cell_mm, cy + 0.3 * layout.cell_mm]]))
    assert at(frame.astype(np.float32), hub).min() > 170, "the hub follows the tile"
    assert at(frame.astype(np.float32), old_face).min() > 200, "the uncovered corner of the cell is paper"


@pytest.mark.parametrize("seed", range(12))
def test_random_cameras_keep_the_whole_board_in_view(seed: int) -> None:
    scene = Scene.random(seed, level="hard", tiles={})
    camera = scene.camera
    assert 400 <= camera.height_mm <= 800 and 0 <= camera.tilt_deg <= 30 and 30 < camera.fov_deg < 110
    size = scene.layout.width_mm
    px = camera.project(np.array([[0, 0], [size, 0], [size, size], [0, size]], float))
    w, h = camera.resolution
    assert np.all((px[:, 0] > 0) & (px[:, 0] < w) & (px[:, 1] > 0) & (px[:, 1] < h))


# ---- levels and the scene --------------------------------------------------------------------------


def test_clean_level_has_no_disturbance_and_hard_has_some() -> None:
    clean_scene_ = Scene.random(4, level="clean")
    assert clean_scene_.light.glare == () and clean_scene_.light.shadow is None
    assert clean_scene_.sensor.jpeg_quality is None and clean_scene_.sensor.shot == 0
    assert clean_scene_.camera.k1 == 0 and clean_scene_.camera.tilt_deg == 0 and clean_scene_.hand is None
    assert all(lay == TileLay() for lay in clean_scene_.lays.values())
    hard = Scene.random(4, level="hard")
    assert hard.tiles == clean_scene_.tiles, "one seed, one board, whatever the level"
    for seed in range(8):
        calm, rough = Scene.random(seed, level="clean", hand=True), Scene.random(seed, level="hard", hand=True)
        assert (calm.hand, calm.desk, calm.camera.height_mm) == (rough.hand, rough.desk, rough.camera.height_mm)
    assert hard.sensor.jpeg_quality is not None and hard.sensor.shot > 0
    assert level_amount("medium") == 0.65 and level_amount(3) == 1.0
    with pytest.raises(ValueError):
        level_amount("extreme")


def test_random_positions_are_legal_and_within_each_sides_pieces() -> None:
    for seed in range(20):
        tiles = random_position(random.Random(seed), 60)
        assert len(tiles) <= MAX_TILES == 48
        for colour in Colour:
            for kind, count in START_INVENTORY.items():
                assert sum(1 for c, p in tiles.values() if c is colour and p.kind is kind) <= count
        # Every tile agrees with every neighbouring tile, edge to edge.
        for cell, (_, piece) in tiles.items():
            for direction, other in cell.neighbours():
                if other in tiles:
                    assert piece.has(direction) == tiles[other][1].has(OPPOSITE[direction])


def tile_corners(scene: Scene, cell: Cell) -> np.ndarray:
    """The four corners (mm) of the tile on ``cell`` as it lies."""
    lay = scene.lays[cell]
    c, half = scene.layout.cell_mm, scene.layout.tile_mm / 2
    cx, cy = scene.layout.cell_center_mm(cell)
    centre = np.array([cx + lay.offset[0] * c, cy + lay.offset[1] * c])
    a = np.radians(lay.turn_deg)
    turn = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    return centre + np.array([[-half, -half], [half, -half], [half, half], [-half, half]]) @ turn.T


def test_hard_hands_stray_but_tiles_never_lie_on_each_other() -> None:
    strayed = 0
    for seed in range(6):
        scene = Scene.random(seed, level="hard", resolution=SMALL)
        for cell in scene.tiles:
            lay = scene.lays[cell]
            strayed += abs(lay.offset[0]) > 0.1 or abs(lay.turn_deg) > 8
            for direction, other in cell.neighbours():
                if other in scene.tiles and direction in (2, 4):   # east and south neighbours
                    axis = 0 if direction == 2 else 1
                    reach = tile_corners(scene, cell)[:, axis].max() - tile_corners(scene, other)[:, axis].min()
                    assert reach < 0.03 * scene.layout.cell_mm, f"{cell} lies on {other}"
    assert strayed > 5, "lone tiles still stray and turn a lot at the hard level"


def test_describe_is_plain_json() -> None:
    import json

    text = json.dumps(Scene.random(2, level="hard", hand=True).describe())
    assert '"camera"' in text and '"hand"' in text


# ---- each disturbance does what it says ------------------------------------------------------------


def brightness(frame: np.ndarray) -> np.ndarray:
    return frame.astype(np.float32).mean(axis=2)


def test_glare_brightens_its_spot_only(clean: tuple[Scene, np.ndarray]) -> None:
    scene, base = clean
    glared = replace(scene, light=replace(scene.light, glare=(Glare((0.3, 0.6), 0.05, 150.0),)))
    frame, _ = render(glared)
    spot = (int(0.3 * 640), int(0.6 * 480))
    diff = brightness(frame) - brightness(base)
    assert diff[spot[1], spot[0]] > 8
    assert abs(diff[20, 620]) < 2


def test_shadow_band_darkens_along_its_line(clean: tuple[Scene, np.ndarray]) -> None:
    scene, base = clean
    # a horizontal band through the middle of the frame
    frame, _ = render(replace(scene, light=replace(scene.light, shadow=Shadow(0.0, 0.0, 0.08, 0.5))))
    ratio = brightness(frame) / np.maximum(brightness(base), 1)
    assert ratio[240, 100:540].mean() < 0.6
    assert ratio[20, 100:540].mean() > 0.95


def test_gradient_and_vignette_shape_the_light(clean: tuple[Scene, np.ndarray]) -> None:
    scene, base = clean
    frame, _ = render(replace(scene, light=replace(scene.light, gradient=0.4, gradient_angle_deg=0.0)))
    ratio = brightness(frame) / np.maximum(brightness(base), 1)
    assert ratio[:, 600:].mean() > ratio[:, :40].mean() + 0.2, "brighter toward the east of the frame"
    frame, _ = render(replace(scene, light=replace(scene.light, vignette=0.4)))
    ratio = brightness(frame) / np.maximum(brightness(base), 1)
    assert ratio[:30, :30].mean() < ratio[220:260, 300:340].mean() - 0.1


def test_warm_cast_and_exposure(clean: tuple[Scene, np.ndarray]) -> None:
    scene, base = clean
    warm = cast_gains(2700)
    assert warm[2] > 1.0 > warm[0], "a warm lamp: more red, less blue"
    frame, _ = render(replace(scene, light=replace(scene.light, cast_bgr=warm)))
    f = frame.astype(np.float32)
    assert f[..., 2].mean() / f[..., 0].mean() > base[..., 2].mean() / base[..., 0].mean() + 0.2
    frame, _ = render(replace(scene, light=replace(scene.light, exposure=0.6)))
    assert 0.55 < brightness(frame).mean() / brightness(base).mean() < 0.7


def sharpness(frame: np.ndarray) -> float:
    return float(cv2.Laplacian(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), cv2.CV_64F).var())


def test_defocus_and_motion_blur_soften_the_frame(clean: tuple[Scene, np.ndarray]) -> None:
    scene, base = clean
    sharp = sharpness(base.astype(np.uint8))
    defocused, _ = render(replace(scene, optics=replace(scene.optics, defocus=2.0)))
    assert sharpness(defocused) < 0.5 * sharp
    moved, _ = render(replace(scene, optics=replace(scene.optics, motion_px=9.0, motion_angle_deg=0.0)))
    assert sharpness(moved) < 0.7 * sharp
    # Horizontal motion smears across vertical edges far more than along them.
    gray = cv2.cvtColor(moved, cv2.COLOR_BGR2GRAY).astype(np.float32)
    base_gray = cv2.cvtColor(base.astype(np.uint8), cv2.COLOR_BGR2GRAY).astype(np.float32)
    dx_loss = np.abs(np.diff(gray, axis=1)).mean() / np.abs(np.diff(base_gray, axis=1)).mean()
    dy_loss = np.abs(np.diff(gray, axis=0)).mean() / np.abs(np.diff(base_gray, axis=0)).mean()
    assert dx_loss < dy_loss


def test_sensor_noise_grows_with_brightness(clean: tuple[Scene, np.ndarray]) -> None:
    scene, base = clean
    frame, _ = render(replace(scene, sensor=replace(scene.sensor, shot=0.6, read=1.0)))
    diff = frame.astype(np.float32) - base
    bright = base.mean(axis=2) > 200
    dark = base.mean(axis=2) < 60
    assert diff[bright].std() > 1.5 * diff[dark].std() > 0


def test_jpeg_round_trip_changes_the_frame_a_little(clean: tuple[Scene, np.ndarray]) -> None:
    scene, base = clean
    frame, _ = render(replace(scene, sensor=replace(scene.sensor, jpeg_quality=40)))
    diff = np.abs(frame.astype(np.float32) - base)
    assert 0.3 < diff.mean() < 6


def test_paper_texture_and_printer_shift(clean: tuple[Scene, np.ndarray]) -> None:
    scene, base = clean
    _, truth = render(scene)
    paper = truth.project(np.array([scene.layout.cell_center_mm(Cell.parse("E5"))]))[0]
    x, y = int(paper[0]), int(paper[1])
    textured, _ = render(replace(scene, printing=replace(scene.printing, paper_texture=0.05)))
    patch = (slice(y - 6, y + 7), slice(x - 6, x + 7))
    assert textured[patch].astype(np.float32).std() > base[patch].std() + 1
    shifted, _ = render(replace(scene, printing=replace(scene.printing, colour_shift=1.0, ink_lift=30)))
    cx, cy = scene.layout.cell_center_mm(C7)
    face = truth.project(np.array([[cx + 0.33 * scene.layout.tile_mm, cy]]))[0]
    before, after = at(base, face), at(shifted.astype(np.float32), face)
    assert after[1] > before[1] + 15, "red printed orange-brown: more green in it"
    assert after[2] < before[2]
    table = base[5, 5]
    assert np.allclose(shifted[5, 5], table, atol=2), "the table is not printed"


def test_hand_covers_its_occluded_cells_and_hides_markers() -> None:
    scene = clean_scene(tiles={})
    base, _ = render(scene)
    layout = scene.layout
    tip = layout.cell_center_mm(Cell.parse("E4"))
    hand = Hand(tip_mm=tip, angle_deg=90.0, skin_bgr=(80, 120, 200), shadow_px=(10.0, 8.0))
    frame, truth = render(replace(scene, hand=hand))
    assert Cell.parse("E4") in truth.occluded_cells and Cell.parse("E7") in truth.occluded_cells
    assert Cell.parse("A1") not in truth.occluded_cells and Cell.parse("J10") not in truth.occluded_cells
    assert truth.hand_mask is not None
    fully = [cell for cell in truth.occluded_cells if truth.occlusion[cell] >= 0.99]
    assert len(fully) >= 6
    for cell in fully:
        b, g, r = at(frame.astype(np.float32), truth.project(np.array([layout.cell_center_mm(cell)]))[0])
        assert r > g > b and r - b > 60, f"{cell} shows skin"
    far = truth.project(np.array([layout.cell_center_mm(Cell.parse("A1"))]))[0]
    assert np.abs(at(frame.astype(np.float32), far) - at(base.astype(np.float32), far)).max() < 3
    # The arm runs south off the board, over the south middle marker (id 5).
    assert 5 not in truth.markers_visible and {0, 2} <= truth.markers_visible
    # Its shadow falls beside it, 10 px east and 8 px south, off the hand itself.
    mask = truth.hand_mask
    beside = (np.roll(mask, (8, 10), axis=(0, 1)) > 0.95) & (mask < 0.01)
    ratio = brightness(frame)[beside] / np.maximum(brightness(base)[beside], 1)
    assert beside.sum() > 200 and ratio.mean() < 0.85


@pytest.mark.parametrize("name", ["A1", "E5", "J10", "C8"])
def test_a_hand_over_a_chosen_cell_covers_it(name: str) -> None:
    cell = Cell.parse(name)
    scene = Scene.random(7, level="mild", hand=cell, resolution=(320, 240))
    _, truth = render(scene)
    assert cell in truth.occluded_cells
    assert scene.hand == replace(Scene.random(7, level="mild", hand=True).hand, tip_mm=scene.hand.tip_mm)


def test_random_hand_reaches_in_from_a_frame_edge() -> None:
    scene = Scene.random(6, level="medium", hand=True, resolution=SMALL)
    _, truth = render(scene)
    mask = truth.hand_mask
    assert mask is not None and scene.hand is not None
    edges = np.concatenate([mask[0], mask[-1], mask[:, 0], mask[:, -1]])
    assert edges.max() > 0.5, "the forearm leaves the frame"


def test_camera_defaults_look_straight_down() -> None:
    camera = Camera(resolution=SMALL)
    rotation, t = camera.pose()
    assert np.allclose(rotation, np.eye(3))
    centre = -rotation.T @ t
    assert np.allclose(centre, [177.0, 177.0, -600.0])


def test_dataset_writes_frames_with_ground_truth(tmp_path) -> None:
    import importlib.util
    import json
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "bench" / "dataset.py"
    spec = importlib.util.spec_from_file_location("bench_dataset", path)
    dataset = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(dataset)

    assert dataset.main(["--out", str(tmp_path), "--count", "2", "--seed", "4", "--level", "mixed",
                         "--resolution", "160x120", "--hand", "always"]) == 0
    index = json.loads((tmp_path / "index.json").read_text())
    assert index["frames"] == ["frame-00000", "frame-00001"]
    record = json.loads((tmp_path / "frame-00001.json").read_text())
    image = cv2.imread(str(tmp_path / record["image"]))
    assert image.shape == (120, 160, 3)
    scene, _ = dataset.scene_for(4, 1, "mixed", "always", (160, 120))
    again, truth = render(scene)
    assert np.array_equal(again, image), "a frame can be remade from its seed alone"
    assert record["board"] == truth.board_state() and record["scene"]["hand"] is not None
    assert np.asarray(record["grid_corners_px"]).shape == (11, 11, 2)
    with pytest.raises(SystemExit):
        dataset.main(["--out", str(tmp_path), "--level", "extreme"])
