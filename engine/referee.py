"""The referee: turn order, inventories, penalties, wins and draws. The only place rules live.

It takes attempts (typed or observed) and answers each with a ``Verdict``:

* ``legal``: the piece is on the board;
* ``illegal``: an edge mismatch; the piece leaves the game and the penalty applies;
* ``rejected``: not a move at all (game over, malformed, not your turn, cell taken, no such piece
  left, checked in that order); nothing changes.

>>> ref = Referee()
>>> ref.play("ew@E5").outcome.value, ref.to_move.value
('legal', 'black')
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from thoughtwave.engine.board import Board, piece_bits
from thoughtwave.engine.cells import Cell
from thoughtwave.engine.moves import Move, parse_move_line
from thoughtwave.engine.phrases import Phrase
from thoughtwave.engine.pieces import DIRECTION_NAMES, KINDS, START_INVENTORY, Colour, Kind, NotationError, Piece
from thoughtwave.engine.sides import Sides


class Penalty(enum.Enum):
    """What an illegal placement costs (the piece always leaves the game, except with RETRY)."""

    SKIP_TURN = "skip-turn"   # the offender misses a turn: the opponent plays twice in a row
    FORFEIT = "forfeit"       # the piece is lost, the turn passes normally
    RETRY = "retry"           # friendly: the piece goes back to hand, the same player tries again

    def __str__(self) -> str:
        return self.value


class Outcome(enum.Enum):
    """The three answers a referee gives to an attempt."""

    LEGAL = "legal"
    ILLEGAL = "illegal"
    REJECTED = "rejected"

    def __str__(self) -> str:
        return self.value


def _full_inventory() -> dict[Colour, dict[Kind, int]]:
    return {c: dict(START_INVENTORY) for c in Colour}


@dataclass(frozen=True)
class Rules:
    """Options a game is played with. Red joins west and east by default and moves first.

    >>> Rules(red_sides="NS").sides(Colour.BLACK) == Sides.WE.bits
    True
    >>> Rules.from_json(Rules(penalty=Penalty.RETRY).to_json()) == Rules(penalty=Penalty.RETRY)
    True
    """

    penalty: Penalty = Penalty.SKIP_TURN
    red_sides: Sides = Sides.WE
    first: Colour = Colour.RED
    inventory: dict[Colour, dict[Kind, int]] = field(default_factory=_full_inventory)

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "red_sides", Sides.parse(self.red_sides))
        except NotationError:
            raise ValueError(f"red sides must be WE or NS, not {self.red_sides!r}") from None
        for colour in Colour:
            counts = self.inventory.get(colour)
            if counts is None or set(counts) != set(KINDS) or any(
                not isinstance(n, int) or n < 0 for n in counts.values()
            ):
                raise ValueError(f"{colour.title}'s starting pieces must give a count of 0 or more "
                                 "for each kind")

    def sides_of(self, colour: Colour) -> Sides:
        """The pair of sides ``colour`` must join."""
        return self.red_sides if colour is Colour.RED else self.red_sides.other

    def sides(self, colour: Colour) -> int:
        """The rim sides ``colour`` must join, as N/E/S/W bits."""
        return self.sides_of(colour).bits

    def side_names(self, colour: Colour) -> str:
        """``"west and east"`` or ``"north and south"``."""
        return self.sides_of(colour).names

    def to_json(self) -> dict:
        """The rules as plain JSON values (the inverse of ``from_json``)."""
        return {
            "penalty": self.penalty.value,
            "red_sides": self.red_sides.value,
            "first": self.first.value,
            "inventory": {c.value: {k.value: self.inventory[c][k] for k in KINDS} for c in Colour},
        }

    @classmethod
    def from_json(cls, data: object, base: Rules | None = None) -> Rules:
        """Rules from ``to_json`` output, missing fields taken from ``base``; ValueError naming the bad field."""
        if not isinstance(data, dict):
            raise ValueError("rules must be an object")
        base = base or cls()
        try:
            penalty = Penalty(data.get("penalty", base.penalty.value))
        except (ValueError, TypeError):
            raise ValueError("penalty must be skip-turn, forfeit or retry") from None
        try:
            red_sides = Sides.parse(data.get("red_sides", base.red_sides))
        except NotationError:
            raise ValueError("red_sides must be WE or NS") from None
        first_text = data.get("first", base.first.value)
        if first_text not in ("red", "black"):
            raise ValueError("first must be red or black")
        inventory = {c: dict(base.inventory[c]) for c in Colour}
        given = data.get("inventory")
        given = {} if given is None else given
        if not isinstance(given, dict):
            raise ValueError("inventory must be an object of colours")
        for colour_text, counts in given.items():
            if colour_text not in ("red", "black") or not isinstance(counts, dict):
                raise ValueError("inventory must map red and black to {kind: count}")
            for kind_text, count in counts.items():
                try:
                    kind = Kind(kind_text)
                except ValueError:
                    raise ValueError(f"{kind_text!r} is not a kind of piece") from None
                if not isinstance(count, int) or isinstance(count, bool) or not 0 <= count <= 99:
                    raise ValueError(f"the count of {kind_text} must be a whole number from 0 to 99")
                inventory[Colour(colour_text)][kind] = count
        return cls(penalty, red_sides, Colour(first_text), inventory)


@dataclass(frozen=True)
class Verdict:
    """The referee's answer to one attempt; ``to_json()`` is the contract in DESIGN.md."""

    n: int
    colour: Colour | None
    move: str
    outcome: Outcome
    reason: str | None
    next: Colour | None
    winner: Colour | None
    draw: bool
    left: dict[Colour, dict[Kind, int]]
    cell: Cell | None = None
    piece: Piece | None = None
    passed: tuple[Colour, ...] = ()     # players who passed automatically after this attempt
    skipped: tuple[Colour, ...] = ()    # players whose turn was missed as a penalty
    why: Phrase | None = None           # ``reason`` as a code and values, for a display in another language

    def to_json(self) -> dict:
        """The JSON object ``thoughtwave referee`` prints for this attempt."""
        return {
            "n": self.n,
            "colour": self.colour.value if self.colour else None,
            "move": self.move,
            "verdict": self.outcome.value,
            "reason": self.reason,
            "next": self.next.value if self.next else None,
            "winner": self.winner.value if self.winner else None,
            "draw": self.draw,
            "left": {c.value: {k.value: self.left[c][k] for k in KINDS} for c in Colour},
        }


