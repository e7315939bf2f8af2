"""Per-frame CPU time of the reader against another revision's on the same frames: issue 19's time bar ("per-frame
time no more than 1.5x today's", today being the reader the issue was filed with, dfdf69a).

    .venv/bin/python bench/cost_against.py /tmp/pbr7 [--frames 60] [--against dfdf69a] [--runs 6] [--rounds 3]

The other revision's reader is taken from git (``git archive``: nothing in the checkout changes) into a temporary
folder laid out as the installed package is (``thoughtwave.vision`` from ``vision/`` and so on), and each reader runs
in a process of its own, importing only ``Recognizer``: an older reader lacks much of what the bench uses now. Each
frame is read ``--rounds`` times with a fresh recogniser (the first frame of a game) and its best CPU time kept, OpenCV
on one thread; the two readers take turns ``--runs`` times, each frame's lowest time kept, so a burst of other work on
the machine slows both alike and is taken out. The figures are over the frames the other reader found a board in (the
work both readers do: a frame it lost it gives up on in 5-20 ms, where this reader may go on to find and read it) and
over all frames.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from engine import cpu_model  # noqa: E402  (bench/engine.py: the machine line every bench prints)

#: The reader issue 19 was filed with.
FILED = "dfdf69a"
#: The folders that become ``thoughtwave.*`` when installed (pyproject's package-dir), beside ``thoughtwave`` itself.
LAYERS = ("engine", "vision", "calibration", "webui")
#: A rendered frame whose brightest pixel is under this shows nothing (the scene rendered black: seed 41, frame 54, the
#: camera inside the lamp's sphere): it has no visible cell and is not read (``bench/physical_set.py`` too).
BLANK_LEVEL = 16

#: What each reader's process runs: argv = package folder to import first ('' for none), the folder the reader must
#: come from, frames folder, count (0: all), rounds, ``BLANK_LEVEL``.
CHILD = r"""
import json, sys, time
from pathlib import Path
package, home, folder = sys.argv[1], Path(sys.argv[2]).resolve(), Path(sys.argv[3])
count, rounds, blank = int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
if package:
    sys.path.insert(0, package)
import cv2
import thoughtwave.vision.recognizer as module
from thoughtwave.vision.recognizer import Recognizer
where = Path(module.__file__).resolve()
if not where.is_relative_to(home):
    raise SystemExit(f"the reader came from {where}, not from {home}")
cv2.setNumThreads(1)
times, found = {}, {}
for path in sorted(folder.glob("frame-*.png"))[: count or None]:
    frame = cv2.imread(str(path))
    if frame is None or int(frame.max()) < blank:
        continue
    best = []
    for _ in range(rounds):
        recognizer = Recognizer()
        started = time.process_time()
        reading = recognizer.read(frame)
        best.append(time.process_time() - started)
    times[path.stem] = 1e3 * min(best)
    found[path.stem] = bool(reading.board_found)
print(json.dumps({"reader": str(where.parent), "times": times, "found": found}))
"""


def extract(revision: str, into: Path) -> Path:
    """``revision``'s package laid out as installed under ``into`` (``into/thoughtwave/vision`` ...); its folder."""
    listed = subprocess.run(["git", "-C", str(ROOT), "ls-tree", "--name-only", revision], capture_output=True,
                            text=True)
    if listed.returncode != 0:
        raise SystemExit(f"{revision}: not a revision of this checkout ({listed.stderr.strip() or 'git failed'})")
    names = listed.stdout.split()
    wanted = [name for name in ("thoughtwave", *LAYERS) if name in names]
    if "thoughtwave" not in wanted or "vision" not in wanted:
        raise SystemExit(f"{revision}: no thoughtwave/ and vision/ to take the reader from")
    source = into / "source"
    source.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", revision, *wanted], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(source)], input=archive, check=True)
    package = into / "package"
    package.mkdir()
    shutil.move(str(source / "thoughtwave"), str(package / "thoughtwave"))
    for layer in LAYERS:
        if (source / layer).is_dir():
            shutil.move(str(source / layer), str(package / "thoughtwave" / layer))
    return package


