"""What the loop publishes after every change: an immutable ``Snapshot`` of the game and the camera.

A display reads snapshots from any thread while the loop goes on (nothing in one is ever changed);
``webui.view`` turns one into the JSON of ``/api/state`` and the Server-Sent Events.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

from thoughtwave.engine import Cell, Colour, Kind, Rules, Verdict
from thoughtwave.engine.analysis import Analysis
from thoughtwave.engine.phrases import Phrase
from thoughtwave.game.opponent import Instruction, Opponent
from thoughtwave.game.store import GameRow


@dataclass(frozen=True)
class Notice:
    """A problem shown to the players: a table flag (its ``FlagKind`` value and cell) or one of the loop's
    own (``camera``, ``storage``, ``hand``, ``board-lost``, ``board-moved``; no cell)."""

    kind: str
    cell: Cell | None
    message: str
    why: Phrase | None = None    # a table flag's message as a code and values (the display translates it)


@dataclass(frozen=True)
class Camera:
    """The camera as the loop last found it: ``state`` is ``starting``, ``ok`` or ``lost``."""

    state: str
    message: str
    fps: float = 0.0
    retry_in: float | None = None      # seconds until the next try, while lost


@dataclass(frozen=True)
class ComputerTurn:
    """The computer opponent in the position now: whether it is to move, its instruction once chosen, or
    why it has none."""

    opponent: Opponent
    to_move: bool
    instruction: Instruction | None
    error: str | None

    @property
    def thinking(self) -> bool:
        return self.to_move and self.instruction is None and self.error is None


@dataclass(frozen=True)
class Snapshot:
    """The game and the camera at one moment; ``version`` grows by one with each publish."""

    version: int
    game: GameRow
    rules: Rules
    verdicts: tuple[Verdict, ...]
    next: Colour | None
    winner: Colour | None
    draw: bool
    result: str
    left: MappingProxyType[Colour, MappingProxyType[Kind, int]]
    wave: tuple[Cell, ...]
    notices: tuple[Notice, ...]
    status: str                       # the watcher's view of the board: "steady", "hand over the board", ...
    camera: Camera
    speech: bool
    seen: float                       # wall time the frame behind the last verdict was read (0: none yet)
    decided: float                    # wall time that verdict was decided
    frame_t: float | None             # that frame's own time (the camera's clock)
    analysis: tuple[Analysis, ...]    # one per position of the game, the first before any move
    computer: ComputerTurn | None     # None: a game of two people
