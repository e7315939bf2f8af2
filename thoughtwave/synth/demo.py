"""The demo camera: a synthetic camera watching a scripted game, for ``thoughtwave serve --demo`` and tests.

A script is a list of table actions: a player's hand comes in from their side of the table (Red sits
south, Black north), lays a tile (it appears under the fingers) or takes one off, and withdraws; or a
hand rests on the board a while. Between actions the board is left alone long enough for the
stabiliser to accept it. Camera pose and light are fixed per game, drawn from the seed at a mild
level; only sensor noise and a slight flicker change from frame to frame.

``DEMO_SCRIPT`` is a full game under the default rules (skip-turn penalty) with an illegal placement,
a rejected out-of-turn tile, a resting hand and Red's win; ``DEMO_EXPECTED`` is what the referee must
answer to each tile laid, in order.

>>> camera = DemoCamera(fps=5, realtime=False, resolution=(640, 480))   # doctest: +SKIP
>>> frame = camera.read()                                               # doctest: +SKIP
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

import numpy as np

from thoughtwave.engine.cells import Cell
from thoughtwave.engine.moves import Move, parse_move_line
from thoughtwave.engine.pieces import Colour, Piece
from thoughtwave.synth.hands import SKIN_TONES, Hand
from thoughtwave.synth.render import GroundTruth, render
from thoughtwave.synth.scene import Scene, TileLay, fit_lays
from thoughtwave.vision.artwork import BoardLayout
from thoughtwave.vision.sources import Frame

#: Seconds for each phase of a hand's visit, and the quiet spells around them.
REACH_SECONDS = 0.9      # the hand comes in from the player's side to the cell
SET_SECONDS = 0.5        # the hand over the cell; the tile appears (or goes) halfway through
LEAVE_SECONDS = 0.8      # the hand goes back
SETTLE_SECONDS = 1.5     # nothing moves: the board can be read
OPENING_SECONDS = 2.0    # the empty board before the first move
CLOSING_SECONDS = 5.0    # the final position before the game starts again
#: How long Red's hand rests on the board: past the display's hand warning (``vision.hand_warning_seconds``,
#: 10 s by default) by a few seconds, so the demo shows the "take your hand off the board" flag.
REST_SECONDS = 14.0

#: Which way each player's arm reaches in: the direction from fingertips to wrist in board mm (90 = south).
SEAT_ANGLE = {Colour.RED: 90.0, Colour.BLACK: 270.0}


@dataclass(frozen=True)
class Lay:
    """A player lays a tile: ``Lay.parse("red ew@E5")``. The colour is the tile's (and the hand's)."""

    colour: Colour
    move: Move

    @classmethod
    def parse(cls, text: str) -> Lay:
        """``[red|black] PIECE@CELL``; the colour must be given."""
        colour, move = parse_move_line(text)
        if colour is None:
            raise ValueError(f"{text!r}: a scripted tile needs its colour")
        return cls(colour, move)


@dataclass(frozen=True)
class TakeOff:
    """A player takes the tile on ``cell`` off the board."""

    colour: Colour
    cell: Cell


@dataclass(frozen=True)
class Rest:
    """A player's hand rests on the board, fingertips at ``cell``, for ``seconds``; nothing changes."""

    colour: Colour
    cell: Cell
    seconds: float


Action = Lay | TakeOff | Rest

_R, _B = Colour.RED, Colour.BLACK

