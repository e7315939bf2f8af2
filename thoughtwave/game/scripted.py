"""Games without a camera: ``thoughtwave serve --moves FILE`` (a display demo) and the tests.

``ScriptedSource`` gives frames with no picture; ``ScriptedGame`` lays typed moves on a pretend board
and its ``ScriptedWatcher`` shows that board to a real ``engine.table.Table``, which rules on it as it
would on a camera's steady view.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any

from thoughtwave.engine import CELLS, Cell, Colour, NotationError, Piece, parse_move_line
from thoughtwave.engine.table import Table
from thoughtwave.game.opponent import InstructedTable
from thoughtwave.game.seams import Frame
from thoughtwave.vision.events import BoardChange, BoardSeen, Event, HandOver, from_table

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ScriptFrame:
    """A frame of a camera-less source: the index and time; no picture."""

    index: int
    t: float
    image: Any = None


class ScriptedSource:
    """Frames with no picture at ``fps``; with ``realtime`` False they come at once, their times still
    ``index / fps`` (a fast clock for tests)."""

    def __init__(self, fps: float = 10.0, realtime: bool = True) -> None:
        self.fps = fps
        self.realtime = realtime
        self._index = 0
        self._start = time.monotonic()

    def read(self) -> ScriptFrame:
        if self.realtime and self.fps > 0:
            delay = self._start + self._index / self.fps - time.monotonic()
            if delay > 0:
                time.sleep(delay)
        self._index += 1
        return ScriptFrame(self._index, self._index / self.fps if self.fps > 0 else 0.0)

    def close(self) -> None:
        pass


class ScriptedGame:
    """A pretend board played from a script, ruled by a real ``Table``; one step every ``frames_per_step``.

    Script lines: a move line ``[red|black] PIECE@CELL`` lays a piece; ``off CELL`` takes one off;
    ``hand STEPS`` covers the board for that many steps; ``unreadable CELL`` makes a cell unreadable
    for the next view; ``wait STEPS`` does nothing; ``clear`` takes every piece off (and tells the
    companion the board is empty); ``computer`` lays exactly the piece the computer opponent told the
    display (waiting until it has chosen). ``#`` starts a comment. With ``loop`` the script starts again.
    """

    def __init__(self, lines: list[str], frames_per_step: int = 1, loop: bool = False) -> None:
        self.steps = [line.split("#", 1)[0].strip() for line in lines]
        self.steps = [s for s in self.steps if s]
        self.frames_per_step = max(1, frames_per_step)
        self.loop = loop
        self.position = 0
        self.frames = 0
        self.board: dict[Cell, tuple[Colour, Piece]] = {}
        self.hand_steps = 0
        self.hand_since: float | None = None   # frame time the hand came
        self.t = 0.0                            # frame time now
        self.waiting = 0

    def watcher(self, table: Table) -> ScriptedWatcher:
        """A watcher over this script ruling with ``table`` (the script's place is kept across watchers)."""
        return ScriptedWatcher(self, table)


class ScriptedWatcher:
    """Feeds a ``ScriptedGame``'s pretend board to a ``Table``: the companion's watcher without vision."""

    def __init__(self, game: ScriptedGame, table: Table) -> None:
        self.game = game
        self.table = table
        self.status = "steady"
        self.overlay = None          # no picture to draw on
        self.reading = None          # nothing is read: a scripted game gives no cases
        self._looked = False

    @property
    def hand_seconds(self) -> float:
        """How long the hand has lain over the pretend board, in frame time."""
        since = self.game.hand_since
        return 0.0 if since is None else self.game.t - since

    def feed(self, frame: Frame) -> list[Event]:
        game = self.game
        game.t = float(frame.t)
        if not self._looked:  # a camera's first steady view: the board as it lies now
            self._looked = True
            return self._observe()
        game.frames += 1
        if game.frames % game.frames_per_step:
            return []
        if game.hand_steps > 0:
            game.hand_steps -= 1
            if game.hand_steps == 0:
                game.hand_since = None
                self.status = "steady"
                return self._observe()
            return []
        if game.waiting > 0:
            game.waiting -= 1
            return []
        if game.position >= len(game.steps):
            if not game.loop:
                return []
            game.position = 0
        step = game.steps[game.position]
        game.position += 1
        return self._step(step)

    def _step(self, step: str) -> list[Event]:
        game = self.game
        word, _, rest = step.partition(" ")
        word = word.lower()
        try:
            if word == "off":
                game.board.pop(Cell.parse(rest), None)
            elif word == "hand":
                game.hand_steps = max(1, int(rest or 1))
                game.hand_since = game.t
                self.status = "hand"
                return [HandOver("a hand is over the board")]
            elif word == "wait":
                game.waiting = max(0, int(rest or 1) - 1)
                return []
            elif word == "unreadable":
                return self._observe(unreadable=[Cell.parse(rest)])
            elif word == "clear":
                game.board.clear()
                return [*self._observe(), BoardSeen(BoardChange.EMPTY, "the board is empty")]
            elif word == "computer":
                return self._lay_instructed()
            else:
                colour, move = parse_move_line(step)
                game.board[move.cell] = (colour or self.table.referee.to_move or Colour.RED, move.piece)
        except (NotationError, ValueError) as err:
            log.warning("script step %r skipped: %s", step, err)
            return []
        return self._observe()

    def _lay_instructed(self) -> list[Event]:
        """Lay the computer's instructed piece; while it is still thinking, try again next step."""
        table = self.table
        told = table.instructed_move() if isinstance(table, InstructedTable) else None
        if told is None:
            referee = table.referee
            if isinstance(table, InstructedTable) and not referee.over and referee.to_move is table.computer:
                self.game.position -= 1      # the computer is thinking: this step again next time
            else:
                log.warning("script step 'computer' skipped: the computer is not to move")
            return []
        colour, move = told
        self.game.board[move.cell] = (colour, move.piece)
        return self._observe()

    def _observe(self, unreadable: list[Cell] | tuple = ()) -> list[Event]:
        seen = {cell: self.game.board.get(cell) for cell in CELLS if cell not in unreadable}
        return [from_table(event) for event in self.table.observe(seen, unreadable)]


def read_script(text: str) -> list[str]:
    """The lines of a script or moves file (a game record works too: its verdict comments are dropped)."""
    return [line for line in text.splitlines() if line.split("#", 1)[0].strip()]