def read_times(package: Path | None, folder: Path, count: int | None, rounds: int
               ) -> tuple[dict[str, float], dict[str, bool]]:
    """Each frame's best CPU time (ms) with the reader in ``package`` (None: this checkout's), in a process apart, and
    whether it found the board there."""
    # This checkout's reader is the installed one (``make setup`` installs the checkout editable): it must be this
    # checkout's ``vision/``, not another clone's.
    home = ROOT / "vision" if package is None else package
    run = subprocess.run([sys.executable, "-c", CHILD, str(package or ""), str(home), str(folder), str(count or 0),
                          str(rounds), str(BLANK_LEVEL)], capture_output=True, text=True, cwd=tempfile.gettempdir())
    if run.returncode != 0:
        last = (run.stderr.strip().splitlines() or ["no output"])[-1]
        raise SystemExit(f"reading with {package or 'this checkout'} failed: {last}")
    out = json.loads(run.stdout.strip().splitlines()[-1])
    return out["times"], out["found"]


def lowest(runs: list[dict[str, float]]) -> dict[str, float]:
    """Each frame's lowest time over the runs (the frames every run read)."""
    frames = set.intersection(*(set(r) for r in runs))
    return {name: min(r[name] for r in runs) for name in sorted(frames)}


def figures(this: dict[str, float], other: dict[str, float], found: dict[str, bool]) -> list[str]:
    """The median and mean of each over the frames the other reader found a board in (``found``, by frame) and over
    all, with ratios."""
    lines = []
    read = [name for name in other if found.get(name)]
    for label, names in ((f"the {len(read)} frames it found the board in", read),
                         (f"all {len(other)} frames", list(other))):
        if not names:
            lines.append(f"{label}: none")
            continue
        a, b = [this[n] for n in names], [other[n] for n in names]
        lines.append(f"{label}: median {statistics.median(a):.1f} ms against {statistics.median(b):.1f} "
                     f"({statistics.median(a) / statistics.median(b):.2f}x), mean {statistics.mean(a):.1f} ms against "
                     f"{statistics.mean(b):.1f} ({statistics.mean(a) / statistics.mean(b):.2f}x)")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="a rendered set (bench/physical_set.py render)")
    parser.add_argument("--frames", type=int, default=None, help="the first N frames only")
    parser.add_argument("--against", default=FILED, help=f"the revision to compare with (default {FILED}, the filed "
                                                          "reader)")
    parser.add_argument("--runs", type=int, default=6, help="turns each reader takes (default 6)")
    parser.add_argument("--rounds", type=int, default=3, help="reads of each frame in a run, best kept (default 3)")
    args = parser.parse_args(argv)
    if not sorted(args.folder.glob("frame-*.png")):
        raise SystemExit(f"{args.folder}: no frame-*.png")
    if args.runs < 1 or args.rounds < 1:
        raise SystemExit("--runs and --rounds must be at least 1")
    with tempfile.TemporaryDirectory(prefix="cost-against-") as tmp:
        package = extract(args.against, Path(tmp))
        theirs, ours = [], []
        found: dict[str, bool] = {}         # the other reader's: it reads each frame the same way every run
        for run in range(args.runs):
            # Turn about, so neither reader always runs first after the other's caches.
            for side in ((package, theirs), (None, ours))[:: 1 if run % 2 == 0 else -1]:
                times, boards = read_times(side[0], args.folder, args.frames, args.rounds)
                side[1].append(times)
                if side[0] is not None:
                    found.update(boards)
                print(f"run {run + 1}/{args.runs}: {'this checkout' if side[0] is None else args.against} read "
                      f"{len(times)} frames", file=sys.stderr, flush=True)
    other, this = lowest(theirs), lowest(ours)
    print(f"CPU time a read, this checkout against {args.against}, on {args.folder} "
          f"(best of {args.rounds} reads, lowest of {args.runs} runs each, one thread)")
    for line in figures(this, other, found):
        print(f"- {line}")
    load = ", ".join(f"{v:.1f}" for v in os.getloadavg())
    print(f"{cpu_model()}, {os.cpu_count()} cores, load average {load}, {platform.python_implementation()} "
          f"{platform.python_version()}; command: bench/cost_against.py {args.folder}"
          f"{'' if args.frames is None else f' --frames {args.frames}'} --against {args.against} "
          f"--runs {args.runs} --rounds {args.rounds}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
