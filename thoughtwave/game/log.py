"""A game's history replayed: the attempts that stand after undos and corrections, and the referee that
ruled on them. The live companion and a restart replay the same stored actions (``game.store``), so they
cannot disagree.

>>> log = GameLog.replay(Rules(), [Action(1, "attempt", "red", "ew@E5", verdict="legal")])
>>> log.referee.to_move.value
'black'
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from thoughtwave.engine import Cell, Move, NotationError, Outcome, Piece, Referee, Rules, Verdict

log = logging.getLogger(__name__)

#: The kinds of stored action, in the order a game may hold them.
ACTION_KINDS = ("attempt", "undo", "correct")


@dataclass(frozen=True)
class Action:
    """One stored action of a game, in the order it happened."""

    id: int
    kind: str
    colour: str | None = None
    move: str = ""
    cell: str | None = None
    verdict: str | None = None
    reason: str | None = None
    at: str = ""



@dataclass
class _Entry:
    colour: str | None
    move: str
    outcome: Outcome | None = None


@dataclass
class GameLog:
    """The attempts that stand in a game, and the referee that has ruled on them.

    ``attempt`` entries are played in order; ``undo`` takes back the last legal or illegal one
    (and rejected ones after it, as ``Referee.undo`` does); ``correct`` replaces the latest standing
    attempt on the cell (or adds one) and re-referees the whole game.
    """

    rules: Rules
    entries: list[_Entry] = field(default_factory=list)
    referee: Referee = None  # type: ignore[assignment]

    def __post_init__(self) -> None:
        if self.referee is None:
            self.referee = Referee(self.rules)

    @classmethod
    def replay(cls, rules: Rules, actions: list[Action]) -> GameLog:
        """The log after every action, in order. Never raises on a bad stored action."""
        game = cls(rules)
        for action in actions:
            if action.kind == "attempt":
                verdict = game.play(action.colour, action.move)
                if action.verdict and verdict.outcome.value != action.verdict:
                    log.warning("replayed %s %s: %s now, %s when stored", action.colour, action.move,
                                verdict.outcome.value, action.verdict)
            elif action.kind == "undo":
                game.undo()
            elif action.kind == "correct" and action.cell:
                game.correct(action.cell, action.colour, action.move or None)
        return game

    def play(self, colour: str | None, move: str) -> Verdict:
        """Referee an attempt and keep it."""
        verdict = self.referee.play(f"{colour} {move}" if colour else move)
        self.entries.append(_Entry(colour, move, verdict.outcome))
        return verdict

    def observed(self, colour: str | None, move: str, outcome: str) -> None:
        """Keep an attempt that the live referee has already ruled on (the watcher played it)."""
        self.entries.append(_Entry(colour, move, Outcome(outcome)))

    def undo(self, apply: bool = True) -> bool:
        """Take back the last legal or illegal attempt; False when there is none. ``apply=False``:
        the referee has already been told (by the table)."""
        if not any(e.outcome is not Outcome.REJECTED for e in self.entries):
            return False
        while self.entries and self.entries[-1].outcome is Outcome.REJECTED:
            self.entries.pop()
        self.entries.pop()
        if apply:
            self.referee.undo()
        return True

    def correct(self, cell: str, colour: str | None, piece: str | None) -> None:
        """``cell`` really holds ``colour piece`` (None: nothing): fix the history and re-referee."""
        target = Cell.parse(cell)
        new = f"{Piece.parse(piece)}@{target}" if piece else None
        for i in range(len(self.entries) - 1, -1, -1):
            entry = self.entries[i]
            if entry.outcome is not Outcome.REJECTED and cell_of(entry.move) == str(target):
                if new is None:
                    del self.entries[i]
                else:
                    self.entries[i] = _Entry(colour or entry.colour, new)
                break
        else:
            if new is not None:
                self.entries.append(_Entry(colour, new))
        self._rebuild()

    def _rebuild(self) -> None:
        entries, self.entries = self.entries, []
        self.referee = Referee(self.rules)
        for entry in entries:
            self.play(entry.colour, entry.move)


def cell_of(move: str) -> str | None:
    """The cell a move names (``"ew@E5"`` -> ``"E5"``), or None when it is not a move."""
    try:
        return str(Move.parse(move).cell)
    except NotationError:
        return None
