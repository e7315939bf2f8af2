"""The companion loop: camera -> watcher (vision, stabiliser, table, referee) -> store -> display.

One thread reads frames at the camera's pace and feeds them to a watcher; every verdict is committed
to the store before the new state is published. The web server only reads published snapshots (an
immutable dict and a version number, with a Condition for Server-Sent Events) and the latest preview
JPEG (a one-frame slot, so a slow browser never holds up capture). A lost camera is retried with
exponential backoff and shown on screen. Control actions (new game, undo, correct, end) come from
request threads and take the same lock as the loop.

The seams, so any part can be swapped or faked:

* ``open_camera() -> source`` with ``read() -> frame | None`` (``frame.image``) and ``close()``;
* ``make_watcher(referee, resumed) -> watcher`` with ``feed(frame) -> list[dict]`` (verdict dicts in
  the ``referee --moves`` shape, observation events ``{"event": ...}``) and, optionally, ``table``
  (an ``engine.table.Table``), ``flags``, ``status``, ``hand_seconds`` and ``overlay``.

``ScriptedGame`` is a watcher without a camera: it lays typed moves on a pretend board and lets a real
``Table`` rule on them; ``thoughtwave serve --moves FILE`` and the tests use it.
"""

from __future__ import annotations

import inspect
import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Protocol

from thoughtwave.engine import CELLS, Cell, Colour, Move, NotationError, Outcome, Piece, Referee, Rules, parse_move_line
from thoughtwave.engine.analysis import Analysis, analyse, analyse_game
from thoughtwave.engine.pieces import KINDS
from thoughtwave.engine.table import Table
from thoughtwave.webui.boardsvg import board_svg
from thoughtwave.webui.opponent import Opponent, Searcher, Thinker, install, opponent_of, position_key
from thoughtwave.webui.store import GameLog, GameRow, Store

log = logging.getLogger(__name__)

#: Raw camera pictures kept for the calibration page (references only: no copy per frame).
RECENT_IMAGES = 3


class ControlError(Exception):
    """A control action that cannot be done now; the message says why, for the player."""


class Source(Protocol):
    def read(self) -> Any: ...

    def close(self) -> None: ...


class Watch(Protocol):
    def feed(self, frame: Any) -> list[dict]: ...


OpenCamera = Callable[[], Source]
MakeWatcher = Callable[[Referee, bool], Watch]


@dataclass(frozen=True)
class Settings:
    """How the loop behaves; the defaults suit a Pi."""

    hand_warning_seconds: float = 10.0
    preview_fps: float = 5.0
    preview_width: int = 640
    jpeg_quality: int = 70
    backoff_start: float = 0.5
    backoff_cap: float = 10.0
    stall_seconds: float = 5.0        # no frame for this long: the camera counts as lost
    speech: bool = True
    auto_new_game: bool = True        # a finished game whose board is cleared makes way for the next


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

    def watcher(self, referee: Referee, resumed: bool) -> ScriptedWatcher:
        """A watcher over this script for ``referee`` (the script's place is kept across watchers)."""
        return ScriptedWatcher(self, Table(referee, resumed=resumed))


