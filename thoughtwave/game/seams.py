"""The contracts between the game loop and what it drives, so any part can be swapped or faked.

* ``OpenCamera() -> Source``: ``read()`` gives a frame (``index``, ``t`` in seconds of the camera's own
  clock, ``image``) or None when none is ready; ``close()``. ``vision.sources`` and ``ScriptedSource``.
* ``MakeWatcher(table) -> Watch``: a watcher that rules with ``table`` (an ``engine.table.Table``, made
  by the session: a plain one, or the computer opponent's ``InstructedTable``) and answers each frame
  with ``vision.events``. ``vision.watch.Watcher`` (``vision_watcher_factory``: a ``ReadingWatcher``)
  and ``ScriptedWatcher``. A watcher may also say what it read in the last frame (``reading``), which
  the loop keeps for the cases (``thoughtwave.cases``); one that does not gives no cases.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from thoughtwave.engine.table import Table
from thoughtwave.vision.events import Event
from thoughtwave.vision.reading import BoardReading
from thoughtwave.vision.watch import Reader, Watcher


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

    def feed(self, frame: Any) -> list[Event]: ...


OpenCamera = Callable[[], Source]
MakeWatcher = Callable[[Table], Watch]


class _KeptReading:
    """A reader that keeps (a reference to) the last picture it read and its reading; everything else is
    the wrapped reader's (its pose, overlay, ...), as the watcher asks for it."""

    def __init__(self, reader: Reader) -> None:
        self.inner = reader
        self.last: tuple[Any, BoardReading | None] = (None, None)

    def read(self, image: Any) -> BoardReading:
        self.last = (image, None)          # a reader that fails leaves no reading for this picture
        reading = self.inner.read(image)
        self.last = (image, reading)
        return reading

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


class ReadingWatcher(Watcher):
    """``vision.watch.Watcher`` that also says what it read in the last frame fed (``reading``), so the loop
    can keep a misread frame as a case. ``reader`` replaces the recogniser (tests)."""

    def __init__(self, table: Table, profile: Any = None, stable_seconds: float | None = None,
                 reader: Reader | None = None) -> None:
        if reader is None:
            from thoughtwave.vision.recognizer import Recognizer

            reader = Recognizer(profile=profile)
        self._kept = _KeptReading(reader)
        extra = {} if stable_seconds is None else {"stable_seconds": stable_seconds}
        super().__init__(profile=profile, table=table, reader=self._kept, **extra)  # type: ignore[arg-type]
        self._fed: Any = None

    def feed(self, frame: Any) -> list[Event]:
        self._fed = frame.image
        return super().feed(frame)

    @property
    def reading(self) -> BoardReading | None:
        """The reading of the last frame fed (None before any, or when that frame could not be read)."""
        image, reading = self._kept.last
        return reading if image is self._fed and image is not None else None


def vision_watcher_factory(stable_seconds: float, profile: Any = None) -> MakeWatcher:
    """Watchers reading camera pictures with ``vision.watch.Watcher`` (``profile``: the reader's
    calibration, None for the defaults); each says what it read in the last frame (``ReadingWatcher``)."""

    def make(table: Table) -> Watch:
        return ReadingWatcher(table, profile, stable_seconds)

    return make
