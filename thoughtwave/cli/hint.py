"""``thoughtwave hint --moves FILE [--seconds S] [--level N]``: the computer's move for the side to move.

Prints ``{"move": "nes@B2", "score": 0.73, "colour": "red"}``. ``score`` is the search's
evaluation squashed into [0, 1] for the mover (0.5 an even race, 1.0 a forced win, 0.0 a forced
loss; see ``engine.ai.win_estimate``), not a measured probability. Exit 1 when the game is over.
"""

from __future__ import annotations

import argparse
import json

from thoughtwave.cli.errors import NotFound, UsageError
from thoughtwave.cli.rulesargs import add_rules_arguments, read_moves, rules_from_args
from thoughtwave.engine import Referee
from thoughtwave.engine.ai import Computer


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--moves", metavar="FILE", required=True,
                        help="the game so far (moves file or record), '-' for standard input")
    parser.add_argument("--seconds", type=float, default=1.0, metavar="S",
                        help="thinking time (default 1; the answer may come a little later)")
    parser.add_argument("--level", type=int, choices=[1, 2, 3], default=3,
                        help="1 the evaluation alone, 2 checks 3 moves against the replies, 3 checks 6 (default)")
    parser.add_argument("--seed", type=int, default=None, help="repeatable choice between equal moves")
    add_rules_arguments(parser)


def run(args: argparse.Namespace) -> int:
    if not 0 < args.seconds <= 3600:
        raise UsageError(f"--seconds must be more than 0 and at most 3600, not {args.seconds:g}")
    lines, headers = read_moves(args.moves)
    referee = Referee(rules_from_args(args, headers))
    for line in lines:
        referee.play(line)
    if referee.over:
        raise NotFound(f"no move: the game is over ({referee.result})")
    choice = Computer(level=args.level, seconds=args.seconds, seed=args.seed).search(referee)
    if choice is None:
        raise NotFound("no move: the side to move has no legal placement")
    print(json.dumps(choice.to_json()))
    return 0
