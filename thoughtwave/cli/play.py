"""``thoughtwave play``: two people at one terminal. The board is drawn like the network server's
diagram; every verdict is explained (in the terminal's language, or ``--lang``); the record is saved after each
move when ``--record`` is given. The moves typed and the record stay in the notation, whatever the language."""

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
from thoughtwave.engine import Cell, Colour, GameRecord, NotationError, Outcome, Penalty, Referee, Verdict
from thoughtwave.engine.ai import Computer, chooser
from thoughtwave.i18n import LANGUAGES, Text, terminal_language
from thoughtwave.i18n.phrases import colour_name, say, side_names


def help_lines(t: Text) -> list[str]:
    """How to type a move, and the other commands."""
    return t.gettext("Type a move as PIECE@CELL, the piece by its arms n, e, s, w (X: the cross):\n"
                     "ew@E5 lays a straight west-east on E5; nes@B2 a junction open north, east, south\n"
                     "Other commands: legal CELL (what fits there), undo, help, quit.").splitlines()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--record", metavar="FILE", help="save the game record here after every move")
    parser.add_argument("--red", default="", metavar="NAME", help="Red player's name")
    parser.add_argument("--black", default="", metavar="NAME", help="Black player's name")
    parser.add_argument("--vs", choices=["human", "computer"], default="human", help="the opponent (default human)")
    parser.add_argument("--computer", choices=[c.value for c in Colour], default=Colour.BLACK.value,
                        help="the computer's colour")
    parser.add_argument("--level", type=int, choices=[1, 2, 3], default=3, help="the computer's strength (default 3)")
    parser.add_argument("--seconds", type=float, default=1.0, help="the computer's thinking time per move")
    parser.add_argument("--lang", choices=LANGUAGES, default=None,
                        help="the language of the explanations (default: the terminal's locale, else en)")
    add_rules_arguments(parser)


def explain(verdict: Verdict, referee: Referee, t: Text | None = None) -> str:
    """The verdict in a sentence or two for the players at the table, in ``t``'s language (default English)."""
    t = t or Text()
    reason = say(t, verdict.why) if verdict.why is not None else verdict.reason
    if verdict.outcome is Outcome.REJECTED:
        return t.gettext("Not a move: %(reason)s. Nothing changed.", reason=reason)
    parts = []
    if verdict.outcome is Outcome.ILLEGAL:
        assert verdict.colour and verdict.piece
        colour = colour_name(t, verdict.colour)
        penalty = referee.rules.penalty
        if penalty is Penalty.FORFEIT:
            parts.append(t.gettext("Illegal: %(reason)s; the piece is out of the game.", reason=reason))
        elif penalty is Penalty.RETRY:
            parts.append(t.gettext("Illegal: %(reason)s; take it back; %(colour)s tries again.", reason=reason,
                                   colour=colour))
        else:
            parts.append(t.gettext("Illegal: %(reason)s; the piece is out of the game and %(colour)s misses a turn.",
                                   reason=reason, colour=colour))
    else:
        parts.append(t.gettext("%(colour)s laid %(move)s.", move=verdict.move,
                               colour=colour_name(t, verdict.colour) if verdict.colour else ""))
    for colour in verdict.passed:
        parts.append(t.gettext("%(colour)s cannot place anything and passes.", colour=colour_name(t, colour)))
    if verdict.winner:
        parts.append(t.gettext("%(colour)s has joined %(sides)s and wins!", colour=colour_name(t, verdict.winner),
                               sides=side_names(t, referee.rules.sides_of(verdict.winner))))
    elif verdict.draw:
        parts.append(t.gettext("Neither player can place a piece: the game is drawn."))
    return " ".join(parts)


class Screen:
    """Where the game is shown: on a terminal the screen is redrawn for each move (board, verdict and prompt
    on 80x24), in colour unless NO_COLOR is set; otherwise each move's board and verdict are printed in turn."""

    def __init__(self, stream: TextIO, t: Text | None = None) -> None:
        self.stream = stream
        self.t = t or Text()
        self.redraw = stream.isatty()
        self.colour = self.redraw and os.environ.get("NO_COLOR") is None
        self.unicode = (getattr(stream, "encoding", "") or "").lower().replace("-", "") == "utf8"

    def show(self, referee: Referee, message: list[str]) -> None:
        """The board, then ``message`` (sentences), leaving the cursor where the prompt goes."""
        lines = screen_lines(referee, self.colour, self.unicode, self.t)
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
    t = Text(getattr(args, "lang", None) or terminal_language())
    screen = Screen(sys.stdout, t)
    record_path = Path(args.record) if args.record else None
    today = datetime.date.today().isoformat()
    message = help_lines(t)
    shown = False      # whether the message has been on screen (a computer's moves in a row add up)
    while True:
        if referee.over:
            message.append(t.gettext("Game over: draw.") if referee.winner is None
                           else t.gettext("Game over: %(colour)s wins.", colour=colour_name(t, referee.winner)))
            screen.show(referee, message)
            return 0
        assert referee.to_move is not None
        mover = colour_name(t, referee.to_move)
        said: list[str] = []
        if choose is not None and (computer := choose(referee)):
            line = computer
            said = [] if shown else message
            said.append(t.gettext("%(colour)s (computer) plays %(move)s.", colour=mover, move=line))
        else:
            screen.show(referee, message)
            shown = True
            try:
                line = input(t.gettext("%(colour)s to move> ", colour=mover)).strip()
                line.encode("utf-8")   # bytes that are not UTF-8 arrive as surrogate escapes
            except EOFError:
                print()
                return 0
            except UnicodeError:
                message = [t.gettext("That line is not readable text; type a move like ew@E5.")]
                continue
        if not line:
            continue
        word = line.split()[0].lower()
        if word in ("quit", "exit", "q"):
            return 0
        if word in ("help", "?"):
            message = help_lines(t)
            continue
        if word == "undo":
            undone = referee.undo()
            message = [t.gettext("Took back %(move)s.", move=undone.move) if undone
                       else t.gettext("Nothing to take back.")]
        elif word == "legal":
            asked = line.split(maxsplit=1)[1] if " " in line else ""
            try:
                cell = Cell.parse(asked)
            except NotationError as err:
                message = [str(err) if t.lang == "en"
                           else t.gettext("“%(text)s” is not a cell: name one from A1 to J10", text=asked)]
                continue
            fits = ", ".join(str(p) for p in referee.legal_pieces(cell)) or t.gettext("nothing you have")
            message = [t.gettext("On %(cell)s %(colour)s may lay: %(pieces)s", cell=str(cell), colour=mover,
                                 pieces=fits)]
            continue
        else:
            message = [*said, explain(referee.play(line), referee, t)]
            shown = False
        if record_path:
            text = GameRecord.from_referee(referee, args.red, args.black, today).to_text()
            try:
                tmp = record_path.with_name(record_path.name + ".tmp")
                tmp.write_text(text, encoding="utf-8")
                tmp.replace(record_path)
            except OSError as err:
                raise UsageError(f"cannot write {record_path}: {err.strerror}") from None