#: A full game: Black's bend on G8 breaks an edge (illegal: it goes, and Red plays twice), Black then lays
#: a tile in Red's extra turn (rejected: it goes too), Red rests a hand while thinking, and Red joins west
#: to east along row 5 one move before Black's column G reaches the north side.
DEMO_SCRIPT: tuple[Action, ...] = (
    Lay.parse("red ew@E5"),
    Lay.parse("black ns@G10"),
    Lay.parse("red ew@D5"),
    Lay.parse("black ns@G9"),
    Lay.parse("red ew@C5"),
    Lay.parse("black ne@G8"),
    TakeOff(_B, Cell.parse("G8")),
    Lay.parse("red ew@B5"),
    Lay.parse("black ns@G8"),
    TakeOff(_B, Cell.parse("G8")),
    Lay.parse("red ew@A5"),
    Lay.parse("black ns@G8"),
    Lay.parse("red nesw@F5"),
    Lay.parse("black ns@G7"),
    Rest(_R, Cell.parse("E6"), REST_SECONDS),
    Lay.parse("red nesw@G5"),
    Lay.parse("black ns@G6"),
    Lay.parse("red esw@H5"),
    Lay.parse("black nes@G4"),
    Lay.parse("red new@I5"),
    Lay.parse("black nsw@G3"),
    Lay.parse("red esw@J5"),
)

#: What the referee answers (default rules) to each tile of ``DEMO_SCRIPT``, in order: (colour, move, verdict).
DEMO_EXPECTED: tuple[tuple[str, str, str], ...] = (
    ("red", "ew@E5", "legal"),
    ("black", "ns@G10", "legal"),
    ("red", "ew@D5", "legal"),
    ("black", "ns@G9", "legal"),
    ("red", "ew@C5", "legal"),
    ("black", "ne@G8", "illegal"),
    ("red", "ew@B5", "legal"),
    ("black", "ns@G8", "rejected"),
    ("red", "ew@A5", "legal"),
    ("black", "ns@G8", "legal"),
    ("red", "nesw@F5", "legal"),
    ("black", "ns@G7", "legal"),
    ("red", "nesw@G5", "legal"),
    ("black", "ns@G6", "legal"),
    ("red", "esw@H5", "legal"),
    ("black", "nes@G4", "legal"),
    ("red", "new@I5", "legal"),
    ("black", "nsw@G3", "legal"),
    ("red", "esw@J5", "legal"),
)
#: The winner at the end of ``DEMO_SCRIPT``.
DEMO_WINNER = "red"


@dataclass(frozen=True)
class Visit:
    """One action placed in time: the hand is over the board from ``start`` to ``end``; the tiles change
    at ``change`` (None for a rest); ``index`` is the action's position in the script."""

    index: int
    action: Action
    start: float
    arrive: float
    depart: float
    end: float
    change: float | None


@dataclass(frozen=True)
class Moment:
    """The table at one instant: the tiles on the board and the hand over it (if any), in script terms."""

    tiles: dict[Cell, tuple[Colour, Piece]]
    laid_by: dict[Cell, int]          # which action laid each tile (so a re-laid tile lies differently)
    visit: Visit | None               # the action whose hand is over the board
    progress: float                   # 0 = hand off the board, 1 = fingertips at the cell


class Timeline:
    """When each action of a script happens, and the table at any time ``t`` (seconds from the start)."""

    def __init__(self, script: tuple[Action, ...] = DEMO_SCRIPT) -> None:
        self.script = tuple(script)
        visits = []
        t = OPENING_SECONDS
        for i, action in enumerate(self.script):
            stay = action.seconds if isinstance(action, Rest) else SET_SECONDS
            arrive = t + REACH_SECONDS
            depart = arrive + stay
            end = depart + LEAVE_SECONDS
            change = None if isinstance(action, Rest) else arrive + stay / 2
            visits.append(Visit(i, action, t, arrive, depart, end, change))
            t = end + SETTLE_SECONDS
        self.visits: tuple[Visit, ...] = tuple(visits)
        #: Length of one game, closing pause included.
        self.duration = t + CLOSING_SECONDS

    def changes(self) -> list[tuple[float, Action]]:
        """(time, action) for every action that changes the tiles, in order."""
        return [(v.change, v.action) for v in self.visits if v.change is not None]

    def at(self, t: float) -> Moment:
        """The table at ``t`` (clamped to the game)."""
        tiles: dict[Cell, tuple[Colour, Piece]] = {}
        laid_by: dict[Cell, int] = {}
        visit, progress = None, 0.0
        for v in self.visits:
            if v.start > t:
                break
            if v.change is not None and v.change <= t:
                if isinstance(v.action, Lay):
                    tiles[v.action.move.cell] = (v.action.colour, v.action.move.piece)
                    laid_by[v.action.move.cell] = v.index
                elif isinstance(v.action, TakeOff):
                    tiles.pop(v.action.cell, None)
                    laid_by.pop(v.action.cell, None)
            if v.start <= t < v.end:
                visit = v
                if t < v.arrive:
                    progress = _ease((t - v.start) / (v.arrive - v.start))
                elif t < v.depart:
                    progress = 1.0
                else:
                    progress = _ease(1.0 - (t - v.depart) / (v.end - v.depart))
        return Moment(tiles, laid_by, visit, progress)


