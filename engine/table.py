"""The physical board: what the camera sees, reconciled with the referee's game (rule decision 10).

The camera reports the whole board each time it is steady; the table works out what changed and
what it means:

* one new piece is an attempt, ruled by the referee;
* several new pieces at once are accepted only if some order of turns makes every one legal,
  otherwise all are flagged and must be laid again one at a time;
* a placed piece that is lifted, turned or swapped is flagged until it is restored;
* an illegal or rejected piece is flagged until it is taken off the board;
* while any of those stands, new pieces wait (the board must be put right before play goes on);
* after a restart (``resumed=True``) anything the stored game does not explain is flagged, not ruled.

Flags clear themselves when the board is put right. Pure rules, no pixels.
"""

from __future__ import annotations

import enum
import itertools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from thoughtwave.engine.cells import CELLS, Cell
from thoughtwave.engine.moves import Move
from thoughtwave.engine.phrases import Phrase
from thoughtwave.engine.pieces import Colour, Piece
from thoughtwave.engine.referee import Outcome, Penalty, Referee, Verdict

#: What lies on a cell as seen: (colour, piece), or None for an empty cell.
Content = tuple[Colour, Piece] | None

#: The most new pieces whose orders are searched (6! = 720 orders); more at once are flagged.
MAX_ORDERED = 6


class FlagKind(enum.Enum):
    """Standing problems on the physical board."""

    ILLEGAL_PIECE = "illegal-piece"    # an illegally placed piece is still on the board
    REJECTED_PIECE = "rejected-piece"  # a piece that was not a move is still on the board
    LIFTED = "lifted"                  # a placed piece is missing
    MOVED = "moved"                    # a placed piece was turned or swapped
    UNEXPLAINED = "unexplained"        # several new pieces that no legal order of turns explains
    UNDONE = "undone"                  # a piece whose verdict was taken back
    DIFFERS = "differs"                # after a restart: a piece the stored game does not have
    HELD = "held"                      # a new piece waiting until the board is put right
    UNREADABLE = "unreadable"          # the camera cannot read the cell

    def __str__(self) -> str:
        return self.value


#: Flags that stop play until the board is put right.
BLOCKING = frozenset({
    FlagKind.ILLEGAL_PIECE, FlagKind.REJECTED_PIECE, FlagKind.LIFTED, FlagKind.MOVED,
    FlagKind.UNEXPLAINED, FlagKind.UNDONE, FlagKind.DIFFERS,
})


@dataclass(frozen=True)
class Flag:
    """A standing problem on one cell and what to do about it, in a player's words."""

    kind: FlagKind
    cell: Cell
    message: str
    why: Phrase | None = None    # ``message`` as a code and values, for a display in another language

    def to_json(self) -> dict:
        return {"flag": self.kind.value, "cell": str(self.cell), "message": self.message}


@dataclass(frozen=True)
class TableEvent:
    """One thing that happened: a verdict, a new or changed flag, or a flag cleared."""

    verdict: Verdict | None = None
    flag: Flag | None = None
    cleared: Flag | None = None

    def to_json(self) -> dict:
        """A verdict in the ``referee --moves`` shape, or ``{"event": "flag"|"cleared", ...}``."""
        if self.verdict is not None:
            return self.verdict.to_json()
        if self.flag is not None:
            return {"event": "flag", **self.flag.to_json()}
        assert self.cleared is not None
        return {"event": "cleared", **self.cleared.to_json()}


def flag(kind: FlagKind, cell: Cell, code: str, english: str, **values: object) -> Flag:
    """A flag whose message is the phrase ``code`` (worded ``english``); pieces are given as ``Content``."""
    return Flag(kind, cell, english, Phrase.of(code, english, cell=str(cell), **values))


def describe(content: Content) -> str:
    """``"red bend ne"``, or ``"nothing"``."""
    if content is None:
        return "nothing"
    colour, piece = content
    return piece.describe(colour)


def held(cell: Cell, what: Content, first: Flag) -> Flag:
    """The flag of a new piece that waits while ``first`` stands (the board must be put right first)."""
    return flag(FlagKind.HELD, cell, "held", f"the {describe(what)} on {cell} waits until the "
                f"board is put right: {first.message}", what=what, first=first.why)


