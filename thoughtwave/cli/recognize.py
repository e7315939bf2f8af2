"""``thoughtwave recognize IMAGE [--profile F]``: one photo of the board in, the board as JSON out.

Prints ``{"board_found": true, "cells": {"E5": {"colour": "red", "piece": "ew", "confidence": 0.99}},
"unreadable": [], "ms": 21.7}`` (empty cells left out). Exit 1 when no board is found in the picture,
2 when the file is not a readable image or the profile cannot be used.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2
import numpy as np

from thoughtwave.cli.errors import NotFound, UsageError
from thoughtwave.cli.profiles import reader_profile_for
from thoughtwave.vision.recognizer import Recognizer

#: Larger files are refused before decoding (a 12 MP JPEG is ~10 MB; a decoded bomb is the risk).
MAX_IMAGE_BYTES = 64 * 1024 * 1024


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("image", metavar="IMAGE", help="a photo of the board (PNG, JPEG, ...)")
    parser.add_argument("--profile", metavar="F", help="calibration profile (default: the state directory's, if any)")


def run(args: argparse.Namespace) -> int:
    path = Path(args.image)
    try:
        size = path.stat().st_size
        if not path.is_file():
            raise UsageError(f"cannot read {args.image}: not a file")
        if size > MAX_IMAGE_BYTES:
            raise UsageError(f"cannot read {args.image}: larger than {MAX_IMAGE_BYTES // 2**20} MB")
        data = np.fromfile(path, dtype=np.uint8)
    except OSError as err:
        raise UsageError(f"cannot read {args.image}: {err.strerror}") from None
    image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if image is None:
        raise UsageError(f"cannot read {args.image}: not an image OpenCV can decode")
    profile = reader_profile_for(args.profile)
    reading = Recognizer(profile).read(image)
    if not reading.board_found:
        raise NotFound(f"no board in {args.image}: fewer than two of its corner and edge markers can be seen")
    print(json.dumps(reading.to_json()))
    return 0