def _ease(x: float) -> float:
    x = min(1.0, max(0.0, x))
    return x * x * (3 - 2 * x)


def _target_cell(action: Action) -> Cell:
    return action.move.cell if isinstance(action, Lay) else action.cell


class DemoGame:
    """The look of one game: a fixed camera and light, two players' hands, how each tile was laid."""

    def __init__(self, seed: int, resolution: tuple[int, int], level: str | float, layout: BoardLayout) -> None:
        rnd = random.Random(seed)
        self.layout = layout
        self.scene = Scene.random(rnd.getrandbits(31), tiles={}, level=level, hand=False,
                                  resolution=resolution, layout=layout)
        # Players move their hands: motion blur would smear the whole frame, so keep the camera still.
        self.scene = replace(self.scene, optics=replace(self.scene.optics, motion_px=0.0))
        tones = rnd.sample(SKIN_TONES, 2)
        self.skin = {Colour.RED: tones[0], Colour.BLACK: tones[1]}
        self.right = {c: rnd.random() < 0.85 for c in Colour}
        self.size = {c: (rnd.uniform(170, 195), rnd.uniform(78, 92)) for c in Colour}
        self._rnd_seed = rnd.getrandbits(31)

    def lay(self, action_index: int) -> TileLay:
        """How the tile of one action lies: a little off centre and turned, as a hand lays it."""
        rnd = random.Random(self._rnd_seed * 1000 + action_index)
        return TileLay((rnd.uniform(-0.07, 0.07), rnd.uniform(-0.07, 0.07)), rnd.uniform(-5.0, 5.0))

    def hand(self, visit: Visit, progress: float) -> Hand:
        """The hand of ``visit``, ``progress`` of the way from outside the board to its cell."""
        action = visit.action
        rnd = random.Random(self._rnd_seed * 1000 + visit.index + 500)
        angle = SEAT_ANGLE[action.colour] + rnd.uniform(-20.0, 20.0)
        along = np.array([math.cos(math.radians(angle)), math.sin(math.radians(angle))])
        cell = _target_cell(action)
        centre = np.asarray(self.layout.cell_center_mm(cell))
        # Fingertips a little past the cell centre (as hands.hand_over), so the fingers cover the tile they hold.
        reach = 0.8 if isinstance(action, Rest) else 0.35
        at_cell = centre - along * reach * self.layout.cell_mm
        # Out of the picture: well past the board's edge on the player's side.
        away = self.layout.width_mm + 250.0
        tip = at_cell + along * away * (1.0 - progress)
        length, width = self.size[action.colour]
        return Hand(tip_mm=(float(tip[0]), float(tip[1])), angle_deg=angle, skin_bgr=self.skin[action.colour],
                    length_mm=length, width_mm=width, right=self.right[action.colour],
                    shadow_px=(8.0 + 10.0 * progress, 10.0 + 8.0 * progress), shadow_depth=0.3)

    def scene_at(self, moment: Moment, frame_index: int) -> Scene:
        """The scene of one frame: this game's camera and light with the moment's tiles and hand."""
        hand = None
        if moment.visit is not None and moment.progress > 0.0:
            hand = self.hand(moment.visit, moment.progress)
        # Only the sensor noise is new every frame (render() reuses the rest while nothing moves).
        lays = fit_lays(moment.tiles, {c: self.lay(i) for c, i in moment.laid_by.items()})
        return replace(self.scene, tiles=dict(moment.tiles), lays=lays, hand=hand,
                       noise_seed=(self.scene.noise_seed + frame_index) & 0x7FFFFFFF)


