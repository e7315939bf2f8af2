"""The Watcher: camera frames in, refereed moves and observations out. Shared by ``thoughtwave referee
--frames`` and the companion.

Each frame goes through one recogniser (frame -> ``BoardReading``), one stabiliser (readings -> steady
views of the board) and one table (steady views -> verdicts and flags, engine.table). ``feed`` answers
with typed events (``vision.events``): ``Ruled`` verdicts, ``BoardSeen`` (found, lost, moved, empty),
``HandOver``, ``Unreadable``, ``Flagged`` and ``Cleared``, each with its frame index; ``events.to_json``
turns them into the ``referee --frames`` lines. ``BoardSeen(MOVED)`` (the board was bumped) is followed
by ``BoardSeen(FOUND)`` once it is steady again.

A Watcher is synchronous and holds no global state: the companion runs one in its camera thread and
reads ``status``, ``hand_seconds``, ``flags``, ``snapshot()`` and ``overlay`` under its own lock.

>>> watcher = Watcher(Rules())                       # doctest: +SKIP
>>> for frame in frames: print([to_json(e) for e in watcher.feed(frame)])  # doctest: +SKIP
"""

from __future__ import annotations

import logging
from typing import Any, Protocol

import cv2
import numpy as np

from thoughtwave.engine.cells import Cell
from thoughtwave.engine.referee import Referee, Rules
from thoughtwave.engine.table import Table
from thoughtwave.vision.causes import LOST_MESSAGE, cause_message
from thoughtwave.vision.events import BoardChange, BoardSeen, Event, HandOver, from_table
from thoughtwave.vision.reading import BoardReading, CellState
from thoughtwave.vision.sources import Frame
from thoughtwave.vision.stabiliser import (
    HAND,
    SIGNATURE_SIZE,
    STABLE_SECONDS,
    STEADY,
    Stabiliser,
    StableBoard,
    board_signature,
)

log = logging.getLogger(__name__)


class Reader(Protocol):
    """What the Watcher needs of a recogniser (vision.recognizer.Recognizer)."""

    pose_moved: bool

    def read(self, image: np.ndarray) -> BoardReading: ...

    def draw_overlay(self, image: np.ndarray) -> np.ndarray: ...


