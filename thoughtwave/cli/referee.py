"""``thoughtwave referee --moves FILE|-``: typed moves in, one JSON line per attempt, then a summary.

``thoughtwave referee --frames DIR|VIDEO [--fps N] [--profile F]``: camera frames in, the same lines
out (each with its ``frame`` index) plus observation events (board found/lost/moved, hand, flags).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from thoughtwave.cli.errors import NotFound, UsageError
from thoughtwave.cli.rulesargs import add_rules_arguments, read_moves, rules_from_args
from thoughtwave.engine import Referee


def add_arguments(parser: argparse.ArgumentParser) -> None:
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--moves", metavar="FILE", help="moves file or game record, '-' for standard input")
    source.add_argument("--frames", metavar="DIR|VIDEO", help="a directory of images (sorted by name) or a video file")
    parser.add_argument("--fps", type=float, metavar="N",
                        help="frames per second of --frames (default: 10 for a directory, the video's own rate)")
    parser.add_argument("--profile", metavar="F", help="calibration profile (default: the state directory's, if any)")
    add_rules_arguments(parser)


def emit(obj: dict) -> None:
    """Print one JSON line and flush, so a pipe sees each verdict as it is decided."""
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def run(args: argparse.Namespace) -> int:
    if getattr(args, "frames", None) is not None:
        return run_frames(args)
    if args.moves is None:
        raise UsageError("give --moves FILE")
    lines, headers = read_moves(args.moves)
    referee = Referee(rules_from_args(args, headers))
    for line in lines:
        emit(referee.play(line).to_json())
    emit({"result": referee.result, "moves": len(referee.verdicts)})
    return 0


def run_frames(args: argparse.Namespace) -> int:
    """``--frames``: every frame through one Watcher; verdicts and observations as they happen."""
    # Here, not at the top: `referee --moves` needs only the engine and should not pay for OpenCV.
    from thoughtwave.cli.profiles import reader_profile_for
    from thoughtwave.vision.events import SourceWarning, to_json
    from thoughtwave.vision.sources import CameraError, ImageDirSource, VideoSource
    from thoughtwave.vision.watch import Watcher

    if args.fps is not None and args.fps <= 0:
        raise UsageError(f"--fps must be positive, not {args.fps:g}")
    path = Path(args.frames)
    try:
        if path.is_dir():
            source = ImageDirSource(path, args.fps or 10.0)
        elif path.is_file():
            source = VideoSource(path, args.fps)
        else:
            raise UsageError(f"cannot read {args.frames}: no such directory or video file")
    except CameraError as err:
        raise UsageError(str(err)) from None
    try:
        profile = reader_profile_for(args.profile)
    except UsageError:
        source.close()
        raise
    watcher = Watcher(rules_from_args(args), profile=profile, keep_overlay=False)
    try:
        # Only a directory of pictures has undecodable files to warn about (a video skips nothing).
        warnings = source.take_warnings if isinstance(source, ImageDirSource) else list
        while (frame := source.read()) is not None:
            for index, warning in warnings():
                emit(to_json(SourceWarning(warning, index)))
            for event in watcher.feed(frame):
                emit(to_json(event))
        for index, warning in warnings():
            emit(to_json(SourceWarning(warning, index)))
    finally:
        source.close()
    emit(watcher.summary())
    if watcher.frames and not watcher.frames_with_board:
        raise NotFound(f"no board in any of the {watcher.frames} frames of {args.frames}")
    return 0