class DemoCamera:
    """A ``FrameSource`` that films the scripted game at ``fps``; ``read()`` gives the next ``Frame``.

    ``realtime`` paces ``read()`` to the frame rate, skipping frames when rendering cannot keep up (False:
    every frame, as fast as they render, for tests).
    ``loop`` starts the game again after its closing pause, with a new camera and light drawn from the
    seed; without it ``read()`` returns None after the game. ``clock`` and ``sleep`` pace real time
    (tests pass a fake pair).
    """

    def __init__(self, fps: float = 10.0, seed: int = 0, loop: bool = True, realtime: bool = True,
                 script: tuple[Action, ...] = DEMO_SCRIPT, resolution: tuple[int, int] = (1280, 960),
                 level: str | float = "mild", layout: BoardLayout | None = None,
                 clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep) -> None:
        if not fps > 0:
            raise ValueError(f"fps must be positive, not {fps}")
        self.fps = float(fps)
        self.seed = seed
        self.loop = loop
        self.realtime = realtime
        self.resolution = (int(resolution[0]), int(resolution[1]))
        self.level = level
        self.layout = layout or BoardLayout()
        self.timeline = Timeline(script)
        self.clock = clock
        self.sleep = sleep
        self.truth: GroundTruth | None = None
        self._index = 0
        self._started: float | None = None
        self._closed = False
        self._game: tuple[int, DemoGame] | None = None

    def game(self, number: int) -> DemoGame:
        """The look of game ``number`` (0, 1, ...), the same for every frame of that game."""
        if self._game is None or self._game[0] != number:
            self._game = (number, DemoGame(self.seed * 7919 + number, self.resolution, self.level, self.layout))
        return self._game[1]

    def read(self) -> Frame | None:
        """The next frame (None after the game when not looping, or once closed); ``truth`` is its ground truth."""
        if self._closed:
            return None
        index = self._index
        if self.realtime:
            now = self.clock()
            if self._started is None:
                self._started = now - index / self.fps
            # A machine too slow to render every frame skips frames rather than play in slow motion;
            # the skipped indices are used up, so index and time stay true (as ImageDirSource does).
            index = max(index, int((now - self._started) * self.fps))
        t = index / self.fps
        number, t_game = divmod(t, self.timeline.duration)
        if number >= 1 and not self.loop:
            return None
        game = self.game(int(number))
        image, self.truth = render(game.scene_at(self.timeline.at(t_game), index))
        if self.realtime:
            assert self._started is not None
            delay = self._started + t - self.clock()
            if delay > 0:
                self.sleep(delay)
        self._index = index + 1
        return Frame(index, t, image)

    def close(self) -> None:
        """Stop: later reads return None."""
        self._closed = True


def script_frames(script: tuple[Action, ...] = DEMO_SCRIPT, fps: float = 5.0,
                  resolution: tuple[int, int] = (640, 480), seed: int = 0,
                  level: str | float = "mild") -> Iterator[tuple[Frame, GroundTruth]]:
    """Every frame of one playing of ``script`` with its ground truth (no pacing, no loop)."""
    camera = DemoCamera(fps=fps, seed=seed, loop=False, realtime=False, script=script,
                        resolution=resolution, level=level)
    while (frame := camera.read()) is not None:
        assert camera.truth is not None
        yield frame, camera.truth
