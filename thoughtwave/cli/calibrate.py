"""``thoughtwave calibrate (--camera SRC | --image F) [--lens-images F ...] [--out F]``: check the camera and board,
write the profile (with a lens model when pictures of the print kit's lens sheet are given)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from thoughtwave.calibration.calibrate import calibrate_frames
from thoughtwave.calibration.lens import LensError, LensModel, SheetNotSeen, ViewCollector, calibrate_lens
from thoughtwave.calibration.profile import save_profile
from thoughtwave.cli.errors import NotFound, UsageError
from thoughtwave.cli.profiles import load_config_or_usage
from thoughtwave.config import CameraSpec, open_camera
from thoughtwave.vision.imageio import ImageError, read_image
from thoughtwave.vision.sources import CameraError, FrameSource

#: Frames taken from a live camera: the best one is used (the first ones may still be adjusting).
CAMERA_FRAMES = 12
#: Seconds --lens-camera watches the sheet (after the board's pictures are taken, so the sheet may cover it).
LENS_SECONDS = 30.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--camera", metavar="SRC", help="a camera: pi, usb:N, demo, file:VIDEO, dir:FOLDER")
    source.add_argument("--image", metavar="FILE", help="a photo of the board from the camera's position")
    parser.add_argument("--out", metavar="FILE",
                        help="where to write the profile (default: profile.json in the state directory)")
    parser.add_argument("--state-dir", metavar="DIR", help="the state directory (default: from the config)")
    parser.add_argument("--config", metavar="FILE", help="the configuration file")
    parser.add_argument("--force", action="store_true", help="write the profile even when a check fails")
    lens = parser.add_mutually_exclusive_group()
    lens.add_argument("--lens-images", nargs="+", metavar="FILE",
                      help="6 or more photos of the lens sheet (print-kit --lens-sheet) from this camera at its "
                           "playing resolution, held at different angles and places: adds a lens model")
    lens.add_argument("--lens-camera", metavar="SRC",
                      help="take the lens sheet pictures from this camera (usually the same as --camera) while you "
                           "move the sheet in front of it for --lens-seconds")
    parser.add_argument("--lens-seconds", type=float, default=LENS_SECONDS, metavar="S",
                        help=f"how long --lens-camera watches the sheet (default {LENS_SECONDS:g})")


def default_profile_path(args: argparse.Namespace) -> Path:
    """Where serve will look: the configuration's ``profile_path`` (``[vision] profile``, else profile.json
    in the state directory, ``--state-dir`` over the configured one)."""
    return load_config_or_usage(args.config, args.state_dir).profile_path


def _open(spec: str) -> FrameSource:
    """The camera ``spec`` names, opened; bad input (UsageError) when it names none or will not open."""
    try:
        return open_camera(CameraSpec.parse(spec))
    except (CameraError, ValueError, OSError) as err:
        raise UsageError(f"cannot open camera {spec}: {err}") from None


def _picture(name: str) -> np.ndarray:
    """The photo ``name`` (its size checked from its header before decoding); bad input when it cannot be."""
    try:
        return read_image(name)
    except ImageError as err:
        raise UsageError(str(err)) from None


def _frames(args: argparse.Namespace) -> list[np.ndarray]:
    if args.image:
        return [_picture(args.image)]
    source = _open(args.camera)
    frames = []
    try:
        for _ in range(CAMERA_FRAMES):
            frame = source.read()
            if frame is None:
                break
            frames.append(frame.image)
    except CameraError as err:
        raise UsageError(f"camera {args.camera} failed: {err}") from None
    finally:
        source.close()
    if not frames:
        raise UsageError(f"camera {args.camera} gave no pictures")
    return frames


def _lens_views(spec: str, seconds: float) -> list[np.ndarray]:
    """Frames of the lens sheet picked from a camera over ``seconds`` (by the frames' own clock)."""
    if not 0 < seconds <= 600:  # also refuses NaN
        raise UsageError(f"--lens-seconds {seconds:g} is outside 0..600")
    source = _open(spec)
    collector = ViewCollector()
    print(f"lens: the board's pictures are taken; now move the lens sheet in front of the camera for {seconds:g} s: "
          "tilted, near the edges and corners of the picture, still for a moment each time",
          file=sys.stderr, flush=True)
    try:
        while not collector.full and (frame := source.read()) is not None and frame.t <= seconds:
            if collector.offer(frame.image):
                print(f"lens: {len(collector.views)} view(s) kept", file=sys.stderr, flush=True)
    except CameraError as err:
        raise UsageError(f"camera {spec} failed: {err}") from None
    finally:
        source.close()
    return collector.views


def _lens(args: argparse.Namespace) -> LensModel | None:
    """The lens model from the sheet photos or camera, or None without them."""
    files, spec = args.lens_images, args.lens_camera
    if not files and not spec:
        return None

    def pictures() -> Iterator[np.ndarray]:
        for name in files:
            yield _picture(name)

    try:
        return calibrate_lens(pictures() if files else _lens_views(spec, args.lens_seconds))
    except SheetNotSeen as err:
        raise NotFound(f"lens model: {err}") from None
    except LensError as err:
        raise UsageError(f"lens model: {err}") from None


def run(args: argparse.Namespace) -> int:
    out = Path(args.out) if args.out else default_profile_path(args)
    frames = _frames(args)
    lens = _lens(args)
    try:
        result = calibrate_frames(frames, lens=lens)
    except ValueError as err:
        raise UsageError(str(err)) from None
    for check in result.checks:
        print(check.line())
    if result.profile is None:
        raise NotFound("no board in the picture; nothing written")
    if not result.ok and not args.force:
        failed = ", ".join(c.name for c in result.checks if not c.ok)
        print(f"calibration failed ({failed}): put that right and calibrate again; nothing written", file=sys.stderr)
        return 1
    try:
        save_profile(result.profile, out)
    except OSError as err:
        raise UsageError(f"cannot write {out}: {err.strerror}") from None
    print(f"profile written to {out}")
    return 0
