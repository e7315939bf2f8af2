"""``thoughtwave play``: two people at one terminal. The board is drawn like the network server's
diagram; every verdict is explained; the record is saved after each move when ``--record`` is given."""

from __future__ import annotations

import argparse
import datetime
import os
import sys
from collections.abc import Callable
from pathlib import Path

from thoughtwave.cli.errors import UsageError
from thoughtwave.cli.rulesargs import add_rules_arguments, rules_from_args
from thoughtwave.engine import KINDS, Cell, Colour, GameRecord, NotationError, Outcome, Referee
from thoughtwave.engine.ai import Computer, chooser
from thoughtwave.engine.textboard import draw

HELP = """Type a move as PIECE@CELL: the piece by its arms n, e, s, w (or X for the cross), e.g.
  ew@E5   a straight lying west-east on E5      nes@B2   a junction open to the north, east, south
Other commands: legal CELL (what fits there), undo, help, quit."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--record", metavar="FILE", help="save the game record here after every move")
    parser.add_argument("--red", default="", metavar="NAME", help="Red player's name")
    parser.add_argument("--black", default="", metavar="NAME", help="Black player's name")
    parser.add_argument("--vs", choices=["human", "computer"], default="human", help="the opponent (default human)")
    parser.add_argument("--computer", choices=[c.value for c in Colour], default=Colour.BLACK.value,
                        help="the computer's colour")
    parser.add_argument("--level", type=int, choices=[1, 2, 3], default=3, help="the computer's strength (default 3)")
    parser.add_argument("--seconds", type=float, default=1.0, help="the computer's thinking time per move")
    add_rules_arguments(parser)


def describe(referee: Referee, ansi: bool) -> str:
    """Board, inventories and whose turn it is."""
    colours = {}
    for verdict in referee.verdicts:
        if verdict.outcome is Outcome.LEGAL and verdict.cell and verdict.colour:
            colours[verdict.cell] = verdict.colour
    lines = [draw(referee.board, colours, ansi), ""]
    for colour in Colour:
        counts = ", ".join(f"{referee.inventory[colour][k]} {k.value}" for k in KINDS)
        lines.append(f"{colour.title:>5} ({referee.rules.side_names(colour)}): {counts}")
    return "\n".join(lines)


def explain(verdict, referee: Referee) -> str:
    """The verdict in a sentence or two for the players at the table."""
    if verdict.outcome is Outcome.REJECTED:
        return f"Not a move: {verdict.reason}. Nothing changed."
    parts = []
    if verdict.outcome is Outcome.ILLEGAL:
        assert verdict.colour and verdict.piece
        penalty = referee.rules.penalty.value
        consequence = {
            "skip-turn": f"the piece is out of the game and {verdict.colour.title} misses a turn",
            "forfeit": "the piece is out of the game",
            "retry": f"take it back; {verdict.colour.title} tries again",
        }[penalty]
        parts.append(f"Illegal: {verdict.reason}; {consequence}.")
    else:
        parts.append(f"{verdict.colour.title if verdict.colour else ''} laid {verdict.move}.")
    for colour in verdict.passed:
        parts.append(f"{colour.title} cannot place anything and passes.")
    if verdict.winner:
        parts.append(f"{verdict.winner.title} has joined {referee.rules.side_names(verdict.winner)}"
                     f" and wins!")
    elif verdict.draw:
        parts.append("Neither player can place a piece: the game is drawn.")
    return " ".join(parts)


def run(args: argparse.Namespace, choose: Callable[[Referee], str] | None = None) -> int:
    """Play until the game ends or input ends. ``choose`` answers for a computer side."""
    if choose is None and getattr(args, "vs", "human") == "computer":
        choose = chooser(Colour.parse(args.computer), Computer(level=args.level, seconds=args.seconds))
    referee = Referee(rules_from_args(args))
    ansi = sys.stdout.isatty() and os.environ.get("NO_COLOR") is None
    record_path = Path(args.record) if args.record else None
    today = datetime.date.today().isoformat()
    print(HELP)
    while True:
        print()
        print(describe(referee, ansi))
        if referee.over:
            print("Game over:", "draw" if referee.draw else f"{referee.winner.title} wins.")
            return 0
        assert referee.to_move is not None
        if choose is not None and (computer := choose(referee)):
            line = computer
            print(f"{referee.to_move.title} (computer) plays {line}")
        else:
            try:
                line = input(f"{referee.to_move.title} to move> ").strip()
                line.encode("utf-8")   # bytes that are not UTF-8 arrive as surrogate escapes
            except EOFError:
                print()
                return 0
            except UnicodeError:
                print("That line is not readable text; type a move like ew@E5.")
                continue
        if not line:
            continue
        word = line.split()[0].lower()
        if word in ("quit", "exit", "q"):
            return 0
        if word in ("help", "?"):
            print(HELP)
            continue
        if word == "undo":
            undone = referee.undo()
            print(f"Took back {undone.move}." if undone else "Nothing to take back.")
        elif word == "legal":
            try:
                cell = Cell.parse(line.split(maxsplit=1)[1] if " " in line else "")
            except NotationError as err:
                print(err)
                continue
            fits = ", ".join(str(p) for p in referee.legal_pieces(cell)) or "nothing you have"
            print(f"On {cell} {referee.to_move.title} may lay: {fits}")
            continue
        else:
            print(explain(referee.play(line), referee))
        if record_path:
            text = GameRecord.from_referee(referee, args.red, args.black, today).to_text()
            try:
                tmp = record_path.with_name(record_path.name + ".tmp")
                tmp.write_text(text, encoding="utf-8")
                tmp.replace(record_path)
            except OSError as err:
                raise UsageError(f"cannot write {record_path}: {err.strerror}") from None
