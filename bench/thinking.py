"""Keep the computer thinking, as the companion's worker does in a game against it, for a fps figure.

    .venv/bin/python bench/thinking.py --seconds 70 --workers 2 &
    .venv/bin/python bench/serve.py --seconds 60 --resolution 640x480

or both in one command, fps without then with the computer thinking:
``bench/serve.py --seconds 45 --resolution 640x480 --thinking --move-seconds 4``.

Searches a middle-game position again and again (``--move-seconds`` each) in one process, with the
search's own ``--workers`` processes, until ``--seconds`` have passed; prints the searches done.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from thoughtwave.engine import Referee  # noqa: E402
from thoughtwave.engine.ai import Computer, greedy_move  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=70.0)
    parser.add_argument("--move-seconds", type=float, default=4.0)
    parser.add_argument("--workers", type=int, default=None, help="the search's processes (default: its own)")
    args = parser.parse_args(argv)
    referee = Referee()
    rng = random.Random(3)
    for _ in range(14):
        referee.attempt(greedy_move(referee, rng))
    computer = Computer(seconds=args.move_seconds, seed=1, workers=args.workers)
    end = time.monotonic() + args.seconds
    searches = 0
    while time.monotonic() < end:
        computer.search(referee)
        searches += 1
    print(f"{searches} searches of {args.move_seconds:g} s with {computer.workers} search process(es)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
