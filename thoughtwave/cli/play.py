"""``thoughtwave play``: two people at one terminal. The board is drawn like the network server's
diagram; every verdict is explained; the record is saved after each move when ``--record`` is given."""

from __future__ import annotations

import argparse
import datetime
import os
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from thoughtwave.cli.errors import UsageError
from thoughtwave.cli.rulesargs import add_rules_arguments, rules_from_args
from thoughtwave.cli.screen import CLEAR, MESSAGE_LINES, WIDTH, screen_lines
from thoughtwave.engine import Cell, Colour, GameRecord, NotationError, Outcome, Referee
from thoughtwave.engine.ai import Computer, chooser

HELP = """Type a move as PIECE@CELL, the piece by its arms n, e, s, w (X: the cross):
ew@E5 lays a straight west-east on E5; nes@B2 a junction open north, east, south
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


class Screen:
    """Where the game is shown: on a terminal the screen is redrawn for each move (board, verdict and prompt
    on 80x24), in colour unless NO_COLOR is set; otherwise each move's board and verdict are printed in turn."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.redraw = stream.isatty()
        self.colour = self.redraw and os.environ.get("NO_COLOR") is None
        self.unicode = (getattr(stream, "encoding", "") or "").lower().replace("-", "") == "utf8"

    def show(self, referee: Referee, message: list[str]) -> None:
        """The board, then ``message`` (sentences), leaving the cursor where the prompt goes."""
        lines = screen_lines(referee, self.colour, self.unicode)
        said = [wrapped for text in message for wrapped in (textwrap.wrap(text, WIDTH - 1) or [""])] \
            if self.redraw else list(message)
        if self.redraw:     # the latest lines, so the board stays on screen
            said = said[-MESSAGE_LINES:] + [""] * (MESSAGE_LINES - len(said))
        head = CLEAR if self.redraw else "\n"
        self.stream.write(head + "\n".join(lines + said) + "\n")
        self.stream.flush()


def run(args: argparse.Namespace, choose: Callable[[Referee], str] | None = None) -> int:
    """Play until the game ends or input ends. ``choose`` answers for a computer side."""
    if choose is None and getattr(args, "vs", "human") == "computer":
        choose = chooser(Colour.parse(args.computer), Computer(level=args.level, seconds=args.seconds))
    referee = Referee(rules_from_args(args))
    screen = Screen(sys.stdout)
    record_path = Path(args.record) if args.record else None
    today = datetime.date.today().isoformat()
    message = HELP.splitlines()
    shown = False      # whether the message has been on screen (a computer's moves in a row add up)
    while True:
        if referee.over:
            message.append("Game over: " + ("draw." if referee.draw else f"{referee.winner.title} wins."))
            screen.show(referee, message)
            return 0
        assert referee.to_move is not None
        said: list[str] = []
        if choose is not None and (computer := choose(referee)):
            line = computer
            said = [] if shown else message
            said.append(f"{referee.to_move.title} (computer) plays {line}.")
        else:
            screen.show(referee, message)
            shown = True
            try:
                line = input(f"{referee.to_move.title} to move> ").strip()
                line.encode("utf-8")   # bytes that are not UTF-8 arrive as surrogate escapes
            except EOFError:
                print()
                return 0
            except UnicodeError:
                message = ["That line is not readable text; type a move like ew@E5."]
                continue
        if not line:
            continue
        word = line.split()[0].lower()
        if word in ("quit", "exit", "q"):
            return 0
        if word in ("help", "?"):
            message = HELP.splitlines()
            continue
        if word == "undo":
            undone = referee.undo()
            message = [f"Took back {undone.move}." if undone else "Nothing to take back."]
        elif word == "legal":
            try:
                cell = Cell.parse(line.split(maxsplit=1)[1] if " " in line else "")
            except NotationError as err:
                message = [str(err)]
                continue
            fits = ", ".join(str(p) for p in referee.legal_pieces(cell)) or "nothing you have"
            message = [f"On {cell} {referee.to_move.title} may lay: {fits}"]
            continue
        else:
            message = [*said, explain(referee.play(line), referee)]
            shown = False
        if record_path:
            text = GameRecord.from_referee(referee, args.red, args.black, today).to_text()
            try:
                tmp = record_path.with_name(record_path.name + ".tmp")
                tmp.write_text(text, encoding="utf-8")
                tmp.replace(record_path)
            except OSError as err:
                raise UsageError(f"cannot write {record_path}: {err.strerror}") from None
