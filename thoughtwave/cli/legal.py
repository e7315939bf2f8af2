"""``thoughtwave legal --moves FILE --at CELL``: the pieces the side to move may lay on CELL."""

from __future__ import annotations

import argparse
import json

from thoughtwave.cli.errors import UsageError
from thoughtwave.cli.rulesargs import add_rules_arguments, read_moves, rules_from_args
from thoughtwave.engine import Cell, NotationError, Referee


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--moves", metavar="FILE", required=True,
                        help="the game so far (moves file or record), '-' for standard input")
    parser.add_argument("--at", metavar="CELL", required=True, help="the cell to ask about, e.g. A3")
    add_rules_arguments(parser)


def run(args: argparse.Namespace) -> int:
    try:
        cell = Cell.parse(args.at)
    except NotationError as err:
        raise UsageError(str(err)) from None
    lines, headers = read_moves(args.moves)
    referee = Referee(rules_from_args(args, headers))
    for line in lines:
        referee.play(line)
    colour = referee.to_move
    pieces = sorted(str(p) for p in referee.legal_pieces(cell)) if colour else []
    print(json.dumps({"cell": str(cell), "colour": colour.value if colour else None, "pieces": pieces}))
    return 0
