"""Game records: a plain text file that is also a valid ``thoughtwave referee --moves`` input.

Headers are ``# Key: value`` comment lines; each attempt is a move line in canonical notation with
its verdict in a trailing comment::

    # Thoughtwave game record
    # Red: Ann
    # Black: Bob
    # Red-Sides: WE
    # First: red
    # Penalty: skip-turn
    # Date: 2026-11-21
    # Result: red
    red ew@E5  # legal
    black ns@E6  # illegal: blank north edge of ns@E6 ...

Text in, text out, no files: the callers do the I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from thoughtwave.engine.pieces import KINDS, START_INVENTORY, Colour, Kind
from thoughtwave.engine.referee import Outcome, Penalty, Referee, Rules

MAGIC = "# Thoughtwave game record"
_RESULTS = ("red", "black", "draw", "ongoing")


class RecordError(ValueError):
    """A record that cannot be read; the message names the line."""


@dataclass(frozen=True)
class RecordedMove:
    """One attempt as recorded: who, what was laid (canonical when it parsed), and the verdict."""

    colour: Colour | None
    move: str
    outcome: Outcome
    reason: str | None = None

    def attempt(self) -> str:
        """The attempt as ``Referee.play`` takes it again: ``red ew@E5``."""
        return f"{self.colour.value} {self.move}" if self.colour else self.move

    def line(self) -> str:
        """The record line: ``red ew@E5  # legal``."""
        head = self.attempt()
        tail = self.outcome.value + (f": {self.reason}" if self.reason else "")
        return f"{head}  # {tail}"


@dataclass
class GameRecord:
    """A whole game: players, rules, date, result and every attempt."""

    rules: Rules = field(default_factory=Rules)
    red: str = ""
    black: str = ""
    date: str = ""
    result: str = "ongoing"
    moves: list[RecordedMove] = field(default_factory=list)

    def __post_init__(self) -> None:
        # a header holds one line: names and dates are kept as they will read back
        self.red, self.black, self.date = _one_line(self.red), _one_line(self.black), _one_line(self.date)

    @classmethod
    def from_referee(cls, referee: Referee, red: str = "", black: str = "", date: str = "") -> GameRecord:
        """Record what ``referee`` has ruled so far (blank lines it was given are not attempts: left out)."""
        moves = []
        for v in referee.verdicts:
            text = " ".join(v.move.split())
            if not text:
                continue
            colour = v.colour
            if colour is None:   # a malformed line: keep a leading colour word the way ``parse`` reads it
                colour, text = _split_colour(text)
            moves.append(RecordedMove(colour, text, v.outcome, v.reason))
        return cls(referee.rules, red, black, date, referee.result, moves)

    def replay(self) -> Referee:
        """A referee that has ruled on every recorded attempt again."""
        referee = Referee(self.rules)
        for m in self.moves:
            referee.play(m.attempt())
        return referee

    def to_text(self) -> str:
        """The record as text; ``GameRecord.parse(r.to_text()) == r``."""
        lines = [MAGIC]
        for key, value in (("Red", self.red), ("Black", self.black)):
            if value:
                lines.append(f"# {key}: {_one_line(value)}")
        lines += [
            f"# Red-Sides: {self.rules.red_sides}",
            f"# First: {self.rules.first.value}",
            f"# Penalty: {self.rules.penalty.value}",
        ]
        for colour in Colour:
            counts = self.rules.inventory[colour]
            if counts != START_INVENTORY:
                lines.append(f"# Pieces-{colour.title}: " + " ".join(f"{k.value}={counts[k]}" for k in KINDS))
        if self.date:
            lines.append(f"# Date: {_one_line(self.date)}")
        lines.append(f"# Result: {self.result}")
        lines += [m.line() for m in self.moves]
        return "\n".join(lines) + "\n"

    @classmethod
    def parse(cls, text: str) -> GameRecord:
        """Read a record written by ``to_text`` (or a plain moves file, with defaults)."""
        headers = read_headers(text)
        moves: list[RecordedMove] = []
        for number, raw in enumerate(text.splitlines(), 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            body, _, comment = line.partition("#")
            body = body.strip()
            outcome_text, _, reason = comment.strip().partition(":")
            try:
                outcome = Outcome(outcome_text.strip() or "legal")
            except ValueError:
                raise RecordError(f"line {number}: {outcome_text.strip()!r} is not a verdict") from None
            colour, body = _split_colour(body)
            moves.append(RecordedMove(colour, body, outcome, reason.strip() or None))
        try:
            rules = rules_from_headers(headers)
        except ValueError as err:
            raise RecordError(str(err)) from None
        result = headers.get("result", "ongoing")
        if result not in _RESULTS:
            raise RecordError(f"Result {result!r} is not one of {', '.join(_RESULTS)}")
        return cls(rules, headers.get("red", ""), headers.get("black", ""), headers.get("date", ""),
                   result, moves)


def read_headers(text: str) -> dict[str, str]:
    """The ``# Key: value`` lines before the first move, keys in lower case."""
    headers: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if line and not line.startswith("#"):
            break
        key, sep, value = line[1:].partition(":")
        if sep and line != MAGIC:
            headers[key.strip().lower()] = value.strip()
    return headers


def rules_from_headers(headers: dict[str, str], base: Rules | None = None) -> Rules:
    """Rules from record headers (lower-case keys), falling back to ``base`` or the defaults."""
    base = base or Rules()
    inventory = {c: dict(base.inventory[c]) for c in Colour}
    for colour in Colour:
        text = headers.get(f"pieces-{colour.value}")
        if text:
            inventory[colour] = parse_inventory(text)
    try:
        penalty = Penalty(headers["penalty"]) if "penalty" in headers else base.penalty
    except ValueError:
        raise ValueError(f"Penalty {headers['penalty']!r} is not skip-turn, forfeit or retry") from None
    first = Colour.parse(headers["first"]) if "first" in headers else base.first
    return Rules(penalty, headers.get("red-sides", base.red_sides).upper(), first, inventory)


def parse_inventory(text: str) -> dict[Kind, int]:
    """``"terminator=1 bend=9 straight=5 junction=6 cross=2"``; kinds not named keep their
    standard count."""
    counts = dict(START_INVENTORY)
    for item in text.replace(",", " ").split():
        name, sep, number = item.partition("=")
        try:
            kind = Kind(name.strip().lower())
            count = int(number)
        except ValueError:
            raise ValueError(f"{item!r} is not KIND=COUNT (kinds: {', '.join(k.value for k in KINDS)})") from None
        if not sep or count < 0 or count > 99:
            raise ValueError(f"{item!r} is not KIND=COUNT with a count from 0 to 99")
        counts[kind] = count
    return counts


def _split_colour(text: str) -> tuple[Colour | None, str]:
    """``"red ew@E5"`` -> (RED, ``"ew@E5"``); text without a leading colour word comes back whole."""
    words = text.split(None, 1)
    if len(words) == 2 and words[0].lower() in ("red", "black"):
        return Colour.parse(words[0]), words[1]
    return None, text


def _one_line(text: str) -> str:
    return " ".join(text.split())