class Watcher:
    """Referees a game from camera frames. ``feed`` each frame in order; read ``status`` any time.

    ``referee`` continues a stored game; ``resumed`` (default: whether that game has moves) makes the
    table flag anything on the board the game does not explain. Without ``referee`` a new game is
    played with ``rules``. ``table`` rules instead of a plain ``Table`` over ``referee`` (its own
    referee is then the game): a table with rules of its own, like the computer opponent's.
    ``keep_overlay`` keeps the last frame so ``overlay`` can draw the reader's view on it
    for a preview. ``reader`` replaces the recogniser (tests).

    New pieces are held back from the table while a cell that may hold an earlier move has been
    unreadable for less than ``hold_seconds`` (the players see "can't read G5"); once it is read, the
    table rules on all of them in a legal order. After that long they are ruled without it.
    """

    def __init__(self, rules: Rules | None = None, profile: Any = None, stable_seconds: float = STABLE_SECONDS,
                 referee: Referee | None = None, resumed: bool | None = None, *, reader: Reader | None = None,
                 keep_overlay: bool = True, lost_seconds: float = 1.0, hold_seconds: float = 10.0,
                 table: Table | None = None) -> None:
        if table is None:
            referee = referee if referee is not None else Referee(rules)
            if resumed is None:
                resumed = bool(referee.verdicts)
            table = Table(referee, resumed=resumed)
        self.table = table
        self.referee = table.referee
        if reader is None:
            from thoughtwave.vision.recognizer import Recognizer

            reader = Recognizer(profile=profile)
        self.reader = reader
        self.stabiliser = Stabiliser(stable_seconds=stable_seconds)
        self.keep_overlay = keep_overlay
        self.lost_seconds = lost_seconds
        self._overlay_image: np.ndarray | None = None
        self.frames = 0
        self.frames_with_board = 0
        self._last: tuple[Frame | None, BoardReading | None] = (None, None)
        self.reading: BoardReading | None = None     # what the reader made of the last frame fed
        self._board = "unknown"          # "found" | "lost" | "moved" | "unknown", for found/lost/moved events
        self._missing_since: float | None = None
        # Why the board is lost, as the frames say it: the words of the latest run of frames that agree, since when,
        # and the words the players were last told.
        self._lost_why: tuple[str, float] | None = None
        self._told_lost: str | None = None
        self._was_hand = False
        self._had_tiles = False
        self.hold_seconds = hold_seconds
        self._pending: StableBoard | None = None      # the latest view, until the table has all of it
        self._held: StableBoard | None = None         # the view shown to the table without its new pieces
        self._unreadable_since: dict[Cell, float] = {}
        self.waiting_for: list[Cell] = []              # the unreadable cells new pieces are waiting on

    def feed(self, frame: Frame) -> list[Event]:
        """Read, stabilise and referee one frame; the events it causes (often none)."""
        self.frames += 1
        events: list[Event] = []
        reading = self.reading = self._read(frame.image)
        index = frame.index

        def observe(change: BoardChange, message: str, cause: str | None = None) -> None:
            events.append(BoardSeen(change, message, index, cause))

        if self.reader.pose_moved and self._board == "found":
            observe(BoardChange.MOVED, "the board moved: hold on while it is found again")
            self._board = "moved"
            self.stabiliser.unsettle()     # cells read under the old pose prove nothing now
        if reading.board_found:
            self.frames_with_board += 1
            self._missing_since = self._lost_why = None
            if self._board in ("unknown", "lost"):
                observe(BoardChange.FOUND, "found the board")
                self._board = "found"
        else:
            if self._missing_since is None:
                self._missing_since = frame.t
            lost = reading.lost
            why = lost.message() if lost is not None else LOST_MESSAGE
            cause = lost.cause.value if lost is not None and lost.cause is not None else None
            if self._lost_why is None or self._lost_why[0] != why:
                self._lost_why = (why, frame.t)
            if self._board != "lost" and frame.t - self._missing_since >= self.lost_seconds - 1e-6:
                observe(BoardChange.LOST, why, cause)
                self._board, self._told_lost = "lost", why
            elif (self._board == "lost" and why != self._told_lost
                  and frame.t - self._lost_why[1] >= self.lost_seconds - 1e-6):
                # Lost for another reason now, for as long as it takes to say the board is lost (the lamp turned away
                # from the camera, the markers still covered): the players are told the new one.
                observe(BoardChange.LOST, why, cause)
                self._told_lost = why

        view = self.stabiliser.feed(frame.t, reading, self._signature(frame.image, reading))
        hand = self.stabiliser.status == HAND
        if hand and not self._was_hand:
            events.append(HandOver("hand over the board", index))
        self._was_hand = hand
        if self._board == "moved" and self.stabiliser.status == STEADY:
            observe(BoardChange.FOUND, "found the board again where it lies now")
            self._board = "found"

        if view is not None:
            if view.is_empty() and self._had_tiles:
                observe(BoardChange.EMPTY, "the board is empty")
            self._had_tiles = not view.is_empty()
            self._pending = view
            for cell in view.unreadable():
                self._unreadable_since.setdefault(cell, frame.t)
            for cell in [c for c in self._unreadable_since if c not in view.cells or
                         view.cells[c].state is not CellState.UNREADABLE]:
                del self._unreadable_since[cell]
        if self._pending is not None:
            events += self._present(self._pending, frame)
        if self.keep_overlay:
            self._overlay_image = frame.image
        self._last = (frame, reading)
        return events

    def _present(self, view: StableBoard, frame: Frame) -> list[Event]:
        """Give a steady view to the table, holding back new pieces while a cell that may hold an
        earlier move cannot be read (else the order of turns could be judged wrong)."""
        seen = view.seen()
        expected = self.table.expected()
        doubtful = [c for c, since in self._unreadable_since.items()
                    if c not in expected and frame.t - since < self.hold_seconds]
        new = [c for c, what in seen.items() if what is not None and c not in expected and c not in self.table.flags]
        self.waiting_for = sorted(doubtful) if doubtful and new else []
        if doubtful and new:
            if view is self._held:
                return []          # already shown to the table without the new pieces
            self._held = view
            for cell in new:       # neither seen nor unreadable: the table leaves the cell alone for now
                del seen[cell]
        else:
            self._pending = self._held = None
        reasons = {cell: cause_message(cause, cell) for cell, cause in view.causes.items()}
        return [from_table(event, frame.index, view.causes)
                for event in self.table.observe(seen, view.unreadable(), reasons)]

    @property
    def status(self) -> str:
        """What the camera sees, for the display: "no board", "hand over the board", "settling", "steady"."""
        return self.stabiliser.status

    @property
    def hand_seconds(self) -> float:
        """How long something has been covering the board (0 when nothing is)."""
        return self.stabiliser.hand_seconds

    @property
    def flags(self) -> dict:
        """The table's standing flags by cell (``engine.table.Flag``)."""
        return self.table.flags

    def summary(self) -> dict:
        """The last line of ``referee --frames``: ``{"result", "moves", "frames"}``."""
        return {"result": self.referee.result, "moves": len(self.referee.verdicts), "frames": self.frames}

    # ---- internals -----------------------------------------------------------------------------
    def _read(self, image: np.ndarray) -> BoardReading:
        if not isinstance(image, np.ndarray) or image.ndim not in (2, 3) or image.size == 0:
            return BoardReading(False)
        try:
            return self.reader.read(image)
        except cv2.error as err:   # a frame OpenCV cannot digest is a frame without a board, not a crash
            log.warning("could not read a frame: %s", err)
            return BoardReading(False)

    def _signature(self, image: np.ndarray, reading: BoardReading) -> np.ndarray | None:
        """The stabiliser's motion witness: a thumbnail of the board seen from above.

        Taken from the reader's own warped board when it keeps one, else warped here from the reader's
        pose (the recogniser's ``pose`` and ``finder``), else the whole frame. None when the picture
        is of a kind OpenCV cannot shrink (the reading alone then judges motion)."""
        if not reading.board_found:
            return None
        try:
            return self._thumbnail(image)
        except (cv2.error, ValueError):
            return None

    def _thumbnail(self, image: np.ndarray) -> np.ndarray:
        warped = getattr(self.reader, "warped", None)
        if isinstance(warped, np.ndarray) and warped.size:
            return board_signature(warped)
        pose = getattr(self.reader, "pose", None)
        finder = getattr(self.reader, "finder", None)
        if pose is not None and hasattr(finder, "grid_to_image") and hasattr(finder, "geometry"):
            # A 4x oversampled warp, then area-averaged: a direct 40x40 warp would alias print and noise.
            side = 4 * SIGNATURE_SIZE
            scale = finder.geometry.size / side
            to_frame = finder.grid_to_image(pose) @ np.diag([scale, scale, 1.0])
            small = cv2.warpPerspective(image, to_frame, (side, side), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                        borderMode=cv2.BORDER_REPLICATE)
            return board_signature(small)
        return board_signature(image)

    @property
    def overlay(self) -> np.ndarray | None:
        """The last frame with what the reader saw drawn over it, drawn when asked (a preview wants a few
        a second, not every frame); None before the first frame or without ``keep_overlay``."""
        image = self._overlay_image
        return None if image is None else self._overlay(image)

    def _overlay(self, image: np.ndarray) -> np.ndarray:
        try:
            return self.reader.draw_overlay(image)
        except Exception:  # the preview is cosmetic: a drawing failure must never stop the refereeing
            log.exception("could not draw the overlay")
            return image

    def snapshot(self) -> dict:
        """The watcher's state as JSON for a display or a log: status, unreadable cells, flags, turn."""
        frame, reading = self._last
        st = self.stabiliser
        view = st.accepted
        return {
            "frame": frame.index if frame else None,
            "status": st.status,
            "hand_seconds": round(st.hand_seconds, 1),
            "board_found": bool(reading and reading.board_found),
            "unreadable": [str(c) for c in view.unreadable()] if view else [],
            "waiting_for": [str(c) for c in self.waiting_for],
            "flags": [f.to_json() for f in self.table.flags.values()],
            "next": self.referee.to_move.value if self.referee.to_move else None,
            "result": self.referee.result,
            "ms": round(reading.ms, 1) if reading else None,
        }
