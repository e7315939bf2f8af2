"""Frames of a shaken camera on the fast synthetic camera: how many cells are read right, left unreadable, and read
as what they are not, when the whole frame is smeared 3-9 px along a random direction.

    .venv/bin/python bench/shaken.py [--frames 120] [--seed 11] [--level medium] [--blur smooth]

Each frame draws its own scene (``Scene.random`` at 960x720, no hand), blur length and angle from ``--seed``; a
fresh reader reads it, as the first frame of a game would be read. The blur is a smooth line, as a real shake's
(``Optics.motion_smooth``); ``--blur drawn`` draws it in whole pixels, as every sweep before the twenty-second
session did. The confidently wrong cells are listed with the scene seed, blur and cell, so a case can be rendered
again.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from engine import cpu_model  # noqa: E402  (bench/engine.py: the machine line every bench prints)
from thoughtwave.engine.cells import CELLS  # noqa: E402
from thoughtwave.synth import Scene, render  # noqa: E402
from thoughtwave.synth.camera import Optics  # noqa: E402
from thoughtwave.vision.reading import CellState  # noqa: E402
from thoughtwave.vision.recognizer import Recognizer  # noqa: E402

#: The smear's length range, px (under 3 px the markers and tiles read as if sharp).
LENGTHS = (3.0, 9.0)


def shaken_tally(frames: int, seed: int, level: str = "medium", smooth: bool = True) -> tuple[list[int], list[str]]:
    """[right, unreadable, wrong] over the cells of ``frames`` shaken frames (a lost board counts every cell
    unreadable), and the wrong cells as "scene seed, blur, cell: read X, is Y"; ``smooth``: the shake's line spread
    smoothly, else drawn in whole pixels."""
    rng = np.random.default_rng(seed)
    tally, wrong = [0, 0, 0], []
    for _ in range(frames):
        scene_seed = int(rng.integers(1, 100_000))
        length, angle = float(rng.uniform(*LENGTHS)), float(rng.uniform(0, 180))
        scene = Scene.random(scene_seed, level=level, hand=False, resolution=(960, 720))
        frame, truth = render(replace(scene, optics=Optics(motion_px=length, motion_angle_deg=angle,
                                                           motion_smooth=smooth)))
        reading = Recognizer().read(frame)
        expected = truth.board_state()
        for cell in CELLS:
            got = reading.get(cell) if reading.board_found else None
            if got is None or got.state is CellState.UNREADABLE:
                tally[1] += 1
            elif got.label() == expected.get(str(cell), "empty"):
                tally[0] += 1
            else:
                tally[2] += 1
                wrong.append(f"scene {scene_seed}, {length:.2f} px at {angle:.1f} deg, {cell}: read {got.label()}, "
                             f"is {expected.get(str(cell), 'empty')} ({got.confidence:.2f})")
    return tally, wrong


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--frames", type=int, default=120)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--level", default="medium", choices=("mild", "medium", "hard"))
    parser.add_argument("--blur", default="smooth", choices=("smooth", "drawn"))
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    (right, unreadable, wrong), examples = shaken_tally(args.frames, args.seed, args.level, args.blur == "smooth")
    cells = right + unreadable + wrong
    print(f"Shaken frames ({args.frames}, seed {args.seed}, {args.level}, {LENGTHS[0]:.0f}-{LENGTHS[1]:.0f} px "
          f"{args.blur}): "
          f"{cells} cells, right {100 * right / cells:.2f}%, unreadable {100 * unreadable / cells:.2f}%, "
          f"confidently wrong {wrong}")
    print(f"{cpu_model()}, {os.cpu_count()} cores, CPython {platform.python_version()}, OpenCV {cv2.__version__}; "
          f"command: bench/shaken.py --frames {args.frames} --seed {args.seed} --level {args.level} --blur {args.blur}")
    for line in examples:
        print(f"- {line}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
