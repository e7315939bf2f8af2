"""The rule flags shared by every command that referees: penalty, sides, first player, handicap."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from thoughtwave.cli.errors import UsageError
from thoughtwave.engine import ALL_SIDES, Colour, NotationError, Penalty, Rules, Sides
from thoughtwave.engine.record import parse_inventory, read_headers, rules_from_headers


def sides_argument(text: str) -> Sides:
    """``--red-sides`` as argparse's ``type``: the engine's notation, a one-line message otherwise."""
    try:
        return Sides.parse(text)
    except NotationError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def add_rules_arguments(parser: argparse.ArgumentParser) -> None:
    """``--illegal-penalty``, ``--red-sides``, ``--first``, ``--red-pieces``, ``--black-pieces``."""
    group = parser.add_argument_group("rules (default: as the record's headers say, else the standard game)")
    group.add_argument("--illegal-penalty", choices=[p.value for p in Penalty],
                       help="what an illegal placement costs (default skip-turn)")
    group.add_argument("--red-sides", choices=ALL_SIDES, type=sides_argument,
                       help=f"the sides Red joins (default {Sides.WE}: {Sides.WE.names})")
    group.add_argument("--first", choices=[c.value for c in Colour], type=str.lower,
                       help=f"who moves first (default {Colour.RED.value})")
    group.add_argument("--red-pieces", metavar="KIND=N ...",
                       help="Red's starting pieces for a handicap game, e.g. 'cross=1 bend=9'")
    group.add_argument("--black-pieces", metavar="KIND=N ...", help="Black's starting pieces")


def rules_from_args(args: argparse.Namespace, headers: dict[str, str] | None = None) -> Rules:
    """Rules from the flags, falling back to record headers, then to the defaults."""
    try:
        base = rules_from_headers(headers or {})
        inventory = {c: dict(base.inventory[c]) for c in Colour}
        if args.red_pieces:
            inventory[Colour.RED] = parse_inventory(args.red_pieces)
        if args.black_pieces:
            inventory[Colour.BLACK] = parse_inventory(args.black_pieces)
        return Rules(
            penalty=Penalty(args.illegal_penalty) if args.illegal_penalty else base.penalty,
            red_sides=args.red_sides or base.red_sides,
            first=Colour.parse(args.first) if args.first else base.first,
            inventory=inventory,
        )
    except ValueError as err:
        raise UsageError(str(err)) from None


def read_text(path: str) -> str:
    """The text of ``path`` (``-`` is standard input); a UsageError when it cannot be read."""
    if path == "-":
        try:
            text = sys.stdin.read()
            text.encode("utf-8")   # under a C locale, bytes that are not UTF-8 arrive as surrogate escapes
        except UnicodeError:
            raise UsageError("cannot read standard input: it is not UTF-8 text") from None
        return text
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        reason = getattr(err, "strerror", None) or str(err)
        raise UsageError(f"cannot read {path}: {reason}") from None


def read_moves(path: str) -> tuple[list[str], dict[str, str]]:
    """Move lines of a moves file or record (blank lines and comments dropped) and its headers."""
    text = read_text(path)
    lines = [line for line in text.splitlines() if line.split("#", 1)[0].strip()]
    return lines, read_headers(text)