class ScriptedWatcher:
    """Feeds a ``ScriptedGame``'s pretend board to a ``Table``: the companion's watcher without vision."""

    def __init__(self, game: ScriptedGame, table: Table) -> None:
        self.game = game
        self.table = table
        self.status = "steady"
        self._looked = False

    @property
    def hand_seconds(self) -> float:
        """How long the hand has lain over the pretend board, in frame time."""
        since = self.game.hand_since
        return 0.0 if since is None else self.game.t - since

    def feed(self, frame: Any) -> list[dict]:
        game = self.game
        t = getattr(frame, "t", None)
        game.t = float(t) if isinstance(t, int | float) else game.t
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

    def _step(self, step: str) -> list[dict]:
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
                return [{"event": "hand", "message": "a hand is over the board"}]
            elif word == "wait":
                game.waiting = max(0, int(rest or 1) - 1)
                return []
            elif word == "unreadable":
                return self._observe(unreadable=[Cell.parse(rest)])
            elif word == "clear":
                game.board.clear()
                return [*self._observe(), {"event": "board-empty", "message": "the board is empty"}]
            elif word == "computer":
                return self._lay_instructed()
            else:
                colour, move = parse_move_line(step)
                game.board[move.cell] = (colour or self.table.referee.to_move or Colour.RED, move.piece)
        except (NotationError, ValueError) as err:
            log.warning("script step %r skipped: %s", step, err)
            return []
        return self._observe()

    def _lay_instructed(self) -> list[dict]:
        """Lay the computer's instructed piece; while it is still thinking, try again next step."""
        table = self.table
        instructed = getattr(table, "instructed_move", None)
        told = instructed() if callable(instructed) else None
        if told is None:
            referee = table.referee
            if callable(instructed) and not referee.over and referee.to_move is getattr(table, "computer", None):
                self.game.position -= 1      # the computer is thinking: this step again next time
            else:
                log.warning("script step 'computer' skipped: the computer is not to move")
            return []
        colour, move = told
        self.game.board[move.cell] = (colour, move.piece)
        return self._observe()

    def _observe(self, unreadable: list[Cell] | tuple = ()) -> list[dict]:
        seen = {cell: self.game.board.get(cell) for cell in CELLS if cell not in unreadable}
        return [event.to_json() for event in self.table.observe(seen, unreadable)]


def read_script(text: str) -> list[str]:
    """The lines of a script or moves file (a game record works too: its verdict comments are dropped)."""
    return [line for line in text.splitlines() if line.split("#", 1)[0].strip()]


def vision_watcher_factory(stable_seconds: float, profile: Any = None) -> MakeWatcher:
    """Watchers from ``vision.watch.Watcher`` (imported here: OpenCV is heavy)."""
    from thoughtwave.vision.watch import Watcher  # noqa: PLC0415 - heavy, and only when a camera is used

    accepted = inspect.signature(Watcher).parameters

    def make(referee: Referee, resumed: bool) -> Watch:
        kwargs: dict[str, Any] = {"referee": referee}
        if "profile" in accepted:
            kwargs["profile"] = profile
        if "stable_seconds" in accepted:
            kwargs["stable_seconds"] = stable_seconds
        if "resumed" in accepted:
            kwargs["resumed"] = resumed
        return Watcher(referee.rules, **kwargs)

    return make


# ---- flags ---------------------------------------------------------------------------------------

_BOARD_FLAGS = ("board-lost", "board-moved")


def _flag_dict(flag: Any) -> dict | None:
    """A table flag (object or JSON dict) as ``{"kind", "cell", "message"}``."""
    if isinstance(flag, dict):
        kind = flag.get("flag") or flag.get("kind") or "flag"
        cell, message = flag.get("cell"), flag.get("message")
    else:
        kind, cell, message = getattr(flag, "kind", "flag"), getattr(flag, "cell", None), getattr(flag, "message", "")
    return {"kind": str(getattr(kind, "value", kind)), "cell": str(cell) if cell else None,
            "message": str(message or "")}


