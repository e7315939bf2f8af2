"""The rule flags shared by every command that referees: penalty, sides, first player, handicap."""

from __future__ import annotations

import argparse
import itertools
import sys
from collections.abc import Iterator
from typing import Any

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


#: The longest line a moves file may hold, in bytes: a move is a dozen characters, a header a few dozen.
MAX_LINE_BYTES = 4096
#: The most moves (lines that are not blank or comments) a moves file may hold: a game has at most 81
#: placements, a long one with illegal attempts and scripted pauses a few hundred lines.
MAX_MOVES = 10_000


def _lines(path: str) -> Iterator[tuple[int, str]]:
    """(line number, text) of each line of ``path`` (``-`` is standard input), one line in memory at a time;
    a UsageError (one line, naming the line) for a line longer than MAX_LINE_BYTES, text that is not
    UTF-8, or a file that cannot be read."""
    name = "standard input" if path == "-" else path
    try:
        stream: Any = getattr(sys.stdin, "buffer", sys.stdin) if path == "-" else open(path, "rb")  # noqa: SIM115
    except OSError as err:
        raise UsageError(f"cannot read {path}: {err.strerror or err}") from None
    try:
        for number in itertools.count(1):
            raw = stream.readline(MAX_LINE_BYTES + 1)   # never more than the limit in memory, even on /dev/zero
            if not raw:
                return
            if len(raw) > MAX_LINE_BYTES and raw[-1:] not in (b"\n", "\n"):
                raise UsageError(f"cannot read {name}: line {number} is longer than {MAX_LINE_BYTES} bytes")
            try:
                text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
                text.encode("utf-8")    # a text stdin under a C locale carries bad bytes as surrogate escapes
            except UnicodeError:
                where = "it" if path == "-" else f"line {number}"
                raise UsageError(f"cannot read {name}: {where} is not UTF-8 text") from None
            for part in text.splitlines() or [""]:
                yield number, part
    except OSError as err:
        raise UsageError(f"cannot read {name}: {err.strerror or err}") from None
    finally:
        if stream is not sys.stdin and stream is not getattr(sys.stdin, "buffer", None):
            stream.close()


def read_moves(path: str) -> tuple[Iterator[str], dict[str, str]]:
    """The headers of a moves file or record (its ``# Key: value`` lines before the first move) and an
    iterator over its move lines (blank lines and comments dropped), read as they are used: memory stays
    the same for any file. Reading goes wrong as a UsageError (one line): an unreadable file, a line over
    MAX_LINE_BYTES, text that is not UTF-8, more than MAX_MOVES moves."""
    lines = _lines(path)
    head: list[str] = []
    first: str | None = None
    for _, line in lines:
        if line.split("#", 1)[0].strip():
            first = line
            break
        head.append(line)
        if len(head) > MAX_MOVES:
            raise UsageError(f"cannot read {path}: more than {MAX_MOVES} lines before the first move")
    headers = read_headers("\n".join(head))

    def moves() -> Iterator[str]:
        if first is None:
            return
        yield first
        count = 1
        for number, line in lines:
            if line.split("#", 1)[0].strip():
                count += 1
                if count > MAX_MOVES:
                    raise UsageError(f"cannot read {path}: line {number} is move {count}; "
                                     f"a game has at most {MAX_MOVES}")
                yield line

    return moves(), headers
