"""What the watcher reports, as typed events; ``to_json`` is the one place they become JSON.

``Watcher.feed`` (and the scripted watcher of ``thoughtwave serve --moves``) answer with a list of these:

* ``Ruled``: the referee's verdict on a placement the camera saw;
* ``BoardSeen``: the board was found, lost, moved (bumped) or cleared (``BoardChange``);
* ``HandOver``: something came over the board;
* ``Unreadable``: a cell the camera cannot read (the table's ``unreadable`` flag);
* ``Flagged``: a standing problem on a cell (an ``engine.table.FlagKind``), or a changed one;
* ``Cleared``: a flag that no longer stands;
* ``SourceWarning``: the frame source's own complaint (a frame it could not decode), for ``referee --frames``.

``to_json`` gives the lines ``thoughtwave referee --frames`` prints (DESIGN.md): a verdict in the
``referee --moves`` shape plus ``"frame"``, or ``{"frame", "event", ["flag", "cell",] "message"}``; an
unreadable event adds ``"cause"`` when the reader saw one.

>>> from thoughtwave.engine.cells import Cell
>>> to_json(Flagged(FlagKind.LIFTED, Cell.parse("E5"), "put it back", frame=7))
{'frame': 7, 'event': 'flag', 'flag': 'lifted', 'cell': 'E5', 'message': 'put it back'}
>>> to_json(BoardSeen(BoardChange.FOUND, "found the board", frame=3))
{'frame': 3, 'event': 'board-found', 'message': 'found the board'}
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass

from thoughtwave.engine.cells import Cell
from thoughtwave.engine.referee import Verdict
from thoughtwave.engine.table import FlagKind, TableEvent


class BoardChange(enum.StrEnum):
    """What happened to the board as a whole (the value is the event's JSON name)."""

    FOUND = "board-found"
    LOST = "board-lost"
    MOVED = "board-moved"       # bumped: found again (FOUND) once it is steady
    EMPTY = "board-empty"       # every piece taken off (after a game: make way for the next)


@dataclass(frozen=True)
class Ruled:
    """A verdict on a placement; ``frame`` is the index of the frame that showed it (None: no camera)."""

    verdict: Verdict
    frame: int | None = None


@dataclass(frozen=True)
class BoardSeen:
    """The board as a whole changed (``change``); a lost board's ``cause`` says why where the picture shows it (a
    ``vision.causes.Lost`` value: lamp, dark, washed, blurred, markers), and ``message`` then says what to do."""

    change: BoardChange
    message: str
    frame: int | None = None
    cause: str | None = None


@dataclass(frozen=True)
class HandOver:
    """Something (a hand) came over the board; the board is not read until it is gone."""

    message: str
    frame: int | None = None


@dataclass(frozen=True)
class Unreadable:
    """The camera cannot read ``cell``; ``cause`` says why where the picture shows it (a
    ``vision.causes.Cause`` value: glare, shadow, motion...), and ``message`` then says what to do."""

    cell: Cell
    message: str
    frame: int | None = None
    cause: str | None = None


@dataclass(frozen=True)
class Flagged:
    """A standing problem on ``cell`` (new or changed), in a player's words."""

    kind: FlagKind
    cell: Cell
    message: str
    frame: int | None = None


@dataclass(frozen=True)
class Cleared:
    """The flag ``kind`` on ``cell`` no longer stands."""

    kind: FlagKind
    cell: Cell
    message: str
    frame: int | None = None


@dataclass(frozen=True)
class SourceWarning:
    """The frame source's complaint about frame ``frame`` (e.g. a picture it could not decode)."""

    message: str
    frame: int | None = None


Event = Ruled | BoardSeen | HandOver | Unreadable | Flagged | Cleared | SourceWarning


def from_table(event: TableEvent, frame: int | None = None, causes: Mapping[Cell, str] | None = None) -> Event:
    """The table's event (``engine.table.TableEvent``) as a watcher event; an unreadable flag is ``Unreadable``,
    with its cell's cause from ``causes`` when there is one."""
    if event.verdict is not None:
        return Ruled(event.verdict, frame)
    if event.flag is not None:
        flag = event.flag
        if flag.kind is FlagKind.UNREADABLE:
            cause = (causes or {}).get(flag.cell)
            return Unreadable(flag.cell, flag.message, frame, str(cause) if cause is not None else None)
        return Flagged(flag.kind, flag.cell, flag.message, frame)
    assert event.cleared is not None
    return Cleared(event.cleared.kind, event.cleared.cell, event.cleared.message, frame)


def to_json(event: Event) -> dict:
    """The event as one JSON object, as ``thoughtwave referee --frames`` prints it (key order included)."""
    head: dict = {} if event.frame is None else {"frame": event.frame}
    match event:
        case Ruled(verdict=verdict):
            return {**verdict.to_json(), **head}
        case BoardSeen(change=change, message=message, cause=cause):
            line = {**head, "event": change.value, "message": message}
            return line if cause is None else {**line, "cause": cause}
        case HandOver(message=message):
            return {**head, "event": "hand", "message": message}
        case Unreadable(cell=cell, message=message, cause=cause):
            line = {**head, "event": "unreadable", "flag": FlagKind.UNREADABLE.value, "cell": str(cell),
                    "message": message}
            return line if cause is None else {**line, "cause": cause}
        case Flagged(kind=kind, cell=cell, message=message):
            return {**head, "event": "flag", "flag": kind.value, "cell": str(cell), "message": message}
        case Cleared(kind=kind, cell=cell, message=message):
            return {**head, "event": "cleared", "flag": kind.value, "cell": str(cell), "message": message}
        case SourceWarning(message=message):
            return {**head, "event": "warning", "message": message}
    raise TypeError(f"not a watcher event: {event!r}")