class Table:
    """Watches the physical board for one game. ``observe`` takes each steady view of the board."""

    def __init__(self, referee: Referee, resumed: bool = False) -> None:
        self.referee = referee
        self.flags: dict[Cell, Flag] = {}
        self._resumed = resumed
        self._to_remove: dict[Cell, tuple[Content, Flag]] = {}
        self._overrides: dict[Cell, tuple[Content, Content]] = {}
        self._last_seen: dict[Cell, Content] = {}
        self._last_unreadable: frozenset[Cell] = frozenset()
        self._last_reasons: dict[Cell, str] = {}

    def expected(self) -> dict[Cell, tuple[Colour, Piece]]:
        """What the game says lies on the board: every legally placed piece with its colour."""
        return {
            v.cell: (v.colour, v.piece) for v in self.referee.verdicts
            if v.outcome is Outcome.LEGAL and v.cell and v.colour and v.piece
        }

    # ---- observing -------------------------------------------------------------------------
    def observe(self, seen: Mapping[Cell, Content], unreadable: Iterable[Cell] = (),
                reasons: Mapping[Cell, str] | None = None) -> list[TableEvent]:
        """Take a steady view of the board (every readable cell -> its content) and answer with
        the verdicts and flag changes it causes. Cells neither in ``seen`` nor readable keep their flags.
        ``reasons`` gives an unreadable cell's flag message (why it cannot be read, what to do), in
        place of the general one; a changed reason changes the flag."""
        unreadable = frozenset(unreadable)
        reasons = dict(reasons or {})
        self._last_seen, self._last_unreadable, self._last_reasons = dict(seen), unreadable, reasons
        expected = self.expected()
        flags: dict[Cell, Flag] = {}
        new: dict[Cell, tuple[Colour, Piece]] = {}
        for cell in CELLS:
            if cell in unreadable or cell not in seen:
                standing = self.flags.get(cell)
                if standing is not None and not (standing.kind is FlagKind.UNREADABLE and cell in reasons):
                    flags[cell] = standing
                elif cell in unreadable:
                    flags[cell] = flag(FlagKind.UNREADABLE, cell, "unreadable", reasons.get(cell) or
                                       f"can't read {cell}: clear anything covering it or check the light")
                continue
            what = self._corrected(cell, seen[cell])
            want = expected.get(cell)
            if want is not None:
                if what is None:
                    flags[cell] = flag(FlagKind.LIFTED, cell, "lifted", f"put the {describe(want)} back on {cell}",
                                       want=want)
                elif what != want:
                    flags[cell] = flag(FlagKind.MOVED, cell, "moved", f"{cell} should hold the {describe(want)}, not "
                                       f"the {describe(what)}: put it back as it was", want=want, what=what)
                continue
            if cell in self._to_remove:
                lying, standing = self._to_remove[cell]
                if what == lying:
                    flags[cell] = standing
                    continue
                del self._to_remove[cell]      # taken off (and perhaps another piece laid there)
            if what is not None:
                new[cell] = what

        events: list[TableEvent] = []
        if new:
            if self._resumed:
                for cell, what in new.items():
                    self.take_off(cell, what, flags, flag(
                        FlagKind.DIFFERS, cell, "differs",
                        f"the stored game has nothing on {cell} but the camera sees the {describe(what)}:"
                        " take it off (lay it again if it was a move)", what=what))
            elif any(f.kind in BLOCKING for f in flags.values()):
                first = next(f for f in flags.values() if f.kind in BLOCKING)
                for cell, what in new.items():
                    flags[cell] = held(cell, what, first)
            else:
                events += self.rule(new, flags)
        self._resumed = False
        events += self._flag_changes(flags)
        return events

    def rule(self, new: dict[Cell, tuple[Colour, Piece]], flags: dict[Cell, Flag]) -> list[TableEvent]:
        """Referee the new pieces: one at a time, or several in a legal order, or flag them.

        The extension point for tables with rules of their own (``thoughtwave.game.opponent.InstructedTable``
        screens the computer's pieces first): ``new`` holds the pieces seen since the last look on
        an otherwise sound board; a piece that must come off is handed to ``take_off``, which records
        its flag in ``flags``.
        """
        order = list(new.items())
        if len(order) > 1:
            found = self._legal_order(order)
            if found is None:
                names = ", ".join(str(c) for c, _ in order)
                for cell, what in order:
                    self.take_off(cell, what, flags, flag(
                        FlagKind.UNEXPLAINED, cell, "unexplained",
                        f"several pieces appeared at once ({names}) and no order of turns makes them all "
                        f"legal: take the {describe(what)} off {cell} and lay the pieces one at a time",
                        cells=tuple(str(c) for c, _ in order), what=what))
                return []
            order = found
        events = []
        for cell, (colour, piece) in order:
            verdict = self.referee.attempt(Move(piece, cell), colour)
            events.append(TableEvent(verdict=verdict))
            if verdict.outcome is Outcome.ILLEGAL:
                self.take_off(cell, (colour, piece), flags, self._illegal_advice(verdict))
            elif verdict.outcome is Outcome.REJECTED:
                self.take_off(cell, (colour, piece), flags, flag(
                    FlagKind.REJECTED_PIECE, cell, "rejected-piece",
                    f"take the {describe((colour, piece))} off {cell}: {verdict.reason}",
                    what=(colour, piece), reason=verdict.why))
        return events

    def _legal_order(self, pieces: list[tuple[Cell, tuple[Colour, Piece]]]):
        """An order in which every piece is a legal placement in turn, or None. Each order is tried on
        the real referee and taken back with undo (which restores the exact state), no copies."""
        if len(pieces) > MAX_ORDERED:
            return None
        referee = self.referee
        for order in itertools.permutations(pieces):
            applied = 0
            for cell, (colour, piece) in order:
                verdict = referee.attempt(Move(piece, cell), colour)
                if verdict.outcome is Outcome.LEGAL:
                    applied += 1
                    continue
                if verdict.outcome is Outcome.REJECTED:
                    referee.verdicts.pop()      # a rejection changed nothing but the list
                else:
                    referee.undo()
                break
            for _ in range(applied):
                referee.undo()
            if applied == len(order):
                return list(order)
        return None

    def _illegal_advice(self, verdict: Verdict) -> Flag:
        """``"take the red bend ne off E5; it is out of the game; Red misses a turn (blank west ...)"``."""
        assert verdict.colour and verdict.piece and verdict.cell
        content = (verdict.colour, verdict.piece)
        what = describe(content)
        penalty = self.referee.rules.penalty
        if penalty is Penalty.RETRY:
            advice = f"take the {what} off {verdict.cell}; {verdict.colour.title} tries again"
        elif penalty is Penalty.FORFEIT:
            advice = f"take the {what} off {verdict.cell}; it is out of the game"
        else:
            advice = f"take the {what} off {verdict.cell}; it is out of the game; {verdict.colour.title} misses a turn"
        return flag(FlagKind.ILLEGAL_PIECE, verdict.cell, f"illegal-{penalty.value}", f"{advice} ({verdict.reason})",
                    what=content, reason=verdict.why)

    def take_off(self, cell: Cell, what: Content, flags: dict[Cell, Flag], standing: Flag) -> None:
        """Flag ``what`` on ``cell`` until it is taken off (the flag, ``standing``, stays while it lies there)."""
        self._to_remove[cell] = (what, standing)
        flags[cell] = standing

    def _flag_changes(self, flags: dict[Cell, Flag]) -> list[TableEvent]:
        events = [TableEvent(flag=f) for c, f in flags.items() if self.flags.get(c) != f]
        events += [TableEvent(cleared=f) for c, f in self.flags.items() if c not in flags]
        self.flags = flags
        return events

    def _corrected(self, cell: Cell, what: Content) -> Content:
        """Apply an operator's correction while the camera keeps reading the cell the same way."""
        if cell in self._overrides:
            misread, truth = self._overrides[cell]
            if what == misread:
                return truth
            del self._overrides[cell]
        return what

    # ---- operator actions --------------------------------------------------------------------
    def undo(self) -> Verdict | None:
        """Take back the last verdict; its piece, if still on the board, must come off."""
        verdict = self.referee.undo()
        if verdict is not None and verdict.cell is not None and verdict.colour and verdict.piece:
            content = (verdict.colour, verdict.piece)
            undone = flag(FlagKind.UNDONE, verdict.cell, "undone",
                          f"take the {describe(content)} off {verdict.cell}: its move was taken back", what=content)
            self._to_remove[verdict.cell] = (content, undone)
            self.flags[verdict.cell] = undone
        return verdict

    def correct(self, cell: Cell, truth: Content) -> list[TableEvent]:
        """The operator says what really lies on ``cell`` (the camera misreads it): trust that while
        the camera keeps reading the cell as it does now, and look at the board again."""
        if cell not in self._last_seen:
            return []
        self._overrides[cell] = (self._last_seen[cell], truth)
        return self.observe(self._last_seen, self._last_unreadable, self._last_reasons)
