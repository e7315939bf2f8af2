"""The contracts between the game loop and what it drives, so any part can be swapped or faked.

* ``OpenCamera() -> Source``: ``read()`` gives a frame (``index``, ``t`` in seconds of the camera's own
  clock, ``image``) or None when none is ready; ``close()``. ``vision.sources`` and ``ScriptedSource``.
* ``MakeWatcher(table) -> Watch``: a watcher that rules with ``table`` (an ``engine.table.Table``, made
  by the session: a plain one, or the computer opponent's ``InstructedTable``) and answers each frame
  with ``vision.events``, and says what it read in the last frame (``reading``, None when nothing is read),
  which the loop keeps for the cases (``thoughtwave.cases``). ``vision.watch.Watcher``
  (``vision_watcher_factory``) and ``ScriptedWatcher`` (reads nothing: no cases).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from thoughtwave.engine.table import Table
from thoughtwave.vision.events import Event
from thoughtwave.vision.reading import BoardReading
from thoughtwave.vision.watch import Watcher


class Frame(Protocol):
    """One picture from a source (``vision.sources.Frame``, ``ScriptFrame``)."""

    @property
    def index(self) -> int: ...

    @property
    def t(self) -> float: ...

    @property
    def image(self) -> Any: ...


class Source(Protocol):
    def read(self) -> Frame | None: ...

    def close(self) -> None: ...


class Watch(Protocol):
    """What the loop needs of a watcher; read under the loop's lock."""

    @property
    def table(self) -> Table: ...

    @property
    def status(self) -> str: ...

    @property
    def hand_seconds(self) -> float: ...

    @property
    def overlay(self) -> Any:
        """The last picture with what was read drawn on it (for the preview), or None."""

    @property
    def reading(self) -> BoardReading | None:
        """What was read in the last frame fed (kept for the cases), or None (nothing read, or no reader)."""

    def feed(self, frame: Any) -> list[Event]: ...


OpenCamera = Callable[[], Source]
MakeWatcher = Callable[[Table], Watch]


def vision_watcher_factory(stable_seconds: float, profile: Any = None) -> MakeWatcher:
    """Watchers reading camera pictures with ``vision.watch.Watcher`` (``profile``: the reader's
    calibration, None for the defaults)."""

    def make(table: Table) -> Watch:
        return Watcher(profile=profile, stable_seconds=stable_seconds, table=table)

    return make
