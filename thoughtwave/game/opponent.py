"""The computer as a player on the physical board: who it plays, what it tells the person to lay, and
the table that accepts only the piece it was told.

A game against the computer stores an ``Opponent`` (colour, level, seconds) with the game. When the
computer is to move, a ``Thinker`` runs ``engine.ai.Computer.search`` on a copy of the position, off
the camera loop: a background thread hands it to a worker process (a search is pure Python, and in a
thread of the companion's own process it would hold the GIL the loop needs: a demo-camera frame took
about three times as long), and keeps the answer as an ``Instruction`` for that exact position. An
answer for a position that has changed meanwhile is dropped, and a new search starts.

The person lays the computer's pieces for it. ``InstructedTable`` (an ``engine.table.Table``) rules
the computer's colour only when the piece seen is the instruction: any other piece of the computer's
colour (wrong cell, wrong orientation, or laid before the computer has chosen) is not an attempt at
all, so nothing is stored or ruled; it is flagged like a rejected piece ("that is not the computer's
move: ...") and play waits until it is taken off. A wrong piece is the person's slip, not the
computer's move, so the game record stays clean and a restart replays exactly what was ruled.

>>> Instruction(Move.parse("ne@F4"), Colour.BLACK, 0.5, ()).text
'Black plays bend ne at F4'
"""

from __future__ import annotations

import concurrent.futures
import copy
import logging
import multiprocessing
import threading
from collections.abc import Callable, Hashable
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, Protocol

from thoughtwave.engine import Cell, Colour, Move, Outcome, Piece, Referee
from thoughtwave.engine.ai import Computer
from thoughtwave.engine.pieces import DIRECTION_NAMES, DIRECTIONS, Kind
from thoughtwave.engine.table import Flag, FlagKind, Table, describe, flag, held

log = logging.getLogger(__name__)

LEVELS = (1, 2, 3)
MIN_SECONDS, MAX_SECONDS = 0.1, 30.0


@dataclass(frozen=True)
class Opponent:
    """The computer's side of a game: its colour, search level (1-3) and seconds per move."""

    colour: Colour
    level: int = 3
    seconds: float = 1.0

    def __post_init__(self) -> None:
        if self.level not in LEVELS:
            raise ValueError("the computer's level must be 1, 2 or 3")
        if not MIN_SECONDS <= self.seconds <= MAX_SECONDS:
            raise ValueError(f"the computer's seconds per move must be from {MIN_SECONDS} to {MAX_SECONDS:g}")

    def to_json(self) -> dict:
        """``{"colour": "black", "level": 3, "seconds": 1.0}``, as stored with the game."""
        return {"colour": self.colour.value, "level": self.level, "seconds": self.seconds}

    @classmethod
    def from_json(cls, data: Any) -> Opponent | None:
        """The opponent from ``to_json`` output (or form fields as text); None for a game of two people.

        ValueError, with a sentence for the player, when a field is bad."""
        if data is None or data == {} or data == "":
            return None
        if not isinstance(data, dict):
            raise ValueError("the computer opponent must be an object like {\"colour\": \"black\"}")
        colour_text = data.get("colour")
        if colour_text in (None, "", "none", "nobody", "people"):
            return None
        if colour_text not in ("red", "black"):
            raise ValueError("the computer plays red or black (or nobody, for two people)")
        try:
            level = _whole(data.get("level", 3))
            seconds = float(data.get("seconds", 1.0))
        except (TypeError, ValueError):
            raise ValueError("the computer's level is 1, 2 or 3 and its seconds a number like 1.5") from None
        if seconds != seconds:       # NaN slips past the range check
            raise ValueError("the computer's seconds per move must be a number")
        return cls(Colour(colour_text), level, seconds)

    @property
    def name(self) -> str:
        """What the display calls the computer's player: ``"Computer (level 3)"``."""
        return f"Computer (level {self.level})"


def _whole(value: Any) -> int:
    if isinstance(value, bool):
        raise ValueError("not a number")
    if isinstance(value, str):
        value = value.strip()
    number = int(value)
    if isinstance(value, float) and number != value:
        raise ValueError("not a whole number")
    return number


def opponent_of(game_json: dict) -> Opponent | None:
    """The opponent stored with a game row (``GameRow.opponent``); a damaged entry means two people."""
    try:
        return Opponent.from_json(game_json)
    except ValueError as err:
        log.warning("the stored computer opponent is unusable (%s): playing as two people", err)
        return None


# ---- what the person is told ---------------------------------------------------------------------

def wave_words(piece: Piece) -> str:
    """How the wave of ``piece`` runs, for a person laying it: ``"north and east"``."""
    names = [DIRECTION_NAMES[d] for d in DIRECTIONS if piece.arms & d]
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + " and " + names[-1]


