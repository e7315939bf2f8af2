"""The companion loop: camera -> watcher (reader, stabiliser, table, referee) -> store -> published snapshot.

One thread reads frames at the camera's pace and feeds them to the session's watcher; every verdict is
committed to the store before the new state is published. Readers (the web server, tests) only see
published ``Snapshot``s (immutable, numbered, with a Condition to wait on) and the latest preview
picture (a one-picture slot, so a slow viewer never holds up capture). A lost camera is retried with
exponential backoff and shown. Control actions (new game, undo, correct, end) come from other threads
and take the same lock as the loop.

Cases (``thoughtwave.cases``, given as a ``CaseBook``): the loop keeps a reference to the last picture and
what the watcher read in it, for a player's "Report a misread" (``report_misread``, saved on the
caller's thread), and hands the first unreadable frames of a game (a steady board with a cell it cannot
read) to one worker thread that saves them, so the camera thread never encodes or writes a picture. A
case that cannot be saved is logged in one line; the game goes on.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import wait as wait_for
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np

from thoughtwave.cases import NO_FRAME, NOT_KEPT, REPORT, UNREADABLE, CaseBook, CaseNotSaved, board_text
from thoughtwave.engine import Colour, Rules
from thoughtwave.game.opponent import Opponent, Searcher, Thinker
from thoughtwave.game.seams import Frame, MakeWatcher, OpenCamera, Source, Watch
from thoughtwave.game.session import Done, Session
from thoughtwave.game.snapshot import Camera, Notice, Snapshot
from thoughtwave.game.store import GameRow, Store
from thoughtwave.vision.reading import BoardReading
from thoughtwave.vision.stabiliser import STEADY

log = logging.getLogger(__name__)

#: Raw camera pictures kept for the calibration page (references only: no copy per frame).
RECENT_IMAGES = 3


@dataclass(frozen=True)
class Settings:
    """How the loop behaves; the defaults suit a Pi."""

    hand_warning_seconds: float = 10.0
    preview_fps: float = 5.0          # preview pictures a second at most (the overlay is drawn for each)
    backoff_start: float = 0.5
    backoff_cap: float = 10.0
    stall_seconds: float = 5.0        # no frame for this long: the camera counts as lost
    speech: bool = True
    auto_new_game: bool = True        # a finished game whose board is cleared makes way for the next


@dataclass(frozen=True)
class Reply:
    """A control action's answer: the state published after it, and what it did for the player."""

    snapshot: Snapshot
    done: Done


def is_picture(image: Any) -> bool:
    """Whether ``image`` is a picture a preview can show: 8-bit grey, BGR or BGRA, at least 2x2."""
    return (isinstance(image, np.ndarray) and image.ndim in (2, 3) and image.size > 0 and min(image.shape[:2]) >= 2
            and image.dtype == np.uint8 and (image.ndim == 2 or image.shape[2] in (1, 3, 4)))