class Companion:
    """Runs the loop and holds the live game; thread-safe. ``start()``, ``stop()``, ``state()``."""

    def __init__(self, store: Store, rules: Rules, open_camera: OpenCamera, make_watcher: MakeWatcher,
                 settings: Settings | None = None,
                 make_computer: Callable[[Opponent], Searcher] | None = None) -> None:
        """``make_computer`` gives the computer player for a game against it, searched in a thread
        (tests pass a fake); by default the engine's computer searches in a worker process."""
        self.store = store
        self.default_rules = rules
        self.settings = settings or Settings()
        self._open_camera = open_camera
        self._make_watcher = make_watcher
        self._lock = threading.RLock()            # the game: log, referee, watcher, flags
        self._changed = threading.Condition()     # published state
        self._preview = threading.Condition()     # latest preview JPEG
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._source: Source | None = None
        self._state: dict = {}
        self._version = 0
        self._jpeg: bytes | None = None
        self._jpeg_seq = 0
        self._last_preview = 0.0
        self._camera = {"state": "starting", "message": "starting the camera", "fps": 0.0, "retry_in": None}
        self._event_flags: dict[tuple[str, str | None], dict] = {}
        self._hand_since: float | None = None
        self._seen = 0.0          # wall time the frame behind the last verdict was read
        self._decided = 0.0       # wall time that verdict was decided
        self._frame_t: float | None = None   # that frame's own time (the camera's clock)
        self._bad_frames = 0
        self._frames = 0
        self._storage_error: str | None = None
        # Corrections of cells the camera keeps misreading, for the rebuilt table once it has looked.
        self._truths: dict[Cell, tuple[Colour, Piece] | None] = {}
        self._overlay: Any = None
        self._recent: tuple[Any, ...] = ()   # the last few raw camera pictures, newest last
        self.opponent: Opponent | None = None   # the computer's side in a game against it
        self._thinker = Thinker(make_computer)
        # One Analysis per position of the game (the chart), and the verdicts they follow: kept in step
        # with the referee at each publish, so a verdict costs one analyse(), not the whole game.
        self._analysis: list[Analysis] = []
        self._analysed: list[tuple] = []
        self._load_latest()

    # ---- game state ------------------------------------------------------------------------------
    def _load_latest(self) -> None:
        game = self.store.latest_game()
        if game is None or (game.ended and game.result == "ongoing"):
            game = self._create_game(self.default_rules, "", "")
        # A game with moves is being resumed: the table checks the board against it before ruling.
        self._start_game(game, resumed=bool(self.store.actions(game.id)))

    def _create_game(self, rules: Rules, red: str, black: str, opponent: Opponent | None = None) -> GameRow:
        if opponent is not None:     # the computer's side is named for the display and the records
            if opponent.colour is Colour.RED:
                red = red or opponent.name
            else:
                black = black or opponent.name
        game_id = self.store.new_game(rules, red, black, opponent.to_json() if opponent else None)
        row = self.store.game(game_id)
        assert row is not None
        return row

    def _start_game(self, game: GameRow, resumed: bool) -> None:
        actions = self.store.actions(game.id)
        self.game = game
        self.log = GameLog.replay(game.rules, actions)
        self.opponent = opponent_of(game.opponent)
        self._thinker.forget()        # a restart or another game: the computer thinks again
        self._analysis, self._analysed = [], []
        # A restarted or changed game: the table checks the board against the stored game.
        self.watcher = self._new_watcher(self.log.referee, resumed)
        self._event_flags = {k: v for k, v in self._event_flags.items() if k[1] is None}
        self._truths = {}

    def _new_watcher(self, referee: Referee, resumed: bool) -> Watch:
        """A watcher for ``referee``; in a game against the computer its table accepts the computer's
        colour only as instructed."""
        watcher = self._make_watcher(referee, resumed)
        if self.opponent is not None and not install(watcher, resumed, self.opponent.colour, self._told):
            log.warning("this watcher has no table: the computer's pieces are ruled without checking the instruction")
        return watcher

    def _told(self) -> Move | None:
        """The computer's instructed move for the position now, once it has chosen."""
        told = self._thinker.instruction(position_key(self.game.id, self.log.referee))
        return told.move if told else None

    # ---- the computer opponent and the analysis ----------------------------------------------------
    def _think(self) -> None:
        """When the computer is to move, have it search this position in the background (lock held)."""
        opponent, referee = self.opponent, self.log.referee
        if opponent is None or referee.over or referee.to_move is not opponent.colour or self._stop.is_set():
            return
        self._thinker.think(position_key(self.game.id, referee), referee, opponent, self._answered)

    def _answered(self, key: Any, choice: Any, error: str | None) -> None:
        """The search thread's answer: shown if the position is still the one searched, else dropped."""
        with self._lock:
            current = key == position_key(self.game.id, self.log.referee)
            self._thinker.settle(key, choice, error, current)
            if current:
                self._publish()
            else:
                self._think()      # the board moved on meanwhile: search the position there is now

    def _computer_state(self) -> dict | None:
        opponent = self.opponent
        if opponent is None:
            return None
        referee = self.log.referee
        to_move = not referee.over and referee.to_move is opponent.colour
        told = self._thinker.instruction(position_key(self.game.id, referee)) if to_move else None
        error = self._thinker.error if to_move and told is None else None
        return {**opponent.to_json(), "name": opponent.name, "to_move": to_move,
                "thinking": to_move and told is None and error is None,
                "instruction": told.to_json() if told else None, "error": error}

    def _update_analysis(self) -> list[Analysis]:
        """The analysis of every position so far, brought up to date with the referee: one new
        position costs one ``analyse``; an undo drops positions; anything else replays the game."""
        referee = self.log.referee
        standing = [(v.n, v.colour, v.move, v.outcome) for v in referee.verdicts if v.outcome is not Outcome.REJECTED]
        have = self._analysed
        same = 0
        while same < min(len(have), len(standing)) and have[same] == standing[same]:
            same += 1
        if self._analysis and same == len(have) == len(standing):
            pass
        elif self._analysis and same == len(have) and len(standing) == same + 1:
            self._analysis.append(replace(analyse(referee), n=standing[-1][0]))
        elif self._analysis and same == len(standing):
            del self._analysis[same + 1:]          # taken back: the earlier positions are as they were
        else:
            self._analysis = analyse_game(referee)
        self._analysed = standing
        return self._analysis

    def _analysis_state(self) -> dict:
        positions = self._update_analysis()
        now = positions[-1]
        colours = [c.value for c in Colour]
        return {
            "distance": {c.value: now.distance[c] for c in Colour},
            "threats": {c.value: [str(cell) for cell in sorted({m.cell for m in now.threats[c]},
                                                               key=lambda cell: cell.index)] for c in Colour},
            "history": [{"n": a.n, **{name: a.distance[Colour(name)] for name in colours}} for a in positions],
        }

    def _sync_result(self) -> None:
        referee = self.log.referee
        self.store.set_result(self.game.id, referee.result, ended=referee.over)
        self.game = self.store.game(self.game.id) or self.game

    # ---- thread ------------------------------------------------------------------------------------
    def start(self) -> None:
        """Start the loop thread (and publish the first state)."""
        with self._lock:
            self._publish()
        self._thread = threading.Thread(target=self._run, name="companion", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the loop and close the camera."""
        self._stop.set()
        with self._changed:
            self._changed.notify_all()
        with self._preview:
            self._preview.notify_all()
        if self._thread is not None:
            self._thread.join(timeout)
        self._close_source()
        self._thinker.close()

    @property
    def stopping(self) -> bool:
        return self._stop.is_set()

    def _close_source(self) -> None:
        source, self._source = self._source, None
        if source is not None:
            try:
                source.close()
            except Exception:  # a dying camera may fail to close; it is dropped either way
                log.debug("closing the camera failed", exc_info=True)

    def _run(self) -> None:
        failures = 0
        last_frame = time.monotonic()
        times: deque[float] = deque(maxlen=30)   # recent frame times, for the frame rate shown
        while not self._stop.is_set():
            try:
                if self._source is None:
                    self._source = self._open_camera()
                    last_frame = time.monotonic()
                frame = self._source.read()
            except Exception as err:  # CameraError, or any failure of a driver: the camera is lost
                failures += 1
                self._camera_lost(str(err) or type(err).__name__, failures)
                continue
            now = time.monotonic()
            if frame is None:
                if now - last_frame > self.settings.stall_seconds:
                    failures += 1
                    self._camera_lost("the camera stopped giving pictures", failures)
                else:
                    self._stop.wait(0.01)
                continue
            if failures or self._camera["state"] != "ok":
                failures = 0
                with self._lock:
                    self._camera = {"state": "ok", "message": "", "fps": self._camera["fps"], "retry_in": None}
                    self._publish()
            last_frame = now
            times.append(now)
            if len(times) > 1 and times[-1] > times[0]:
                self._camera["fps"] = round((len(times) - 1) / (times[-1] - times[0]), 1)
            self._process(frame)

    def _camera_lost(self, reason: str, failures: int) -> None:
        self._close_source()
        self._recent = ()   # a lost camera's last pictures no longer show the board as it is
        delay = min(self.settings.backoff_cap, self.settings.backoff_start * 2 ** (failures - 1))
        if failures == 1 or failures % 10 == 0:
            log.warning("camera lost (%s); retrying in %.1f s", reason, delay)
        with self._lock:
            self._camera = {"state": "lost", "message": f"camera lost: {reason}", "fps": 0.0,
                            "retry_in": round(delay, 2)}
            self._publish()
        self._stop.wait(delay)

    def _process(self, frame: Any) -> None:
        seen = time.time()
        self._frames += 1
        image = getattr(frame, "image", None)
        if image is not None:
            # A new tuple, never a changed one: a reader on another thread always gets a whole one.
            self._recent = (*self._recent, image)[-RECENT_IMAGES:]
        with self._lock:
            try:
                events = list(self.watcher.feed(frame) or [])
            except Exception:  # garbage frames (noise, wrong shapes) must never stop the loop
                self._bad_frames += 1
                if self._bad_frames == 1 or self._bad_frames % 100 == 0:
                    log.exception("frame %s could not be read (%d so far)", getattr(frame, "index", "?"),
                                  self._bad_frames)
                events = []
            changed = self._handle(events, seen, getattr(frame, "t", None))
            changed |= self._apply_truths()
            changed |= self._hand_tick()
            if changed:
                self._publish()
            watcher = self.watcher
        if self._preview_due():
            # Asked for only when a preview is due: the watcher draws its overlay on demand.
            overlay = getattr(watcher, "overlay", None)
            self._maybe_preview(overlay if overlay is not None else getattr(frame, "image", None))

    # ---- events -----------------------------------------------------------------------------------
    def _handle(self, events: list[dict], seen: float, frame_t: float | None = None) -> bool:
        """Store the verdicts (committed before anything is shown) and keep the flags; True if changed."""
        changed = False
        for event in events:
            if not isinstance(event, dict):
                continue
            if "verdict" in event:
                changed = True
                self._hand_since = None
                if not self._store_verdict(event):
                    return True
                self._seen, self._decided = seen, time.time()
                self._frame_t = frame_t if isinstance(frame_t, int | float) else None
            elif "event" in event:
                changed |= self._observe(event)
        return changed

    def _store_verdict(self, event: dict) -> bool:
        colour, move, outcome = event.get("colour"), str(event.get("move", "")), str(event.get("verdict"))
        try:
            self.store.add_attempt(self.game.id, colour, move, outcome, event.get("reason"))
            self.log.observed(colour, move, outcome)
            if event.get("winner") or event.get("draw") or self.game.ended:
                self._sync_result()
            self._storage_error = None
            return True
        except Exception as err:  # disk full, file gone: show nothing unsaved, go back to what is stored
            log.exception("could not store %s %s", colour, move)
            self._storage_error = f"could not save the game ({err}); the last move was not counted"
            self._start_game(self.game, resumed=True)
            return False

    def _observe(self, event: dict) -> bool:
        kind = str(event.get("event"))
        cell = event.get("cell")
        message = str(event.get("message") or "")
        flags = self._event_flags
        if kind == "flag":
            flag = _flag_dict(event)
            if flag:
                flags[(flag["kind"], flag["cell"])] = flag
        elif kind == "cleared":
            if cell:
                for key in [k for k in flags if k[1] == str(cell)]:
                    del flags[key]
            else:
                for key in [k for k in flags if k[1] is None]:
                    del flags[key]
                self._hand_since = None
        elif kind in _BOARD_FLAGS:
            flags[(kind, None)] = {"kind": kind, "cell": None, "message": message or "the board is out of sight"}
        elif kind == "board-found":
            for name in _BOARD_FLAGS:
                flags.pop((name, None), None)
        elif kind == "hand":
            if self._hand_since is None:
                self._hand_since = time.monotonic()
            return False
        elif kind == "unreadable" and cell:
            flags[("unreadable", str(cell))] = {"kind": "unreadable", "cell": str(cell),
                                                "message": message or f"can't read {cell}"}
        elif kind == "board-empty":
            if self.log.referee.over and self.settings.auto_new_game:
                self._new_game_locked(self.game.rules, self.game.red, self.game.black, resumed=False,
                                      opponent=self.opponent)
        else:
            return False
        return True

    def _apply_truths(self) -> bool:
        """Once the table flags a corrected cell (the camera still reads it the old way), tell it the truth."""
        table = getattr(self.watcher, "table", None)
        if not self._truths or not isinstance(table, Table):
            return False
        changed = False
        for cell, truth in list(self._truths.items()):
            if cell in table.flags:
                del self._truths[cell]
                changed |= self._handle([e.to_json() for e in table.correct(cell, truth)], time.time())
        return changed

    def _hand_seconds(self) -> float:
        seconds = getattr(self.watcher, "hand_seconds", None)
        if isinstance(seconds, int | float):
            return float(seconds)
        return 0.0 if self._hand_since is None else time.monotonic() - self._hand_since

    def _hand_tick(self) -> bool:
        showing = ("hand", None) in self._event_flags
        due = self._hand_seconds() >= self.settings.hand_warning_seconds
        if due and not showing:
            self._event_flags[("hand", None)] = {
                "kind": "hand", "cell": None,
                "message": "a hand (or something) has been over the board for a while: please clear the board"}
            return True
        if showing and not due:
            del self._event_flags[("hand", None)]
            return True
        return False

    def _flags(self) -> list[dict]:
        flags = []
        table_flags = getattr(getattr(self.watcher, "table", None), "flags", None)
        if table_flags is None:
            table_flags = getattr(self.watcher, "flags", None)
        if isinstance(table_flags, dict):
            flags = [f for f in map(_flag_dict, table_flags.values()) if f]
            flags += [f for k, f in self._event_flags.items() if k[1] is None]
        else:
            flags = list(self._event_flags.values())
        if self._camera["state"] == "lost":
            retry = self._camera["retry_in"]
            flags.insert(0, {"kind": "camera", "cell": None,
                             "message": f"{self._camera['message']}; trying again in {retry} s"})
        if self._storage_error:
            flags.insert(0, {"kind": "storage", "cell": None, "message": self._storage_error})
        return flags

    # ---- publishing -------------------------------------------------------------------------------
    def _publish(self) -> None:
        """Build the state from the game (lock held) and wake every waiting client."""
        self._think()
        state = self._build_state()
        with self._changed:
            self._version += 1
            state["version"] = self._version
            self._state = state
            self._changed.notify_all()

    def _build_state(self) -> dict:
        referee = self.log.referee
        cells: dict[str, tuple[str, str]] = {}
        last = None
        for v in referee.verdicts:
            if v.cell is not None and v.outcome is not Outcome.REJECTED:
                last = str(v.cell)
                if v.outcome is Outcome.LEGAL and v.colour and v.piece:
                    cells[str(v.cell)] = (v.colour.value, str(v.piece))
        wave = [str(c) for c in referee.winning_wave()]
        flags = self._flags()
        flag_cells = {f["cell"]: f["kind"] for f in flags if f.get("cell")}
        rules = referee.rules
        status = getattr(self.watcher, "status", "")
        analysis = self._analysis_state()
        computer = self._computer_state()
        told = computer["instruction"] if computer else None
        ghost = (told["cell"], told["colour"], told["piece"]) if told else None
        return {
            "game": self.game.to_json(),
            "next": referee.to_move.value if referee.to_move else None,
            "winner": referee.winner.value if referee.winner else None,
            "draw": referee.draw,
            "result": referee.result,
            "left": {c.value: {k.value: referee.inventory[c][k] for k in KINDS} for c in Colour},
            "cells": {name: {"colour": colour, "piece": piece} for name, (colour, piece) in cells.items()},
            "last": last,
            "wave": wave,
            "moves": [{k: v.to_json()[k] for k in ("n", "colour", "move", "verdict", "reason")}
                      for v in referee.verdicts],
            "flags": flags,
            "status": str(getattr(status, "value", status) or ""),
            "camera": dict(self._camera),
            "sides": {c.value: rules.side_names(c) for c in Colour},
            "rules": rules.to_json(),
            "speech": self.settings.speech,
            "seen": self._seen,
            "decided": self._decided,
            "frame_t": self._frame_t,
            "analysis": analysis,
            "computer": computer,
            "svg": board_svg(cells, last=last, wave=wave, flags=flag_cells, red_sides=rules.red_sides,
                             threats=analysis["threats"], ghost=ghost),
        }

    def state(self) -> dict:
        """The latest published state (a dict not to be changed)."""
        with self._changed:
            return self._state

    def wait_for_change(self, version: int, timeout: float) -> dict | None:
        """The state once its version differs from ``version``; None after ``timeout`` or on stop."""
        with self._changed:
            self._changed.wait_for(lambda: self._version != version or self._stop.is_set(), timeout)
            if self._version != version:
                return self._state
        return None

    # ---- preview ----------------------------------------------------------------------------------
    def _preview_due(self) -> bool:
        return time.monotonic() - self._last_preview >= 1.0 / self.settings.preview_fps

    def _maybe_preview(self, image: Any) -> None:
        now = time.monotonic()
        if image is None or now - self._last_preview < 1.0 / self.settings.preview_fps:
            return
        jpeg = encode_preview(image, self.settings.preview_width, self.settings.jpeg_quality)
        if jpeg is None:   # not a picture: the next frame may be one
            return
        self._last_preview = now
        with self._preview:
            self._jpeg, self._jpeg_seq = jpeg, self._jpeg_seq + 1
            self._preview.notify_all()

    def preview(self) -> tuple[int, bytes | None]:
        """(sequence number, latest preview JPEG or None)."""
        with self._preview:
            return self._jpeg_seq, self._jpeg

    def recent_images(self) -> tuple[Any, ...]:
        """The last few raw camera pictures, oldest first; shared with the loop, so never change them."""
        return self._recent

    def wait_for_preview(self, seq: int, timeout: float) -> tuple[int, bytes | None]:
        """The next preview after ``seq`` (or the same one after ``timeout``)."""
        with self._preview:
            self._preview.wait_for(lambda: self._jpeg_seq != seq or self._stop.is_set(), timeout)
            return self._jpeg_seq, self._jpeg

    # ---- control ----------------------------------------------------------------------------------
    def use_watchers(self, make_watcher: MakeWatcher) -> None:
        """Watch with watchers from ``make_watcher`` from now on (e.g. after calibration wrote a new
        profile); the game goes on, and the new table checks the board against it."""
        with self._lock:
            self._make_watcher = make_watcher
            self.watcher = self._new_watcher(self.log.referee, True)
            self._publish()

    def game_rules(self) -> Rules:
        """The rules the current game is played with."""
        with self._lock:
            return self.game.rules

    def new_game(self, rules: Rules | None = None, red: str = "", black: str = "",
                  opponent: Opponent | None = None) -> dict:
        """End the current game (as it stands) and start another (``opponent``: against the computer,
        which plays that side); returns the new state."""
        with self._lock:
            self._new_game_locked(rules or self.game.rules, red, black, resumed=True, opponent=opponent)
            self._publish()
            return self.state()

    def _new_game_locked(self, rules: Rules, red: str, black: str, resumed: bool,
                         opponent: Opponent | None = None) -> None:
        self.store.set_result(self.game.id, self.log.referee.result, ended=True)
        self._start_game(self._create_game(rules, red, black, opponent), resumed=resumed)

    def game_opponent(self) -> Opponent | None:
        """The computer's side in the current game (None: two people)."""
        with self._lock:
            return self.opponent

    def end_game(self) -> dict:
        """End the current game as it stands; a fresh one with the same rules, players and opponent follows."""
        return self.new_game(self.game.rules, self.game.red, self.game.black, self.opponent)

    def undo(self) -> dict:
        """Take back the last legal or illegal verdict (its piece must come off the board)."""
        with self._lock:
            if not any(e.outcome is not Outcome.REJECTED for e in self.log.entries):
                raise ControlError("there is no verdict to take back")
            self.store.add_undo(self.game.id)
            table = getattr(self.watcher, "table", None)
            if isinstance(table, Table) and table.referee is self.log.referee:
                self.log.undo(apply=False)
                table.undo()
            else:
                self.log.undo()
                self.watcher = self._new_watcher(self.log.referee, True)
            self._sync_result()
            self._publish()
            return self.state()

    def correct(self, cell: str, colour: str | None, piece: str | None) -> dict:
        """The camera misread ``cell``: it really holds ``colour piece`` (piece None: nothing)."""
        try:
            target = Cell.parse(cell)
            shown_piece = str(Piece.parse(piece)) if piece else None
            shown_colour = Colour.parse(colour).value if colour else None
        except NotationError as err:
            raise ControlError(str(err)) from None
        if shown_piece and not shown_colour:
            raise ControlError("say whose piece it is: red or black")
        with self._lock:
            events: list[dict] = []
            standing = any(e.outcome is not Outcome.REJECTED and e.move.endswith(f"@{target}")
                           for e in self.log.entries)
            table = getattr(self.watcher, "table", None)
            if not standing and isinstance(table, Table):
                # Not yet ruled on: let the table see the truth and rule on it like any placement.
                truth = (Colour(shown_colour), Piece.parse(shown_piece)) if shown_piece and shown_colour else None
                events = [e.to_json() for e in table.correct(target, truth)]
                self._handle(events, time.time())
            if standing or not isinstance(table, Table) or not events:
                if not standing and shown_piece is None:
                    raise ControlError(f"the game has nothing on {target} to take away")
                self.store.add_correction(self.game.id, str(target), shown_colour, shown_piece)
                self.log.correct(str(target), shown_colour, shown_piece)
                self.watcher = self._new_watcher(self.log.referee, True)
                self._truths[target] = (Colour(shown_colour), Piece.parse(shown_piece)) \
                    if shown_piece and shown_colour else None
                self._sync_result()
            self._publish()
            return self.state()


def encode_preview(image: Any, width: int, quality: int) -> bytes | None:
    """A JPEG of ``image`` at most ``width`` wide, or None when it is not a picture."""
    import cv2  # noqa: PLC0415 - OpenCV only when a preview is made
    import numpy as np  # noqa: PLC0415

    if not isinstance(image, np.ndarray) or image.ndim not in (2, 3) or image.size == 0 or min(image.shape[:2]) < 2:
        return None
    if image.dtype != np.uint8:
        return None
    if image.ndim == 3 and image.shape[2] not in (1, 3, 4):
        return None
    h, w = image.shape[:2]
    if w > width:
        image = cv2.resize(image, (width, max(1, round(h * width / w))), interpolation=cv2.INTER_AREA)
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return data.tobytes() if ok else None