def laying_advice(piece: Piece, colour: Colour) -> str:
    """``"lay the black bend so its wave runs north and east"`` (a cross: any way round)."""
    what = f"the {colour.value} {piece.kind.value}"
    if piece.kind is Kind.CROSS:
        return f"lay {what} (any way round: its waves run to all four sides)"
    if piece.kind is Kind.TERMINATOR:
        return f"lay {what} so its wave runs {wave_words(piece)} from the middle"
    if piece.kind is Kind.JUNCTION:
        return f"lay {what} so its waves run {wave_words(piece)}"
    return f"lay {what} so its wave runs {wave_words(piece)}"


@dataclass(frozen=True)
class Instruction:
    """The computer's chosen move for one position (``key``): what the display shows and says."""

    move: Move
    colour: Colour
    score: float
    key: Hashable

    @property
    def text(self) -> str:
        """``"Black plays bend ne at F4"``."""
        return f"{self.colour.title} plays {self.move.piece.kind.value} {self.move.piece} at {self.move.cell}"

    @property
    def detail(self) -> str:
        """``"lay the black bend so its wave runs north and east"``."""
        return laying_advice(self.move.piece, self.colour)

    @property
    def spoken(self) -> str:
        """The sentence for speech (letters like "ne" read badly aloud): ``"Black plays the bend, north
        and east, at F 4"``."""
        cell = self.move.cell
        where = f"{str(cell)[0]} {str(cell)[1:]}"
        return f"{self.colour.title} plays the {self.move.piece.kind.value}, {wave_words(self.move.piece)}, at {where}"

    def to_json(self) -> dict:
        """For the display's state."""
        return {"move": str(self.move), "cell": str(self.move.cell), "piece": str(self.move.piece),
                "kind": self.move.piece.kind.value, "colour": self.colour.value, "score": round(self.score, 3),
                "text": self.text, "detail": self.detail, "spoken": self.spoken}


def position_key(game_id: int, referee: Referee) -> tuple:
    """What an instruction is valid for: the game, the side to move and every verdict that stands."""
    standing = tuple((v.colour, v.move, v.outcome) for v in referee.verdicts if v.outcome is not Outcome.REJECTED)
    return (game_id, referee.to_move, standing)


# ---- the search, off the camera loop ---------------------------------------------------------------

class Chosen(Protocol):
    """A search's answer (``engine.ai.Choice``): the move, whose it is, and its win estimate."""

    move: Move
    colour: Colour
    score: float


class Searcher(Protocol):
    """A computer player: ``search`` answers with its move for the side to move, or None."""

    def search(self, referee: Referee) -> Chosen | None: ...


#: How a search reports back: ``answered(position key, the choice or None, why there is none or None)``.
Answered = Callable[[Hashable, "Chosen | None", "str | None"], None]


def make_computer(opponent: Opponent) -> Searcher:
    """The engine's computer player at the opponent's level and seconds per move."""
    return Computer(level=opponent.level, seconds=opponent.seconds)


def _search_in_worker(opponent: dict, position: Referee) -> Chosen | None:
    """The search as the worker process runs it (module level, so the worker can import it)."""
    found = Opponent.from_json(opponent)
    assert found is not None
    return make_computer(found).search(position)


class Thinker:
    """Runs the computer's searches, one at a time, off the caller's thread.

    ``make`` None: the engine's computer, in a worker process started on first use (``close`` ends
    it); otherwise ``make(opponent).search`` runs in a background thread (fakes in tests). Not locked
    itself: ``think``, ``settle`` and the questions are called with the owner's lock held (the
    companion's), and the search reports back through ``answered(key, choice, error)``, which must
    take that lock and call ``settle``.
    """

    def __init__(self, make: Callable[[Opponent], Searcher] | None = None) -> None:
        self._make = make
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None
        self._pool_lock = threading.Lock()
        self.answer: Instruction | None = None
        self.error: str | None = None          # why the last search gave no move, for the display
        self._failed: Hashable = None          # the position the last failure was for (not retried)
        self.busy: Hashable = None             # the position being searched, or None
        self.searches = 0                      # searches started (tests and figures)

    def instruction(self, key: Hashable) -> Instruction | None:
        """The answer for the position ``key``, if the computer has given it."""
        answer = self.answer
        return answer if answer is not None and answer.key == key else None

    def think(self, key: Hashable, referee: Referee, opponent: Opponent,
              answered: Answered) -> bool:
        """Start searching ``referee``'s position unless it is answered, being searched, or failed; a
        search for another position still running is waited for (the owner asks again once it
        answers). True when a search was started."""
        if self.instruction(key) is not None or self.busy is not None or self._failed == key:
            return False
        self.busy = key
        self.error = None
        self.searches += 1
        position = copy.deepcopy(referee)     # the loop goes on changing the live referee meanwhile
        thread = threading.Thread(target=self._search, args=(key, position, opponent, answered),
                                  name="computer", daemon=True)
        thread.start()
        return True

    def _search(self, key: Hashable, position: Referee, opponent: Opponent,
                answered: Answered) -> None:
        choice, error = None, None
        try:
            if self._make is None:
                choice = self._worker().submit(_search_in_worker, opponent.to_json(), position).result()
            else:
                choice = self._make(opponent).search(position)
            if choice is None:
                error = "the computer found no move"
        except BrokenProcessPool:    # the worker died (out of memory, killed): a new one next time
            log.exception("the computer's worker process died")
            with self._pool_lock:
                self._pool = None
            error = "the computer's worker process stopped; start a new game or restart to try again"
        except Exception as err:  # a bug in the search must not kill the companion: shown, not retried
            log.exception("the computer's search failed")
            error = f"the computer could not choose a move ({type(err).__name__})"
        answered(key, choice, error)

    @property
    def worker(self) -> concurrent.futures.ProcessPoolExecutor | None:
        """The worker process pool the engine's computer searches in, once started (None before and after
        ``close``)."""
        with self._pool_lock:
            return self._pool

    def _worker(self) -> concurrent.futures.ProcessPoolExecutor:
        with self._pool_lock:
            if self._pool is None:
                # spawn, not fork: the companion has threads (camera, server) whose locks a fork would copy
                self._pool = concurrent.futures.ProcessPoolExecutor(
                    max_workers=1, mp_context=multiprocessing.get_context("spawn"))
            return self._pool

    def close(self) -> None:
        """End the worker process, if one was started (a search still running finishes within its
        seconds, unheard, and the worker then exits)."""
        with self._pool_lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)

    def settle(self, key: Hashable, choice: Chosen | None, error: str | None, current: bool = True) -> bool:
        """Keep the answer for ``key`` when it is still the position (``current``); an answer for a
        position that has changed meanwhile is dropped. True when the answer was kept."""
        self.busy = None
        if not current:
            return False
        if error is not None:
            self._failed, self.error = key, error
            return False
        if choice is None or not isinstance(choice.move, Move) or not isinstance(choice.colour, Colour):
            self._failed, self.error = key, "the computer gave no usable move"
            return False
        self.answer = Instruction(choice.move, choice.colour, float(choice.score), key)
        return True

    def forget(self) -> None:
        """Drop the answer and any failure (a new game); a running search's answer will not match."""
        self.answer, self.error, self._failed = None, None, None