class Companion:
    """Runs the loop and holds the live game; thread-safe. ``start()``, ``stop()``, ``state()``.

    ``make_computer`` gives the computer player for a game against it, searched in a thread (tests pass
    a fake); by default the engine's computer searches in a worker process. ``monotonic`` and ``wall``
    are the clocks (frame rate and backoff; verdict times). ``cases`` keeps misread and unreadable frames
    (None: none are kept)."""

    def __init__(self, store: Store, rules: Rules, open_camera: OpenCamera, make_watcher: MakeWatcher,
                 settings: Settings | None = None, make_computer: Callable[[Opponent], Searcher] | None = None,
                 *, monotonic: Callable[[], float] = time.monotonic, wall: Callable[[], float] = time.time,
                 cases: CaseBook | None = None) -> None:
        self.store = store
        self.cases = cases
        self.settings = settings or Settings()
        self.thinker = Thinker(make_computer)
        self._open_camera = open_camera
        self._monotonic, self._wall = monotonic, wall
        self._lock = threading.RLock()            # the game: session, watcher, camera state
        self._changed = threading.Condition()     # published snapshots
        self._preview = threading.Condition()     # latest preview picture
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._source: Source | None = None
        self._snapshot: Snapshot | None = None
        self._listeners: list[Callable[[Snapshot], None]] = []
        self._picture: np.ndarray | None = None
        self._picture_seq = 0
        self._last_preview = -float("inf")
        self._camera = Camera("starting", "starting the camera")
        self._recent: tuple[Any, ...] = ()   # the last few raw camera pictures, newest last
        self._seen: tuple[np.ndarray, BoardReading] | None = None   # the last picture and its reading
        self._capture_game: int | None = None   # the game the automatic capture counts for
        self._saver: ThreadPoolExecutor | None = None
        self._saving: Future | None = None       # the unreadable frame being saved
        self.frames = 0                      # frames read
        self.bad_frames = 0                  # frames the watcher could not take
        self._session = Session(store, rules, make_watcher, self.thinker,
                                hand_warning_seconds=self.settings.hand_warning_seconds,
                                auto_new_game=self.settings.auto_new_game, wall=wall)

    # ---- what others may look at -----------------------------------------------------------------------
    @property
    def game(self) -> GameRow:
        """The stored row of the game being played."""
        with self._lock:
            return self._session.game

    @property
    def watcher(self) -> Watch:
        """The watcher looking at the board now (replaced with each new table)."""
        with self._lock:
            return self._session.watcher

    def game_rules(self) -> Rules:
        """The rules the current game is played with."""
        with self._lock:
            return self._session.game.rules

    def game_opponent(self) -> Opponent | None:
        """The computer's side in the current game (None: two people)."""
        with self._lock:
            return self._session.opponent

    def state(self) -> Snapshot:
        """The latest published snapshot (the first is published when asked for before ``start``)."""
        with self._changed:
            if self._snapshot is not None:
                return self._snapshot
        return self.refresh()

    def wait_for_change(self, version: int, timeout: float) -> Snapshot | None:
        """The snapshot once its version differs from ``version``; None after ``timeout`` or on stop."""
        with self._changed:
            self._changed.wait_for(lambda: self._version() != version or self._stop.is_set(), timeout)
            if self._version() != version:
                return self._snapshot
        return None

    def listen(self, listener: Callable[[Snapshot], None]) -> None:
        """Call ``listener`` with every snapshot as it is published (on the publishing thread, with the
        loop's lock held: it must be quick and must not call back into the companion)."""
        with self._lock:
            self._listeners.append(listener)

    def preview(self) -> tuple[int, np.ndarray | None]:
        """(sequence number, the latest preview picture or None): what the camera saw, with the reader's
        overlay when it draws one. Never change the picture."""
        with self._preview:
            return self._picture_seq, self._picture

    def wait_for_preview(self, seq: int, timeout: float) -> tuple[int, np.ndarray | None]:
        """The next preview after ``seq`` (or the same one after ``timeout``)."""
        with self._preview:
            self._preview.wait_for(lambda: self._picture_seq != seq or self._stop.is_set(), timeout)
            return self._picture_seq, self._picture

    def recent_images(self) -> tuple[Any, ...]:
        """The last few raw camera pictures, oldest first; shared with the loop, so never change them."""
        return self._recent

    @property
    def stopping(self) -> bool:
        return self._stop.is_set()

    # ---- control ------------------------------------------------------------------------------------------
    def refresh(self) -> Snapshot:
        """Publish the game as it stands (and let the computer think if it is to move); the new snapshot."""
        with self._lock:
            return self._publish()

    def use_watchers(self, make_watcher: MakeWatcher) -> Snapshot:
        """Watch with watchers from ``make_watcher`` from now on (e.g. after calibration wrote a new
        profile); the game goes on, and the new table checks the board against it."""
        with self._lock:
            self._session.use_watchers(make_watcher)
            return self._publish()

    def new_game(self, rules: Rules | None = None, red: str = "", black: str = "",
                 opponent: Opponent | None = None) -> Snapshot:
        """End the current game (as it stands) and start another (``opponent``: against the computer,
        which plays that side)."""
        with self._lock:
            session = self._session
            session.new_game(rules or session.game.rules, red, black, resumed=True, opponent=opponent)
            return self._publish()

    def end_game(self) -> Snapshot:
        """End the current game as it stands (``end``); the state after it."""
        return self.end().snapshot

    def end(self) -> Reply:
        """End the current game as it stands, starting no other: the board is not ruled on until it is cleared
        (then the next game starts, with the same rules, players and opponent) or a new game is asked for.
        ControlError when it has already ended."""
        with self._lock:
            done = self._session.end()
            return Reply(self._publish(), done)

    def undo(self) -> Snapshot:
        """Take back the last legal or illegal verdict (``take_back``); the state after it."""
        return self.take_back().snapshot

    def take_back(self) -> Reply:
        """Take back the last legal or illegal verdict (its piece must come off the board); ControlError
        when there is none."""
        with self._lock:
            done = self._session.undo()
            return Reply(self._publish(), done)

    def correct(self, cell: str, colour: str | None, piece: str | None) -> Snapshot:
        """Correct a misread cell (``correct_cell``); the state after it."""
        return self.correct_cell(cell, colour, piece).snapshot

    def correct_cell(self, cell: str, colour: str | None, piece: str | None) -> Reply:
        """The camera misread ``cell``: it really holds ``colour piece`` (piece None: nothing). The reply says
        whether that was applied, refused by the referee, or waits for the board; ControlError with the
        reason when it cannot be done at all."""
        with self._lock:
            done = self._session.correct(cell, colour, piece, self._wall())
            return Reply(self._publish(), done)

    # ---- the thread -----------------------------------------------------------------------------------------
    def start(self) -> None:
        """Start the loop thread (and publish the first state)."""
        self.refresh()
        self._thread = threading.Thread(target=self._run, name="companion", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the loop, close the camera and end the computer's worker."""
        self._stop.set()
        with self._changed:
            self._changed.notify_all()
        with self._preview:
            self._preview.notify_all()
        if self._thread is not None:
            self._thread.join(timeout)
        self._close_source()
        self.thinker.close()
        if self._saver is not None:
            self._saver.shutdown(wait=True, cancel_futures=True)   # a case is written whole or not at all

    def _close_source(self) -> None:
        source, self._source = self._source, None
        if source is not None:
            try:
                source.close()
            except Exception:  # a dying camera may fail to close; it is dropped either way
                log.debug("closing the camera failed", exc_info=True)

    def _run(self) -> None:
        failures = 0
        last_frame = self._monotonic()
        times: deque[float] = deque(maxlen=30)   # recent frame times, for the frame rate shown
        while not self._stop.is_set():
            try:
                if self._source is None:
                    self._source = self._open_camera()
                    last_frame = self._monotonic()
                frame = self._source.read()
            except Exception as err:  # CameraError, or any failure of a driver: the camera is lost
                failures += 1
                self._camera_lost(str(err) or type(err).__name__, failures)
                continue
            now = self._monotonic()
            if frame is None:
                if now - last_frame > self.settings.stall_seconds:
                    failures += 1
                    self._camera_lost("the camera stopped giving pictures", failures)
                else:
                    self._stop.wait(0.01)
                continue
            fps = self._camera.fps
            last_frame = now
            times.append(now)
            if len(times) > 1 and times[-1] > times[0]:
                fps = round((len(times) - 1) / (times[-1] - times[0]), 1)
            with self._lock:
                if failures or self._camera.state != "ok":
                    failures = 0
                    self._camera = Camera("ok", "", fps)
                    self._publish()
                else:
                    self._camera = Camera("ok", "", fps)
            self.process(frame)

    def _camera_lost(self, reason: str, failures: int) -> None:
        self._close_source()
        self._recent = ()   # a lost camera's last pictures no longer show the board as it is
        self._seen = None
        delay = min(self.settings.backoff_cap, self.settings.backoff_start * 2 ** (failures - 1))
        if failures == 1 or failures % 10 == 0:
            log.warning("camera lost (%s); retrying in %.1f s", reason, delay)
        with self._lock:
            self._camera = Camera("lost", f"camera lost: {reason}", 0.0, round(delay, 2))
            self._publish()
        self._stop.wait(delay)

    def process(self, frame: Frame) -> None:
        """The loop's work for one frame: watch it, store and publish what it changed, and keep it for the
        preview when one is due. The loop thread calls it; tests may drive it frame by frame instead."""
        seen = self._wall()
        self.frames += 1
        image = frame.image
        if image is not None:
            # A new tuple, never a changed one: a reader on another thread always gets a whole one.
            self._recent = (*self._recent, image)[-RECENT_IMAGES:]
        with self._lock:
            session = self._session
            fed = session.watcher
            try:
                events = fed.feed(frame)
            except Exception:  # garbage frames (noise, wrong shapes) must never stop the loop
                self.bad_frames += 1
                if self.bad_frames == 1 or self.bad_frames % 100 == 0:
                    log.exception("frame %s could not be read (%d so far)", frame.index, self.bad_frames)
                events = []
            else:
                reading = fed.reading
                if reading is not None and is_picture(image):
                    self._seen = (image, reading)           # references: no copy per frame
                    if self.cases is not None:
                        self._capture(frame.t, image, reading, fed)
            changed = session.handle(events, seen, frame.t)
            changed |= session.apply_truths(seen)
            changed |= session.hand_tick()
            if changed:
                self._publish()
            watcher = session.watcher
        now = self._monotonic()
        if now - self._last_preview >= 1.0 / self.settings.preview_fps:
            # Asked for only when a preview is due: the watcher draws its overlay on demand.
            overlay = watcher.overlay
            self._keep_preview(overlay if overlay is not None else image, now)

    # ---- cases ----------------------------------------------------------------------------------------------
    def _capture(self, t: float, image: np.ndarray, reading: BoardReading, watcher: Watch) -> None:
        """Hand this frame to the saver if it is one of the game's first unreadable ones (lock held; cheap
        unless it is: then the board is put in words and the saving starts on the saver's thread)."""
        assert self.cases is not None
        capture = self.cases.capture
        game = self._session.game.id
        if game != self._capture_game:
            self._capture_game = game
            capture.new_game()
        if watcher.status != STEADY or (self._saving is not None and not self._saving.done()):
            return       # a hand or a moving board is no misread; one case is saved at a time
        if not capture.take(t, reading):
            return
        board = board_text(watcher.table.expected())
        if self._saver is None:
            self._saver = ThreadPoolExecutor(max_workers=1, thread_name_prefix="cases")
        try:
            self._saving = self._saver.submit(self._keep_unreadable, image, reading, board)
        except RuntimeError:   # stopping: the saver takes no more (a frame seen while the loop ends)
            log.debug("the companion is stopping: an unreadable frame is not kept")

    def _keep_unreadable(self, image: np.ndarray, reading: BoardReading, board: dict[str, str]) -> Path | None:
        assert self.cases is not None
        try:
            path = self.cases.save(image, reading, board, UNREADABLE, self.cases.capture.note(reading))
        except Exception as err:  # CaseNotSaved (full, read-only) or anything else: the game goes on
            log.warning("could not keep an unreadable frame as a case: %s", err)
            return None
        log.info("kept an unreadable frame as the case %s", path)
        return path

    def cases_settled(self, timeout: float) -> bool:
        """Wait (up to ``timeout`` seconds) for the unreadable frame being saved, if any; whether none is."""
        saving = self._saving
        return saving is None or not wait_for([saving], timeout).not_done

    def report_misread(self, note: str = "") -> Path:
        """A player says the camera misread the board: keep the last picture, what the reader read in it, the
        board as the game knows it and the calibration profile as a case (``REPORT``); its folder. Saved on
        the caller's thread (the loop goes on meanwhile). CaseNotSaved says why not: no cases kept here, no
        picture read yet, no room, a full disk or a folder that cannot be written."""
        if self.cases is None:
            raise CaseNotSaved(NOT_KEPT, "cases are not kept: the companion has no state directory")
        with self._lock:
            seen = self._seen
            board = board_text(self._session.watcher.table.expected())
        if seen is None:
            raise CaseNotSaved(NO_FRAME, "the camera has given no picture to keep yet", self.cases.folder)
        image, reading = seen
        return self.cases.save(image, reading, board, REPORT, note)

    def _keep_preview(self, image: Any, now: float) -> None:
        if not is_picture(image):   # not a picture: the next frame may be one
            return
        self._last_preview = now
        # A copy: a camera driver may reuse its buffer while a viewer still encodes this one.
        picture = image.copy()
        with self._preview:
            self._picture, self._picture_seq = picture, self._picture_seq + 1
            self._preview.notify_all()

    # ---- publishing -------------------------------------------------------------------------------------------
    def _version(self) -> int:
        return 0 if self._snapshot is None else self._snapshot.version

    def _publish(self) -> Snapshot:
        """Snapshot the game (lock held), wake every waiting reader and tell the listeners."""
        session = self._session
        session.think(self._answered, self._stop.is_set())
        snapshot = self._take(self._version() + 1)
        with self._changed:
            self._snapshot = snapshot
            self._changed.notify_all()
        for listener in self._listeners:
            listener(snapshot)
        return snapshot

    def _take(self, version: int) -> Snapshot:
        session = self._session
        referee = session.log.referee
        notices = session.notices()
        camera = self._camera
        if camera.state == "lost":
            notices.insert(0, Notice("camera", None, f"{camera.message}; trying again in {camera.retry_in} s"))
        if session.storage_error:
            notices.insert(0, Notice("storage", None, session.storage_error))
        left = MappingProxyType({c: MappingProxyType(dict(referee.inventory[c])) for c in Colour})
        return Snapshot(
            version=version, game=session.game, rules=referee.rules, verdicts=tuple(referee.verdicts),
            next=referee.to_move, winner=referee.winner, draw=referee.draw, result=referee.result, left=left,
            wave=tuple(referee.winning_wave()), notices=tuple(notices), status=str(session.watcher.status),
            camera=camera, speech=self.settings.speech, seen=session.seen, decided=session.decided,
            frame_t=session.frame_t, analysis=session.analysis.update(referee), computer=session.computer_turn())

    def _answered(self, key: Any, choice: Any, error: str | None) -> None:
        """The search thread's answer: shown if the position is still the one searched, else dropped."""
        with self._lock:
            current = key == self._session.position()
            self.thinker.settle(key, choice, error, current)
            if current:
                self._publish()
            else:
                self._session.think(self._answered, self._stop.is_set())   # search the position there is now
