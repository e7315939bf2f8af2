"""``thoughtwave recognize IMAGE [--profile F]``: one photo of the board in, the board as JSON out.

Prints ``{"board_found": true, "cells": {"E5": {"colour": "red", "piece": "ew", "confidence": 0.99}},
"unreadable": [], "ms": 21.7}`` (empty cells left out). Exit 1 when no board is found in the picture (the one line
says why where the picture shows it: a lamp in view, too dark, washed out, blurred, too few markers), 2 when the file
is not a readable image or the profile cannot be used.
"""

from __future__ import annotations

import argparse
import json

from thoughtwave.cli.errors import NotFound, UsageError
from thoughtwave.cli.profiles import reader_profile_for
from thoughtwave.vision.imageio import ImageError, read_image
from thoughtwave.vision.recognizer import Recognizer

#: Why no board was found where the picture shows nothing else (``vision.causes.Lost`` None).
NO_MARKERS = "fewer than two of its corner and edge markers can be seen"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("image", metavar="IMAGE", help="a photo of the board (PNG, JPEG, ...)")
    parser.add_argument("--profile", metavar="F", help="calibration profile (default: the state directory's, if any)")


def run(args: argparse.Namespace) -> int:
    try:   # the picture's size is checked from its header before it is decoded (a bomb costs nothing)
        image = read_image(args.image)
    except ImageError as err:
        raise UsageError(str(err)) from None
    profile = reader_profile_for(args.profile)
    reading = Recognizer(profile).read(image)
    if not reading.board_found:
        why = reading.lost.reason() if reading.lost is not None else None
        raise NotFound(f"no board in {args.image}: {why or NO_MARKERS}")
    print(json.dumps(reading.to_json()))
    return 0
