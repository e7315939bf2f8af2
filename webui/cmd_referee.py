"""``thoughtwave referee --moves FILE|-``: typed moves in, one JSON line per attempt, then a summary."""

from __future__ import annotations

import argparse
import json
import sys

from engine import Referee
from webui.errors import UsageError
from webui.rulesargs import add_rules_arguments, read_moves, rules_from_args


def add_arguments(parser: argparse.ArgumentParser) -> None:
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--moves", metavar="FILE", help="moves file or game record, '-' for standard input")
    add_rules_arguments(parser)


def emit(obj: dict) -> None:
    """Print one JSON line and flush, so a pipe sees each verdict as it is decided."""
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def run(args: argparse.Namespace) -> int:
    if args.moves is None:
        raise UsageError("give --moves FILE")
    lines, headers = read_moves(args.moves)
    referee = Referee(rules_from_args(args, headers))
    for line in lines:
        emit(referee.play(line).to_json())
    emit({"result": referee.result, "moves": len(referee.verdicts)})
    return 0