# ---- the table that holds the person to the instruction ---------------------------------------------

Told = Callable[[], Move | None]


class InstructedTable(Table):
    """A ``Table`` for a game against the computer: a piece of the computer's colour is ruled only when
    it is the instruction for the position (``told()``); any other is flagged to be taken off."""

    def __init__(self, referee: Referee, resumed: bool, computer: Colour, told: Told) -> None:
        super().__init__(referee, resumed=resumed)
        self.computer = computer
        self._told = told

    def instructed_move(self) -> tuple[Colour, Move] | None:
        """The computer's piece to lay now, when it has chosen one (the scripted game lays it)."""
        if self.referee.over or self.referee.to_move is not self.computer:
            return None
        move = self._told()
        return (self.computer, move) if move is not None else None

    def rule(self, new: dict[Cell, tuple[Colour, Piece]], flags: dict[Cell, Flag]) -> list:
        ours = {cell: what for cell, what in new.items() if what[0] is self.computer}
        if not ours or self.referee.over:
            return super().rule(new, flags)
        told = self.instructed_move()
        laid = told is not None and ours.get(told[1].cell) == (self.computer, told[1].piece)
        if laid and len(ours) == 1:
            return super().rule(new, flags)
        wrong = [(cell, what) for cell, what in ours.items()
                 if not (laid and told is not None and cell == told[1].cell)]
        for cell, what in wrong:
            self.take_off(cell, what, flags, self._advice(cell, what, told))
        first = flags[wrong[0][0]]
        for cell, what in new.items():
            if cell not in flags:    # the rest waits, as behind any piece that must come off
                flags[cell] = held(cell, what, first)
        return []

    def _advice(self, cell: Cell, what: tuple[Colour, Piece], told: tuple[Colour, Move] | None) -> Flag:
        piece = what[1]
        kind = FlagKind.REJECTED_PIECE
        if told is None:
            if self.referee.to_move is self.computer:
                return flag(kind, cell, "computer-not-chosen",
                            f"the computer has not chosen its move yet: take the {describe(what)} off {cell} "
                            "and wait for its instruction", what=what)
            mover = self.referee.to_move.title if self.referee.to_move else "nobody"
            return flag(kind, cell, "computer-not-its-turn",
                        f"it is {mover}'s turn, not the computer's: take the {describe(what)} off {cell}",
                        what=what, mover=self.referee.to_move)
        colour, move = told
        if cell == move.cell and piece.kind is move.piece.kind:
            return flag(kind, cell, "computer-turn-it",
                        f"that is not the computer's move: turn the {colour.value} {piece.kind.value} on {cell} to "
                        f"{move.piece} (its wave running {wave_words(move.piece)})",
                        colour=colour, kind_of=piece.kind, piece=move.piece)
        return flag(kind, cell, "computer-wrong",
                    f"that is not the computer's move: take the {describe(what)} off {cell} and put the "
                    f"{move.piece.describe(colour)} on {move.cell}", what=what, want=(colour, move.piece),
                    to=str(move.cell))
