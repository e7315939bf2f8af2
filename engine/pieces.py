"""Colours, pieces and kinds: the value types every other part of the game speaks.

A piece is its set of arms, a 4-bit mask in the fixed order n, e, s, w. Notation lives on the
type: ``Piece.parse("top/right")`` and ``str(Piece.parse("X")) == "nesw"``.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

N, E, S, W = 1, 2, 4, 8
DIRECTIONS: tuple[int, ...] = (N, E, S, W)
OPPOSITE = {N: S, E: W, S: N, W: E}
DIRECTION_LETTERS = {N: "n", E: "e", S: "s", W: "w"}
DIRECTION_NAMES = {N: "north", E: "east", S: "south", W: "west"}
_LETTER_TO_DIRECTION = {"n": N, "e": E, "s": S, "w": W, "t": N, "r": E, "b": S, "l": W}
_WORD_TO_DIRECTION = {
    "north": N, "east": E, "south": S, "west": W,
    "top": N, "right": E, "bottom": S, "left": W,
}


class NotationError(ValueError):
    """Text that is not a piece, a cell or a move; the message says why in a player's words."""


class Colour(enum.Enum):
    """The two sides. ``Colour.parse("Red") is Colour.RED``."""

    RED = "red"
    BLACK = "black"

    # Members are singletons compared by identity, so the identity hash is correct, and unlike Enum's
    # Python-level __hash__ it costs nothing: inventories and sides are looked up by colour on every move.
    __hash__ = object.__hash__

    @property
    def other(self) -> Colour:
        """The opponent: ``Colour.RED.other is Colour.BLACK``."""
        return Colour.BLACK if self is Colour.RED else Colour.RED

    @property
    def title(self) -> str:
        """``"Red"`` or ``"Black"``, for sentences."""
        return self.value.capitalize()

    @classmethod
    def parse(cls, text: str) -> Colour:
        """``Colour.parse("BLACK") is Colour.BLACK``; also accepts ``r`` and ``b``."""
        t = text.strip().lower()
        if t in ("red", "r"):
            return cls.RED
        if t in ("black", "b"):
            return cls.BLACK
        raise NotationError(f"{text!r} is not a colour (red or black)")

    def __str__(self) -> str:
        return self.value


class Kind(enum.Enum):
    """The five kinds of piece, in the order inventories are printed."""

    TERMINATOR = "terminator"
    BEND = "bend"
    STRAIGHT = "straight"
    JUNCTION = "junction"
    CROSS = "cross"

    __hash__ = object.__hash__   # see Colour

    def __str__(self) -> str:
        return self.value


KINDS: tuple[Kind, ...] = tuple(Kind)
#: Each player's starting pieces: 1 terminator, 10 bends, 5 straights, 6 junctions, 2 crosses.
START_INVENTORY: dict[Kind, int] = {
    Kind.TERMINATOR: 1, Kind.BEND: 10, Kind.STRAIGHT: 5, Kind.JUNCTION: 6, Kind.CROSS: 2,
}


def _kind_of(arms: int) -> Kind:
    count = bin(arms).count("1")
    if count == 1:
        return Kind.TERMINATOR
    if count == 2:
        return Kind.STRAIGHT if arms in (N | S, E | W) else Kind.BEND
    if count == 3:
        return Kind.JUNCTION
    return Kind.CROSS


@dataclass(frozen=True, slots=True)
class Piece:
    """A piece by its arms (bit mask of N, E, S, W). ``str(Piece(N | E | S)) == "nes"``."""

    arms: int

    def __post_init__(self) -> None:
        if not 1 <= self.arms <= 15:
            raise NotationError(f"a piece needs one to four arms, not mask {self.arms}")

    @property
    def kind(self) -> Kind:
        """``Piece.parse("ne").kind is Kind.BEND``."""
        return _KIND_BY_ARMS[self.arms]

    def has(self, direction: int) -> bool:
        """Whether the wave reaches the edge in ``direction`` (one of N, E, S, W)."""
        return bool(self.arms & direction)

    def rotated(self, quarter_turns: int = 1) -> Piece:
        """The piece turned clockwise: ``str(Piece.parse("n").rotated()) == "e"``."""
        arms = self.arms
        for _ in range(quarter_turns % 4):
            arms = ((arms << 1) | (arms >> 3)) & 15
        return Piece(arms)

    @classmethod
    def parse(cls, text: str) -> Piece:
        """Read any notation of the network server: ``nes``, ``TRB``, ``X``, ``top/right``."""
        t = text.strip().lower()
        if not t:
            raise NotationError("no piece given")
        if t in ("x", "+", "cross"):
            return cls(15)
        words = [w for w in t.replace(",", "/").replace("-", "/").replace(" ", "/").split("/") if w]
        if not words:   # only separators, e.g. "/"
            raise NotationError(f"{text!r} is not a piece: name its sides, e.g. ns or top/bottom")
        arms = 0
        if len(words) > 1 or words[0] in _WORD_TO_DIRECTION:
            for word in words:
                if word not in _WORD_TO_DIRECTION:
                    raise NotationError(f"{text!r} is not a piece: {word!r} is not a side")
                arms |= _WORD_TO_DIRECTION[word]
            return cls(arms)
        for letter in t:
            if letter not in _LETTER_TO_DIRECTION:
                raise NotationError(
                    f"{text!r} is not a piece: use the letters n, e, s, w (or t, r, b, l) or X"
                )
            bit = _LETTER_TO_DIRECTION[letter]
            if arms & bit:
                raise NotationError(f"{text!r} is not a piece: the side {letter!r} is named twice")
            arms |= bit
        return cls(arms)

    def __str__(self) -> str:
        return "".join(DIRECTION_LETTERS[d] for d in DIRECTIONS if self.arms & d)

    def describe(self, colour: Colour | None = None) -> str:
        """``"red bend ne"``: the words a player uses at the table."""
        words = [colour.value] if colour else []
        words += [self.kind.value, str(self)]
        return " ".join(words)


_KIND_BY_ARMS = {arms: _kind_of(arms) for arms in range(1, 16)}
#: All 15 pieces, ordered by arm mask.
ALL_PIECES: tuple[Piece, ...] = tuple(Piece(arms) for arms in range(1, 16))
#: The pieces of each kind (all orientations).
PIECES_OF_KIND: dict[Kind, tuple[Piece, ...]] = {
    kind: tuple(p for p in ALL_PIECES if p.kind is kind) for kind in KINDS
}
