"""A physically based benchmark set: the synthetic scenes path-traced with Mitsuba 3, and the reader scored on it.

    .venv/bin/pip install mitsuba                       # optional: only this script needs it
    DRJIT_LIBLLVM_PATH=/usr/lib/x86_64-linux-gnu/libLLVM.so.19.1 \\
    .venv/bin/python bench/physical_set.py render --out /tmp/pbr --count 200 --seed 19 [--spp 16] [--resolution 960x720]
        [--smeared-from 4]                              # only the frames smeared 4 px or more
        [--blur drawn]                                  # a shake drawn in whole pixels (every set before session 21)
    .venv/bin/python bench/physical_set.py score /tmp/pbr [--rules-only]
    .venv/bin/python bench/physical_set.py readings /tmp/pbr [--frames N] > before.txt   # then change the reader
    .venv/bin/python bench/physical_set.py readings /tmp/pbr [--frames N] > after.txt
    .venv/bin/python bench/physical_set.py compare before.txt after.txt   # each changed cell against the truth

Each frame takes its content from ``Scene.random(seed, level, physical=True)`` (the tiles as laid, the
camera, the lamp, the hand), so its ground truth is the synthetic camera's; the picture is rendered by
light transport instead: the printed board and card tiles (``thickness`` mm, a cut edge of their own
colour) under a lamp (a small spherical emitter, its colour temperature) and a window's daylight
(a large emitter to one side), glossy paper (a rough plastic coating), a raised hand and forearm casting
soft shadows, depth of field (a thin lens focused on the board), then lens distortion, motion blur,
white-balance error, exposure, sensor noise and JPEG applied as the camera would. The cells the hand
covers come from a second, hand-only render (the hand is raised, so it covers other cells than its
shadow). ``score`` reads the frames and reports right / unreadable / confidently wrong per disturbance.

Mitsuba's LLVM variant needs an LLVM newer than 14 (``apt install libllvm19``); without it the scalar
variant works, about 20 times slower. Frames are written as PNG beside a JSON record each, like
``bench/dataset.py``; nothing here is committed.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from cost_against import BLANK_LEVEL, read_times  # noqa: E402  (the timing loop, in a process of its own)

from engine import cpu_model  # noqa: E402  (bench/engine.py: the machine line every bench prints)
from thoughtwave.engine.cells import CELLS  # noqa: E402
from thoughtwave.synth import Scene, render  # noqa: E402
from thoughtwave.synth.camera import Projector, line_kernel, noisy, undistorted  # noqa: E402
from thoughtwave.synth.hands import hand_outline_mm  # noqa: E402
from thoughtwave.synth.light import cast_gains  # noqa: E402
from thoughtwave.synth.physical import camera_centre  # noqa: E402
from thoughtwave.synth.render import OCCLUDED_SHARE, _occlusion, cell_middle_points  # noqa: E402
from thoughtwave.vision.artwork import board_image, tile_image  # noqa: E402
from thoughtwave.vision.cellmeasures import cell_middles  # noqa: E402
from thoughtwave.vision.channels import darkest  # noqa: E402
from thoughtwave.vision.reading import CellState  # noqa: E402
from thoughtwave.vision.recognizer import Recognizer  # noqa: E402
from thoughtwave.vision.stabiliser import GONE_CONFIDENCE_MIN, OCCLUDED_MIN, covered_alone  # noqa: E402
from thoughtwave.vision.tiles import WASHED_LEVEL  # noqa: E402

#: How much wider than the frame the undistorted picture is rendered, so lens distortion has pixels to pull in.
MARGIN = 1.2
PPM = 6   # texture px per mm of the printed board and tiles
#: Samples a side over each whole cell where ``touched_cells`` looks for the hand (a finger's tip over a rim shows).
TOUCH_SAMPLES = 12


def _blank(frame: np.ndarray) -> bool:
    """Whether a rendered frame shows nothing (seed 41, frame 54: the camera inside the lamp's sphere)."""
    return int(frame.max()) < BLANK_LEVEL


def _bitmap(image_bgr: np.ndarray, folder: Path, name: str) -> dict:
    path = folder / f"{name}.png"
    cv2.imwrite(str(path), image_bgr)
    return {"type": "bitmap", "filename": str(path), "filter_type": "bilinear", "wrap_mode": "clamp"}


def _slab(polygon: np.ndarray, z: float, thickness: float, folder: Path, name: str) -> str:
    """A convex polygon (board mm) extruded ``thickness`` mm about height ``z``, written as an ASCII PLY."""
    n = len(polygon)
    top = [(x, y, z - thickness / 2) for x, y in polygon]
    bottom = [(x, y, z + thickness / 2) for x, y in polygon]
    faces = [(0, i, i + 1) for i in range(1, n - 1)] + [(n, n + i + 1, n + i) for i in range(1, n - 1)]
    for i in range(n):
        j = (i + 1) % n
        faces += [(i, j, n + j), (i, n + j, n + i)]
    path = folder / f"{name}.ply"
    lines = ["ply", "format ascii 1.0", f"element vertex {2 * n}", "property float x", "property float y",
             "property float z", f"element face {len(faces)}", "property list uchar int vertex_indices", "end_header"]
    lines += [f"{x:.3f} {y:.3f} {zz:.3f}" for x, y, zz in top + bottom] + [f"3 {a} {b} {c}" for a, b, c in faces]
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def _rgb(bgr: tuple[float, float, float], scale: float = 1.0) -> dict:
    return {"type": "rgb", "value": [bgr[2] * scale, bgr[1] * scale, bgr[0] * scale]}


def scene_dict(scene: Scene, folder: Path, draw: dict, size: tuple[int, int], hand_only: bool = False) -> dict:
    """The Mitsuba scene of ``scene`` (board mm, z into the table), textures written into ``folder``."""
    import mitsuba as mi

    T = mi.ScalarTransform4f  # noqa: N806 - Mitsuba's name
    layout, camera, physical = scene.layout, scene.camera, scene.physical
    side = layout.width_mm
    black = {"type": "diffuse", "reflectance": {"type": "rgb", "value": [0.0, 0.0, 0.0]}}

    def surface(bsdf: dict) -> dict:
        return black if hand_only else bsdf

    paper = board_image(layout, PPM, scene.red_sides)
    coating = {"type": "roughplastic", "alpha": draw["gloss_alpha"], "int_ior": 1.5,
               "diffuse_reflectance": _bitmap(paper, folder, "board")}
    out: dict = {
        "type": "scene",
        "integrator": {"type": "path", "max_depth": 4},
        "board": {"type": "rectangle",
                  "to_world": T().translate([side / 2, side / 2, 0.0]).scale([side / 2, side / 2, 1.0]),
                  "bsdf": surface({"type": "twosided", "bsdf": coating})},
        "desk": {"type": "rectangle",
                 "to_world": T().translate([side / 2, side / 2, 0.6]).scale([4 * side, 4 * side, 1.0]),
                 "bsdf": surface({"type": "twosided", "bsdf": {"type": "diffuse",
                                                               "reflectance": _rgb(scene.desk.bgr, 1 / 255)}})},
    }
    thickness = physical.relief.thickness_mm if physical.relief else 0.9
    edge = physical.relief.edge_bgr if physical.relief else (180, 190, 200)
    tile_px = int(round(layout.tile_mm * PPM))
    for k, (cell, (colour, piece)) in enumerate(sorted(scene.tiles.items())):
        lay = scene.lays.get(cell)
        cx, cy = layout.cell_center_mm(cell)
        dx, dy = (lay.offset if lay else (0.0, 0.0))
        turn = lay.turn_deg if lay else 0.0
        place = T().translate([cx + dx * layout.cell_mm, cy + dy * layout.cell_mm, 0.0]).rotate([0, 0, 1], turn)
        half = layout.tile_mm / 2
        face = tile_image(colour, piece, tile_px, layout.tile)
        out[f"tile{k}"] = {"type": "rectangle", "to_world": place @ T().translate([0, 0, -thickness - 0.01]).scale(
            [half, half, 1.0]), "bsdf": surface({"type": "twosided", "bsdf": {
                "type": "roughplastic", "alpha": draw["gloss_alpha"], "diffuse_reflectance": _bitmap(
                    face, folder, f"tile{k}")}})}
        out[f"card{k}"] = {"type": "cube", "to_world": place @ T().translate([0, 0, -thickness / 2]).scale(
            [half - 0.02, half - 0.02, thickness / 2]), "bsdf": surface({"type": "diffuse",
                                                                         "reflectance": _rgb(edge, 1 / 255)})}
    if scene.hand is not None:
        # In the hand-only pass the hand is white under an even sky and everything else black.
        tone = (255, 255, 255) if hand_only else scene.hand.skin_bgr
        lift = physical.hand_height_mm if physical else 60.0
        for j, part in enumerate(hand_outline_mm(scene.hand)):
            # Each convex part of the hand as a slab as thick as it is narrow (a finger) or 25 mm (the palm).
            centre = part.mean(axis=0)
            narrow = float(2 * np.min(np.linalg.norm(part - centre, axis=1)))
            slab = _slab(part, -lift, min(25.0, max(8.0, narrow)), folder, f"hand{j}")
            out[f"hand{j}"] = {"type": "ply", "filename": slab, "bsdf": {"type": "twosided", "bsdf": {
                "type": "diffuse", "reflectance": _rgb(tone, 1 / 255)}}}
        # The forearm: a long cylinder from the wrist away from the board, rising a little.
        a = math.radians(scene.hand.angle_deg)
        wrist = np.asarray(scene.hand.tip_mm) + np.array([math.cos(a), math.sin(a)]) * 0.9 * scene.hand.length_mm
        far = wrist + np.array([math.cos(a), math.sin(a)]) * 400.0
        arm = {"type": "cylinder", "p0": [float(wrist[0]), float(wrist[1]), -lift],
               "p1": [float(far[0]), float(far[1]), -lift - 120.0], "radius": 0.3 * scene.hand.width_mm}
        arm["bsdf"] = {"type": "twosided", "bsdf": {"type": "diffuse", "reflectance": _rgb(tone, 1 / 255)}}
        out["arm"] = arm
    if hand_only:
        out["sky"] = {"type": "constant", "radiance": {"type": "rgb", "value": [1.0, 1.0, 1.0]}}
    if not hand_only:
        lamp = physical.lamp
        warm = cast_gains(lamp.kelvin, False, 1.0)
        out["lamp"] = {"type": "sphere", "center": [lamp.position_mm[0], lamp.position_mm[1], -lamp.height_mm],
                       "radius": draw["lamp_radius"], "emitter": {"type": "area", "radiance": _rgb(
                           warm, draw["lamp_power"] * (lamp.height_mm / 500.0) ** 2)}}
        day = cast_gains(draw["window_kelvin"], False, 1.0)
        wa = math.radians(draw["window_angle"])
        wx, wy = side / 2 + 1500 * math.cos(wa), side / 2 + 1500 * math.sin(wa)
        out["window"] = {"type": "rectangle", "to_world": T().look_at(origin=[wx, wy, -900.0],
                                                                        target=[side / 2, side / 2, 0.0],
                                                                        up=[0, 0, -1]).scale([600.0, 600.0, 1.0]),
                         "emitter": {"type": "area", "radiance": _rgb(day, draw["window_power"])}}
        out["ambient"] = {"type": "constant", "radiance": {"type": "rgb", "value": [0.02, 0.02, 0.02]}}
    w, h = size
    f = (camera.resolution[0] / 2) / math.tan(math.radians(camera.fov_deg) / 2)
    fov = math.degrees(2 * math.atan((w / 2) / f))
    rotation, t = camera.pose()
    centre = camera_centre(camera)
    look = rotation.T @ np.array([0.0, 0.0, 1.0])
    down = rotation.T @ np.array([0.0, 1.0, 0.0])
    sensor = {"type": "thinlens" if (physical and physical.depth_of_field) and not hand_only else "perspective",
              "fov": fov, "fov_axis": "x",
              # Mitsuba's camera looks along +z with +y up in the picture; OpenCV's y points down.
              "to_world": T().look_at(origin=centre.tolist(), target=(centre + look).tolist(), up=(-down).tolist()),
              "film": {"type": "hdrfilm", "width": w, "height": h, "pixel_format": "rgb",
                       "rfilter": {"type": "gaussian"}},
              "sampler": {"type": "multijitter", "sample_count": draw["spp"] if not hand_only else 4}}
    if sensor["type"] == "thinlens":
        distance = float(np.linalg.norm(np.array([*camera.aim_mm, 0.0]) - centre))
        sensor.update({"aperture_radius": draw["aperture_mm"], "focus_distance": distance})
    out["sensor"] = sensor
    return out


def draw_extras(seed: int, spp: int) -> dict:
    """What the path tracer needs beyond the scene, from the frame's own seed."""
    rnd = np.random.default_rng(seed)
    return {"spp": spp, "gloss_alpha": float(rnd.uniform(0.05, 0.35)), "lamp_radius": float(rnd.uniform(15, 60)),
            "lamp_power": float(rnd.uniform(25, 60)), "window_power": float(rnd.uniform(0.0, 0.35)),
            "window_kelvin": float(rnd.uniform(5500, 7500)), "window_angle": float(rnd.uniform(0, 360)),
            "aperture_mm": float(rnd.uniform(0.0, 1.5)), "exposure": float(rnd.uniform(0.75, 1.15)),
            "wb_error": [float(v) for v in rnd.uniform(0.85, 1.15, 3)],
            "motion_px": float(rnd.choice([0.0, 0.0, 0.0, rnd.uniform(2, 9)])),
            "motion_angle": float(rnd.uniform(0, 180)),
            "noise": float(rnd.uniform(0.1, 0.6)), "jpeg": int(rnd.uniform(70, 95))}


def smooth_line_kernel(length: float, angle_deg: float) -> np.ndarray:
    """A straight shake's point spread function as the sensor takes it: ``length`` px along ``angle_deg`` (the angle as
    ``vision.deblur.line_psf`` takes it), the light spread evenly along the segment and shared between the pixels each
    point falls among (bilinear), so any length counts. The reader's model (``line_psf``) is the same construction
    today, but the renderer keeps its own: a change to the reader's model must not change the pictures it is judged on
    (the whole-pixel line the reader once had blurred every set before the twenty-first session, which flattered it)."""
    n = int(math.ceil(length)) + 2 | 1
    c = (n - 1) / 2
    a = math.radians(angle_deg)
    t = np.linspace(-length / 2, length / 2, max(64, int(math.ceil(32 * length))))
    x, y = c + t * math.cos(a), c + t * math.sin(a)
    x0, y0 = np.floor(x).astype(int), np.floor(y).astype(int)
    fx, fy = x - x0, y - y0
    kernel = np.zeros((n, n), np.float64)
    for dy, dx, w in ((0, 0, (1 - fx) * (1 - fy)), (0, 1, fx * (1 - fy)), (1, 0, (1 - fx) * fy), (1, 1, fx * fy)):
        np.add.at(kernel, (y0 + dy, x0 + dx), w)
    return (kernel / kernel.sum()).astype(np.float32)


def _render(scene: Scene, draw: dict, hand_only: bool = False) -> np.ndarray:
    import mitsuba as mi

    w, h = scene.camera.resolution
    size = (int(round(w * MARGIN)) // 2 * 2, int(round(h * MARGIN)) // 2 * 2)
    with tempfile.TemporaryDirectory() as tmp:
        image = np.array(mi.render(mi.load_dict(scene_dict(scene, Path(tmp), draw, size, hand_only))))
    # Lens distortion: each frame pixel looks where the undistorted (wider) render has it.
    xs, ys = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
    ux, uy = undistorted(scene.camera, xs, ys)
    map_x = (ux - (w - 1) / 2 + (size[0] - 1) / 2).astype(np.float32)
    map_y = (uy - (h - 1) / 2 + (size[1] - 1) / 2).astype(np.float32)
    return cv2.remap(image[..., ::-1].astype(np.float32), map_x, map_y, cv2.INTER_LINEAR,
                     borderMode=cv2.BORDER_REPLICATE)


def frame_of(scene: Scene, draw: dict) -> tuple[np.ndarray, dict]:
    """The camera frame (BGR uint8) and its record: ground truth, the hand's cover, the draws."""
    linear = _render(scene, draw)
    # Auto exposure on the middle of the picture, a white-balance error, the sRGB curve, noise, JPEG.
    w, h = scene.camera.resolution
    middle = linear[h // 4:3 * h // 4, w // 4:3 * w // 4].max(axis=2)
    linear *= draw["exposure"] * 0.85 / max(1e-4, float(np.percentile(middle, 90)))
    linear *= np.asarray(draw["wb_error"], np.float32)
    if draw["motion_px"] >= 1:
        kernel = smooth_line_kernel if draw.get("blur") == "smooth" else line_kernel
        linear = cv2.filter2D(linear, -1, kernel(draw["motion_px"], draw["motion_angle"]))
    srgb = np.where(linear <= 0.0031308, 12.92 * linear, 1.055 * np.power(np.maximum(linear, 0), 1 / 2.4) - 0.055)
    image = np.clip(srgb, 0, 1).astype(np.float32) * 255
    sigma = np.sqrt(np.maximum(image, 0) * draw["noise"] + 1.5 ** 2).astype(np.float32)
    image = np.clip(noisy(image, sigma, scene.noise_seed) + 0.5, 0, 255).astype(np.uint8)
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, draw["jpeg"]])
    frame = cv2.imdecode(data, cv2.IMREAD_COLOR)
    _, truth = render(replace(scene, hand=None))
    record = {"board": truth.board_state(), "board_to_image": truth.board_to_image.tolist(), "draw": draw,
              "hand": scene.hand is not None, "occluded_cells": []}
    if scene.hand is not None:
        mask = _render(scene, draw, hand_only=True).max(axis=2)
        projector = Projector(scene.camera)
        cover = _occlusion(scene.layout, projector, (mask > 0.25).astype(np.float32), (w, h))
        record["occluded_cells"] = sorted(str(c) for c, s in cover.items() if s >= OCCLUDED_SHARE)
        record["touched_cells"] = touched_cells(scene, projector, mask > 0.25)
    return frame, record


def touched_cells(scene: Scene, projector: Projector, mask: np.ndarray) -> list[str]:
    """The cells the hand's ``mask`` (frame px, bool) lies over anywhere, rim included (``TOUCH_SAMPLES`` a side over
    the whole cell): a cell it covers less than ``OCCLUDED_SHARE`` of the middle of is scored as visible, yet its rim,
    where a wave ends, may be under a finger."""
    steps = ((np.arange(TOUCH_SAMPLES) + 0.5) / TOUCH_SAMPLES - 0.5) * scene.layout.cell_mm
    offsets = np.array([[dx, dy] for dy in steps for dx in steps])
    centres = np.array([scene.layout.cell_center_mm(c) for c in CELLS])
    points = (centres[:, None, :] + offsets[None, :, :]).reshape(-1, 2)
    h, w = mask.shape
    return sorted(str(c) for c in _occlusion(scene.layout, projector, mask.astype(np.float32), (w, h), points))


def render_set(out: Path, count: int, seed: int, spp: int, resolution: tuple[int, int],
               smeared_from: float | None = None, blur: str = "smooth") -> None:
    """Frames 0 to ``count`` - 1 of the set ``seed`` into ``out``; with ``smeared_from``, only those smeared at least
    that many px (the same frames, under the same names, as in the whole set: a quick set for the smear search).
    ``blur``: a shake's kernel, "smooth" (``smooth_line_kernel``) or "drawn" (the whole-pixel line the reader had
    until the twenty-second session, ``synth.camera.line_kernel``, as every set before the twenty-first was rendered;
    the record's ``draw`` says which)."""
    import mitsuba as mi

    mi.set_variant("llvm_ad_rgb" if "llvm_ad_rgb" in mi.variants() and os.environ.get("DRJIT_LIBLLVM_PATH")
                   else "scalar_rgb")
    out.mkdir(parents=True, exist_ok=True)
    for i in range(count):
        frame_seed = seed * 1_000_003 + i
        if smeared_from is not None and draw_extras(frame_seed, spp)["motion_px"] < smeared_from:
            continue
        level = float(np.random.default_rng(frame_seed).uniform(0.2, 0.8))
        # A third with hands: every third frame.
        scene = Scene.random(frame_seed, level=level, physical=True, resolution=resolution,
                             hand=i % 3 == 0)
        started = time.perf_counter()
        frame, record = frame_of(scene, {**draw_extras(frame_seed, spp), "blur": blur})
        record.update({"index": i, "scene_seed": frame_seed, "level": level,
                       "seconds": round(time.perf_counter() - started, 1)})
        if _blank(frame):
            print(f"\nframe {i} rendered black: nothing in view; score skips it", file=sys.stderr)
        cv2.imwrite(str(out / f"frame-{i:05d}.png"), frame)
        (out / f"frame-{i:05d}.json").write_text(json.dumps(record) + "\n")
        print(f"\r{i + 1}/{count} frames ({record['seconds']} s)", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)


def lamp_cover(scene: Scene, radius_mm: float) -> set[str]:
    """Cells the lamp's sphere hides from the camera (at least ``OCCLUDED_SHARE`` of their middle): a lamp hung
    between the camera and the board (seed 43, frame 17) shows itself, not the cells behind it."""
    assert scene.physical is not None
    lamp = scene.physical.lamp
    centre = np.array([lamp.position_mm[0], lamp.position_mm[1], -lamp.height_mm])
    eye = camera_centre(scene.camera)
    points = cell_middle_points(scene.layout)
    points = np.column_stack([points, np.zeros(len(points))])
    ray = points - eye
    # The point of each sight line nearest the lamp's centre, kept on the segment from the eye to the board.
    along = np.clip(((centre - eye) @ ray.T) / np.einsum("ij,ij->i", ray, ray), 0.0, 1.0)
    miss = np.linalg.norm(eye + along[:, None] * ray - centre, axis=1)
    share = (miss < radius_mm).reshape(len(CELLS), -1).mean(axis=1)
    return {str(c) for c, s in zip(CELLS, share, strict=True) if s >= OCCLUDED_SHARE}


def _scene_of(record: dict, frame: np.ndarray) -> Scene | None:
    """The scene a frame was rendered from, drawn again from its record (as ``render_set`` drew it); None for a
    record without one (frames of the fast camera)."""
    if "scene_seed" not in record:
        return None
    h, w = frame.shape[:2]
    return Scene.random(record["scene_seed"], level=record["level"], physical=True, resolution=(w, h),
                        hand=record["index"] % 3 == 0)


#: A cell's middle is near-white when its darkest channel's 10th percentile is this or more: within noise of clipping,
#: where a tile washed out whole by a reflection looks as paper does (seed 179 frame 199 G10, a red e, shows no trace
#: of its ink), so the empty cells there are left unreadable as surely as the tiles.
NEAR_WHITE = 240
#: ... and clipped when this share of it is clipped in every channel (at ``vision.tiles.WASHED_LEVEL``, as the reader
#: counts it).
CLIPPED_MIDDLE = 0.6


def middle_light(recognizer: Recognizer, frame: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(100,) each cell's middle (``vision.cellmeasures.cell_middles``) in the board as ``recognizer`` last found it in
    ``frame``: its darkest channel's 10th percentile, and the share of it clipped in every channel."""
    finder = recognizer.finder
    middles = cell_middles(darkest(finder.warp(frame, recognizer.pose)), finder.geometry)
    return np.percentile(middles, 10, axis=1), (middles >= WASHED_LEVEL).mean(axis=1)


def score(folder: Path, rules_only: bool = False) -> list[str]:
    """Right / unreadable / confidently wrong over the visible cells, overall and per disturbance; ``rules_only``: the
    tile reader without its second opinion (``vision.second``)."""
    groups: dict[str, list[int]] = {}
    found, frames, ms = 0, 0, []
    wrong_examples, lost, blank, hidden_wrong = [], [], [], []
    under = [0, 0, 0]              # cells the hand or the lamp hides: all, read as what they are, as what they are not
    # ... of those read as what they are not, the ones a steady view would act on: a tile read empty surely enough to
    # take it off the board (``GONE_CONFIDENCE_MIN``), or read as another tile, or an empty cell read as a tile.
    acted_on = 0
    # Of the confidently wrong visible cells and of those hidden ones acted on, the ones in frames the referee sets
    # aside whatever came before (``covered_alone``: the reader marks enough cells covered, a hand over the board),
    # where no reading of the frame reaches the game.
    wrong_aside, acted_aside = 0, 0
    causes: dict[str, int] = {}
    # Of the unreadable visible cells on found boards, those the hand lies over in part (sets rendered since the
    # thirty-second session record which: ``touched_cells``), and whether any record says.
    touched, recorded = 0, False
    # Visible cells whose middle is near-white (``NEAR_WHITE``): tiles, of them unreadable, empty cells, of them
    # unreadable; and those whose middle is clipped (``CLIPPED_MIDDLE``).
    near_white, clipped = [0, 0, 0, 0], 0
    for path in sorted(folder.glob("frame-*.json")):
        record = json.loads(path.read_text())
        recorded |= "touched_cells" in record
        frame = cv2.imread(str(path.with_suffix(".png")))
        black = _blank(frame)
        scene = None if black else _scene_of(record, frame)
        lamp = set() if scene is None else lamp_cover(scene, record["draw"]["lamp_radius"])
        if black or len(lamp) == len(CELLS):
            # No cell of it is visible (black, or the camera inside the lamp's sphere: seed 67, frame 59), so none is
            # scored, and a board not found there is no board lost.
            blank.append(path.stem)
            continue
        recognizer = Recognizer()
        if rules_only:
            recognizer.reader.second = None
        reading = recognizer.read(frame)
        ms.append(reading.ms)
        frames += 1
        found += reading.board_found
        draw = record["draw"]
        if not reading.board_found:
            why = reading.lost.cause.value if reading.lost is not None and reading.lost.cause is not None else "none"
            lost.append(f"{path.stem} (motion blur {draw['motion_px']:.1f} px; the reader says why: {why})")
        tags = ["all", "hand" if record["hand"] else "no hand",
                "glossy (alpha < 0.15)" if draw["gloss_alpha"] < 0.15 else "matt-ish",
                "motion blur" if draw["motion_px"] >= 1 else "still", "window light" if draw["window_power"] > 0.15
                else "lamp only", "shallow focus (aperture > 0.8 mm)" if draw["aperture_mm"] > 0.8 else "deep focus"]
        covered = set(record["occluded_cells"]) | lamp
        aside = reading.board_found and covered_alone(reading)
        set_aside = " (a frame the referee sets aside: a hand over the board)" if aside else ""
        tally = [0, 0, 0]          # right, unreadable, wrong
        light = middle_light(recognizer, frame) if reading.board_found else None
        for index, cell in enumerate(CELLS):
            got = reading.get(cell) if reading.board_found else None
            expected = record["board"].get(str(cell), "empty")
            if str(cell) in covered:
                # Not scored, yet a hidden cell read as something it is not is a confident misread all the same
                # (an arm of paper-pale skin read as empty paper over a tile): counted apart.
                where = "behind the lamp" if str(cell) in lamp else "under the hand"
                under[0] += 1
                if got is not None and got.state is not CellState.UNREADABLE:
                    right = got.label() == expected
                    under[1 if right else 2] += 1
                    if not right:
                        acted = got.state is not CellState.EMPTY or got.confidence >= GONE_CONFIDENCE_MIN
                        surely = ", surely enough to act on" if acted else ""
                        hidden_wrong.append((not acted, f"{path.stem} {cell} ({where}): read {got.label()}, is "
                                             f"{expected}{surely}{set_aside}"))
                        acted_on += acted
                        acted_aside += acted and aside
                continue
            unread = got is None or got.state is CellState.UNREADABLE
            if light is not None:
                clipped += bool(light[1][index] >= CLIPPED_MIDDLE)
                if light[0][index] >= NEAR_WHITE:
                    at = 0 if expected != "empty" else 2
                    near_white[at] += 1
                    near_white[at + 1] += unread
            if unread:
                tally[1] += 1
                if reading.board_found:
                    cause = reading.causes.get(cell)
                    name = cause.value if cause is not None else "none"
                    causes[name] = causes.get(name, 0) + 1
                    touched += str(cell) in record.get("touched_cells", ())
            elif got.label() == expected:
                tally[0] += 1
            else:
                tally[2] += 1
                wrong_aside += aside
                wrong_examples.append(f"{path.stem} {cell}: read {got.label()}, is {expected}{set_aside}")
        for tag in tags:
            into = groups.setdefault(tag, [0, 0, 0])
            for k in range(3):
                into[k] += tally[k]
    lines = [f"Frames {frames}, board found {found}, read median {np.median(ms):.1f} ms", "",
             "| frames with | cells | right | unreadable | confidently wrong |", "|---|---|---|---|---|"]
    for tag, (right, unread, wrong) in groups.items():
        cells = right + unread + wrong
        lines.append(f"| {tag} | {cells} | {100 * right / cells:.2f}% | {100 * unread / cells:.2f}% | {wrong} |")
    named = sorted(causes.items(), key=lambda kv: (kv[0] == "none", -kv[1]))
    lines += ["", f"Unreadable visible cells on found boards, by cause: {sum(causes.values())} "
              f"({', '.join(f'{k} {v}' for k, v in named)})"
              + (f"; the hand lies over part of {touched} of them" if recorded else ""),
              f"Boards lost ({len(lost)}): {', '.join(lost) if lost else 'none'}",
              f"Near-white middles on found boards (the darkest channel's 10th percentile at {NEAR_WHITE} or more, "
              f"within noise of clipping): {near_white[0] + near_white[2]} visible cells, {near_white[0]} tiles "
              f"({near_white[1]} unreadable), {near_white[2]} empty ({near_white[3]} unreadable); middles clipped in "
              f"every channel over {CLIPPED_MIDDLE:.0%}: {clipped}",
              f"Frames with nothing of the board in view (black, or the lamp's sphere over all of it), not scored "
              f"({len(blank)}): {', '.join(blank) if blank else 'none'}",
              f"Cells under the hand or behind the lamp (not scored above): {under[0]}, "
              f"read anyway as what they are {under[1]}, read as what they are not {under[2]} (of which surely "
              f"enough to take a tile off or put one down {acted_on})",
              f"Of these misreads, in frames the referee sets aside whatever came before (the reader marks "
              f"{OCCLUDED_MIN} or more cells covered: a hand over the board; none of the frame's readings reaches the "
              f"game): {wrong_aside} of the {groups.get('all', [0, 0, 0])[2]} confidently wrong visible cells, "
              f"{acted_aside} of the {acted_on} hidden ones read surely enough to act on"]
    # The hidden misreads surely enough to act on first (in frame order, as the rest): the ones a game could take,
    # where twenty are named.
    named = [e for _, e in sorted(hidden_wrong, key=lambda pair: pair[0])]
    return lines + [""] + [f"- {e}" for e in (wrong_examples[:20] + named[:20])]


def readings(folder: Path, count: int | None = None) -> list[str]:
    """Every cell's reading of each frame (the first ``count``), one line a cell: the frame's record, the cell, the
    label, the state, the confidence and the cause the reader names; a board not found is one line, ``lost``. Two
    readers' lines, one before a change to the reader and one after, are what ``compare`` holds side by side."""
    lines = []
    for path in sorted(folder.glob("frame-*.png"))[:count]:
        frame = cv2.imread(str(path))
        if frame is None or _blank(frame):
            continue
        reading = Recognizer().read(frame)
        record = path.with_suffix(".json").resolve()
        if not reading.board_found:
            lines.append(f"{record} lost")
            continue
        for cell in CELLS:
            got, cause = reading.get(cell), reading.causes.get(cell)
            lines.append(f"{record} {cell} {got.label()} {got.state.value} {got.confidence:.3f} "
                         f"{cause.value if cause is not None else '-'}")
    return lines


def compare(before: list[str], after: list[str]) -> list[str]:
    """The cells two ``readings`` of the same frames read differently, each judged against the frame's truth, then a
    tally: ``gained`` (now right, was not), ``lost`` (was right, now unreadable), ``wrong`` (a visible cell now read as
    what it is not: the change is unsafe), ``hidden`` (a cell the hand or the lamp hides, now read as what it is not)
    and ``other`` (a board found or lost, or one unreadable or wrong reading for another)."""
    def split(lines: list[str]) -> dict[tuple[str, str], list[str]]:
        out = {}
        for line in lines:
            record, cell, *rest = line.split()
            if cell == "lost":
                out[(record, "")] = ["lost"]
            else:                                   # the label, the state, the confidence, the cause ("red ne": one)
                out[(record, cell)] = [" ".join(rest[:-3]), *rest[-3:]]
        return out

    old, new = split(before), split(after)
    if {r for r, _ in old} != {r for r, _ in new}:
        raise SystemExit("compare: the two readings are not of the same frames")
    tally = dict.fromkeys(("gained", "lost", "wrong", "hidden", "other"), 0)
    changes, truths = [], {}
    lost_once = {r for r, c in old.keys() ^ new.keys() if not c}     # a board one reader found and the other did not
    for record in sorted(lost_once):
        tally["other"] += 1
        changes.append(f"other {record}: the board {'lost' if (record, '') in new else 'found'} now")
    for key in sorted(old.keys() & new.keys()):
        a, b = old[key], new[key]
        record, cell = key
        if a[:2] == b[:2] or not cell:
            continue                                   # the same label and state (a confidence or a cause aside)
        if record not in truths:
            data = json.loads(Path(record).read_text())
            frame = cv2.imread(str(Path(record).with_suffix(".png")))
            scene = _scene_of(data, frame)
            lamp = set() if scene is None else lamp_cover(scene, data["draw"]["lamp_radius"])
            truths[record] = (data["board"], set(data["occluded_cells"]) | lamp)
        board, covered = truths[record]
        expected = board.get(cell, "empty")
        # Right (True), read as what it is not (False) or unreadable (None), before and after.
        was, now = (None if f[1] == CellState.UNREADABLE.value else f[0] == expected for f in (a, b))
        if cell in covered:
            kind = "hidden" if now is False else "other"
        elif now is False:
            kind = "wrong"
        elif now and not was:
            kind = "gained"
        elif was and now is None:
            kind = "lost"
        else:
            kind = "other"
        tally[kind] += 1
        changes.append(f"{kind} {Path(record).parent.name}/{Path(record).stem} {cell} (is {expected}"
                       f"{', hidden' if cell in covered else ''}): {' '.join(a)} -> {' '.join(b)}")
    return changes + [", ".join(f"{k} {v}" for k, v in tally.items())]


def cost(folder: Path, count: int | None = None, rounds: int = 3) -> list[str]:
    """CPU time of one read of each frame (best of ``rounds``, a fresh recogniser each time, one thread; the loop
    ``bench/cost_against.py`` times each revision with): comparable between two readers run one after the other on a
    busy machine, unlike the wall time ``score`` reports."""
    best = list(read_times(None, folder, count, rounds)[0].values())
    if not best:
        raise SystemExit(f"{folder}: no frames to read")
    load = ", ".join(f"{v:.1f}" for v in os.getloadavg())
    return [f"CPU time a read over {len(best)} frames of {folder} (best of {rounds}, one thread): median "
            f"{np.median(best):.1f} ms, mean {np.mean(best):.1f} ms, p95 {np.percentile(best, 95):.1f} ms",
            f"{cpu_model()}, {os.cpu_count()} cores, load average {load}, "
            f"{platform.python_implementation()} {platform.python_version()}, OpenCV {cv2.__version__}"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    make = sub.add_parser("render", help="render a set")
    make.add_argument("--out", type=Path, required=True)
    make.add_argument("--count", type=int, default=200)
    make.add_argument("--seed", type=int, default=19, help="19: the held-out set; tune on another")
    make.add_argument("--spp", type=int, default=16, help="samples per pixel (default 16)")
    make.add_argument("--resolution", default="960x720")
    make.add_argument("--smeared-from", type=float, default=None, metavar="PX",
                      help="only the frames smeared at least PX px (named as in the whole set)")
    make.add_argument("--blur", choices=("smooth", "drawn"), default="smooth",
                      help="a shake's kernel: smooth (default), or drawn in whole pixels as the reader modelled it "
                           "until the twenty-second session (every set before the twenty-first)")
    judge = sub.add_parser("score", help="score the reader on a rendered set")
    judge.add_argument("folder", type=Path)
    judge.add_argument("--rules-only", action="store_true", help="without the tile reader's second opinion")
    timing = sub.add_parser("cost", help="CPU time of a read, best of three, on a rendered set")
    timing.add_argument("folder", type=Path)
    timing.add_argument("--frames", type=int, default=None, help="the first N frames only")
    dump = sub.add_parser("readings", help="every cell's reading of each frame, one line a cell, for compare")
    dump.add_argument("folder", type=Path)
    dump.add_argument("--frames", type=int, default=None, help="the first N frames only")
    diff = sub.add_parser("compare", help="the cells two readings files read differently, judged against the truth")
    diff.add_argument("before", type=Path)
    diff.add_argument("after", type=Path)
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    if args.command == "render":
        width, height = (int(v) for v in args.resolution.lower().split("x"))
        render_set(args.out, args.count, args.seed, args.spp, (width, height), args.smeared_from, args.blur)
    elif args.command == "cost":
        print("\n".join(cost(args.folder, args.frames)))
    elif args.command == "readings":
        print("\n".join(readings(args.folder, args.frames)))
    elif args.command == "compare":
        print("\n".join(compare(args.before.read_text().splitlines(), args.after.read_text().splitlines())))
    else:
        print("\n".join(score(args.folder, args.rules_only)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
