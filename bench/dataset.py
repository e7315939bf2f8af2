"""Write a data set of synthetic camera frames with exact ground truth, for evaluating the vision pipeline.

Run as ``.venv/bin/python bench/dataset.py --out DIR --count N --seed S [--level L] [--resolution WxH]
[--physical none|all|gloss|...]``.
Frame ``i`` is ``Scene.random(S * 1000003 + i, level=...)``: a plausible position of 0..48 tiles (legal
placements, colours taking turns), a random camera, light and (sometimes) a hand. Next to each
``frame-NNNNN.png`` goes ``frame-NNNNN.json``: the board as ``{"E5": "red ew"}``, the homography and
lens, the grid corners in frame pixels, occluded cells, visible markers and every scene parameter.
``index.json`` lists the frames and how they were made. At the end it prints render times per frame
(rendering only, not writing); the figure depends on what else the machine is doing.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a checkout without installing

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from thoughtwave.synth import DISTURBANCES, LEVELS, GroundTruth, Scene, render  # noqa: E402

#: Frame seeds are spaced by a prime so that data sets of different seeds never share a frame.
SEED_STRIDE = 1_000_003


def frame_seed(seed: int, index: int) -> int:
    """The scene seed of frame ``index`` in the data set of ``seed``."""
    return seed * SEED_STRIDE + index


def parse_level(text: str) -> str | float:
    """``clean|mild|medium|hard``, ``mixed`` (a new level 0..1 per frame) or a number 0..1."""
    if text in LEVELS or text == "mixed":
        return text
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a level: use {', '.join(LEVELS)}, mixed or a number 0..1") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"level {value} is outside 0..1")
    return value


def parse_resolution(text: str) -> tuple[int, int]:
    """``1280x960`` -> (1280, 960)."""
    width, sep, height = text.lower().partition("x")
    if not sep or not width.isdigit() or not height.isdigit() or not (64 <= int(width) <= 8192
                                                                       and 48 <= int(height) <= 8192):
        raise argparse.ArgumentTypeError(f"{text!r} is not a resolution like 1280x960")
    return int(width), int(height)


def scene_for(seed: int, index: int, level: str | float, hand: str,
              resolution: tuple[int, int], physical: str = "none") -> tuple[Scene, str | float]:
    """The scene of one frame of the data set, and the level it was drawn at; ``physical`` ``none``,
    ``all`` or one of ``synth.DISTURBANCES`` adds the physically motivated disturbances."""
    scene_seed = frame_seed(seed, index)
    if level == "mixed":
        level = round(float(np.random.default_rng(scene_seed).uniform(0.0, 1.0)), 3)
    with_hand = {"auto": None, "always": True, "never": False}[hand]
    extra: bool | str = {"none": False, "all": True}.get(physical, physical)
    return Scene.random(scene_seed, level=level, hand=with_hand, resolution=resolution, physical=extra), level


def frame_record(scene: Scene, truth: GroundTruth, index: int, seed: int, image_name: str,
                 level: str | float) -> dict:
    """The per-frame JSON: ground truth first, then the grid corners in pixels, then the whole scene."""
    layout = scene.layout
    x0, y0 = layout.grid_origin_mm
    steps = np.arange(11) * layout.cell_mm
    corners_mm = np.array([[x0 + sx, y0 + sy] for sy in steps for sx in steps])
    grid = truth.project(corners_mm).reshape(11, 11, 2)
    record = {
        "index": index,
        "scene_seed": frame_seed(seed, index),
        "image": image_name,
        "level": level,
        **truth.to_json(),
        "grid_corners_px": np.round(grid, 3).tolist(),
        "scene": scene.describe(),
    }
    return record


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, type=Path, help="directory to write (created if missing)")
    parser.add_argument("--count", type=int, default=100, help="number of frames (default 100)")
    parser.add_argument("--seed", type=int, default=0, help="data set seed (default 0)")
    parser.add_argument("--level", type=parse_level, default="medium",
                        help="clean, mild, medium (default), hard, mixed, or a number 0..1")
    parser.add_argument("--resolution", type=parse_resolution, default=(1280, 960), help="WxH (default 1280x960)")
    parser.add_argument("--hand", choices=("auto", "always", "never"), default="auto",
                        help="hands over the board: as the seed decides (default), always, never")
    parser.add_argument("--physical", choices=("none", "all", *DISTURBANCES), default="none",
                        help="add a lamp, thick tiles, gloss, mixed light, depth of field (synth.physical): "
                             "none (default), all, or one of them")
    parser.add_argument("--format", choices=("png", "jpg"), default="png",
                        help="png (default: the frame exactly as rendered) or jpg (quality 95)")
    args = parser.parse_args(argv)
    if args.count < 0:
        parser.error("--count must be 0 or more")
    try:
        args.out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        parser.error(f"cannot make {args.out}: {err.strerror}")

    timings: list[float] = []
    names: list[str] = []
    params = [cv2.IMWRITE_JPEG_QUALITY, 95] if args.format == "jpg" else [cv2.IMWRITE_PNG_COMPRESSION, 3]
    for index in range(args.count):
        scene, level = scene_for(args.seed, index, args.level, args.hand, args.resolution, args.physical)
        started = time.perf_counter()
        image, truth = render(scene)
        timings.append(time.perf_counter() - started)
        stem = f"frame-{index:05d}"
        image_name = f"{stem}.{args.format}"
        if not cv2.imwrite(str(args.out / image_name), image, params):
            print(f"\nerror: could not write {args.out / image_name}", file=sys.stderr)
            return 2
        record = frame_record(scene, truth, index, args.seed, image_name, level)
        (args.out / f"{stem}.json").write_text(json.dumps(record, indent=1) + "\n")
        names.append(stem)
        print(f"\r{index + 1}/{args.count} frames", end="", file=sys.stderr, flush=True)
    if args.count:
        print(file=sys.stderr)
    index_record = {
        "count": args.count, "seed": args.seed, "level": args.level, "hand": args.hand, "physical": args.physical,
        "resolution": list(args.resolution), "format": args.format, "seed_stride": SEED_STRIDE,
        "frames": names,
    }
    (args.out / "index.json").write_text(json.dumps(index_record, indent=1) + "\n")
    if timings:
        ms = sorted(t * 1000 for t in timings)
        print("| frames | resolution | level | render ms mean | median | max |\n"
              "| --- | --- | --- | --- | --- | --- |\n"
              f"| {len(ms)} | {args.resolution[0]}x{args.resolution[1]} | {args.level} | "
              f"{statistics.fmean(ms):.0f} | {statistics.median(ms):.0f} | {ms[-1]:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