@dataclass
class _Saved:
    inventory: dict[Colour, dict[Kind, int]]
    to_move: Colour | None
    skips: dict[Colour, int]
    winner: Colour | None
    draw: bool
    placed: bool


class Referee:
    """Referees one game. ``play`` takes a move line; ``attempt`` takes parsed values."""

    def __init__(self, rules: Rules | None = None) -> None:
        self.rules = rules or Rules()
        self.board = Board()
        self.inventory = {c: dict(self.rules.inventory[c]) for c in Colour}
        self.skips = {c: 0 for c in Colour}
        self.winner: Colour | None = None
        self.draw = False
        self.verdicts: list[Verdict] = []
        self._undo: list[_Saved] = []
        self.to_move: Colour | None = self.rules.first
        self.to_move, _, _ = self._resolve_turn(self.rules.first)

    # ---- questions ------------------------------------------------------------------------
    @property
    def over(self) -> bool:
        """Whether the game has ended (a win or a draw)."""
        return self.winner is not None or self.draw

    @property
    def result(self) -> str:
        """``"red"``, ``"black"``, ``"draw"`` or ``"ongoing"``."""
        if self.winner:
            return self.winner.value
        return "draw" if self.draw else "ongoing"

    def available(self, colour: Colour) -> int:
        """Bit set of the pieces ``colour`` still has (see ``engine.board``)."""
        return piece_bits(self.inventory[colour])

    def can_place(self, colour: Colour) -> bool:
        """Whether ``colour`` has a piece that fits somewhere."""
        return self.board.has_legal_placement(self.available(colour))

    def legal_pieces(self, cell: Cell, colour: Colour | None = None) -> list[Piece]:
        """The pieces ``colour`` (default: the side to move) may lay on ``cell`` now."""
        colour = colour or self.to_move
        if colour is None or self.over:
            return []
        return self.board.legal_pieces(cell, self.available(colour))

    def winning_wave(self) -> list[Cell]:
        """The cells of the winner's joining wave, or []."""
        if self.winner is None:
            return []
        return self.board.joining_wave(self.rules.sides(self.winner))

    def _left(self) -> dict[Colour, dict[Kind, int]]:
        return {c: dict(self.inventory[c]) for c in Colour}

    # ---- attempts --------------------------------------------------------------------------
    def play(self, line: str) -> Verdict:
        """Referee one move line ``[red|black] PIECE@CELL``; a malformed line is rejected."""
        text = " ".join(line.split("#", 1)[0].split())   # one line, single spaces: a record can hold it
        if self.over:
            return self._reject(None, text, self._over_sentence())
        try:
            colour, move = parse_move_line(text)
        except NotationError as err:
            return self._reject(None, text, Phrase.of("malformed", str(err), move=text))
        return self.attempt(move, colour)

    def attempt(self, move: Move, colour: Colour | None = None) -> Verdict:
        """Referee ``move`` by ``colour`` (default: the side to move)."""
        shown = f"{move}"
        if self.over:
            return self._reject(colour, shown, self._over_sentence())
        mover = colour or self.to_move
        assert mover is not None
        if mover is not self.to_move:
            assert self.to_move is not None
            return self._reject(mover, shown, Phrase.of(
                "not-your-turn", f"it is {self.to_move.title}'s turn, not {mover.title}'s",
                to_move=self.to_move, mover=mover))
        taken = self.board[move.cell]
        if taken is not None:
            return self._reject(mover, shown, Phrase.of(
                "taken", f"{move.cell} is already taken by {taken}", cell=str(move.cell), piece=str(taken)))
        kind = move.piece.kind
        if self.inventory[mover][kind] <= 0:
            return self._reject(mover, shown, Phrase.of(
                "none-left", f"{mover.title} has no {kind.value} left", colour=mover, kind=kind))

        self._undo.append(_Saved(self._left(), self.to_move, dict(self.skips), self.winner,
                                 self.draw, placed=False))
        mismatch = self._mismatch(move)
        skipped: tuple[Colour, ...] = ()
        if mismatch is None:
            self.inventory[mover][kind] -= 1
            self.board.push(move)
            self._undo[-1].placed = True
            outcome, reason = Outcome.LEGAL, None
            joined = self.board.sides_joined(move.cell)
            if joined & self.rules.sides(mover) == self.rules.sides(mover):
                self.winner = mover
            elif joined & self.rules.sides(mover.other) == self.rules.sides(mover.other):
                self.winner = mover.other
            candidate = mover.other
        else:
            outcome, reason = Outcome.ILLEGAL, mismatch
            penalty = self.rules.penalty
            if penalty is Penalty.RETRY:
                candidate = mover
            else:
                self.inventory[mover][kind] -= 1
                candidate = mover.other
                if penalty is Penalty.SKIP_TURN:
                    self.skips[mover] += 1

        passed: tuple[Colour, ...] = ()
        if self.winner is not None:
            self.to_move = None
        else:
            self.to_move, passed, skipped = self._resolve_turn(candidate)
        return self._record(mover, shown, outcome, reason, move, passed, skipped)

    def undo(self) -> Verdict | None:
        """Take back the last legal or illegal verdict (rejected ones changed nothing)."""
        while self.verdicts and self.verdicts[-1].outcome is Outcome.REJECTED:
            self.verdicts.pop()
        if not self._undo:
            return None
        saved = self._undo.pop()
        if saved.placed:
            self.board.pop()
        self.inventory = saved.inventory
        self.to_move, self.skips = saved.to_move, saved.skips
        self.winner, self.draw = saved.winner, saved.draw
        return self.verdicts.pop()

    # ---- internals -------------------------------------------------------------------------
    def _resolve_turn(self, candidate: Colour) -> tuple[Colour | None, tuple, tuple]:
        """Apply missed turns and automatic passes; None (and a draw) when nobody can place."""
        passed: list[Colour] = []
        skipped: list[Colour] = []
        for _ in range(8):
            if not self.can_place(candidate) and not self.can_place(candidate.other):
                self.draw = True
                return None, tuple(passed), tuple(skipped)
            if self.skips[candidate]:
                self.skips[candidate] -= 1
                skipped.append(candidate)
                candidate = candidate.other
                continue
            if self.can_place(candidate):
                return candidate, tuple(passed), tuple(skipped)
            passed.append(candidate)
            candidate = candidate.other
        return candidate, tuple(passed), tuple(skipped)

    def _mismatch(self, move: Move) -> Phrase | None:
        """Why ``move`` does not fit (``Board.mismatch_sentence`` with its code and values), or None."""
        found = self.board.mismatch(move)
        if found is None:
            return None
        d, other = found
        english = self.board.mismatch_sentence(move)
        assert english is not None
        code = "wave-on-blank" if move.piece.arms & d else "blank-on-wave"
        return Phrase.of(code, english, side=DIRECTION_NAMES[d], move=str(move), other=str(other))

    def _over_sentence(self) -> Phrase:
        if self.winner:
            return Phrase.of("over-won", f"the game is over: {self.winner.title} has won", winner=self.winner)
        return Phrase.of("over-drawn", "the game is over: it was drawn")

    def _reject(self, colour: Colour | None, shown: str, reason: Phrase) -> Verdict:
        return self._record(colour, shown, Outcome.REJECTED, reason, None, (), ())

    def _record(self, colour: Colour | None, shown: str, outcome: Outcome, reason: Phrase | None,
                move: Move | None, passed: tuple, skipped: tuple) -> Verdict:
        verdict = Verdict(
            n=len(self.verdicts) + 1, colour=colour, move=shown, outcome=outcome,
            reason=None if reason is None else str(reason),
            next=self.to_move, winner=self.winner, draw=self.draw, left=self._left(),
            cell=move.cell if move else None, piece=move.piece if move else None,
            passed=passed, skipped=skipped, why=reason,
        )
        self.verdicts.append(verdict)
        return verdict
