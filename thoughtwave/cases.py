"""Cases from real tables: a frame the camera got wrong or could not read, kept with everything needed to
read it again, so a misread at someone's table can become a regression test here.

A case is a folder under the state directory's ``cases/``::

    cases/20261123-101500-report-1/
        frame.png       the camera frame, exactly as read
        case.json       the reading (``BoardReading.to_json`` shape), the board as the game knew it
                        (``{"E5": "red ew"}``), what kind of case it is, when, and a note
        profile.json    the calibration profile in use (absent when there was none)

``thoughtwave recognize cases/X/frame.png --profile cases/X/profile.json`` reads it again, ``load_case``
gives it to a test, ``export_cases`` bundles every case into one ``.tar.gz`` a user can send.

Cases are capped: at most ``MAX_CASES`` and ``MAX_TOTAL_BYTES`` in all. A case saved automatically (the
first unreadable frames of a game, ``UnreadableCapture``) is dropped when the cap is reached; a case the
players report makes room by removing the oldest automatic one, and is refused only when every case
kept is a report.

A companion keeps its cases through a ``CaseBook`` (the state directory and the profile in use): the
players' reports (``save``), and the frames ``UnreadableCapture`` picks. ``CaseNotSaved`` says why a case
was not kept, in one line: no room under the cap, a full disk, a folder that cannot be written.
"""

from __future__ import annotations

import datetime
import errno
import json
import os
import shutil
import tarfile
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from thoughtwave.calibration.profile import ProfileError, load_profile
from thoughtwave.engine import Cell, Colour, Piece
from thoughtwave.vision.reading import BoardReading

CASES_DIR = "cases"
FRAME_FILE, CASE_FILE, PROFILE_FILE = "frame.png", "case.json", "profile.json"
KIND = "thoughtwave-case"
#: What a case is: reported by the players, or saved when a frame had unreadable cells.
REPORT, UNREADABLE = "report", "unreadable"
MAX_CASES = 40
MAX_TOTAL_BYTES = 150 * 1024 * 1024
#: A frame larger than this (encoded) is not kept: a 1920x1080 PNG of a board is 2-4 MB.
MAX_FRAME_BYTES = 12 * 1024 * 1024


class CaseError(ValueError):
    """A case that cannot be saved or read; the message says why."""


#: Why a case was not saved (``CaseNotSaved.reason``): the companion keeps no cases (no state directory),
#: it has read no camera picture yet, the cap leaves no room, the disk is full, the folder cannot be written.
NOT_KEPT, NO_FRAME, NO_ROOM, DISK_FULL, UNWRITABLE = "not-kept", "no-frame", "no-room", "disk-full", "unwritable"


class CaseNotSaved(CaseError):
    """A case that was not saved: ``reason`` (one of ``NOT_KEPT`` ... ``UNWRITABLE``), ``folder`` (where cases
    go, when there is one), ``detail`` (the system's words for a failed write) and a one-line message."""

    def __init__(self, reason: str, message: str, folder: Path | None = None, detail: str = "") -> None:
        super().__init__(message)
        self.reason = reason
        self.folder = folder
        self.detail = detail


@dataclass(frozen=True)
class Case:
    """One case as loaded: the ``frame`` (BGR), the ``reading`` JSON, the ``board`` the game knew
    (``{"E5": "red ew"}``), the calibration ``profile`` JSON (None without one), the ``kind``
    (``REPORT``/``UNREADABLE``), ``created`` (ISO time), the ``note`` and, when someone has checked the
    frame, ``truth`` (what really lies on the board, same shape as ``board``)."""

    path: Path
    frame: np.ndarray = field(repr=False)
    reading: dict
    board: dict[str, str]
    profile: dict | None
    kind: str
    created: str
    note: str = ""
    truth: dict[str, str] | None = None

    def expected(self) -> dict[str, str]:
        """What lies on the board: the checked ``truth`` when there is one, else the game's ``board``."""
        return dict(self.truth if self.truth is not None else self.board)


def cases_dir(state_dir: Path) -> Path:
    """The folder the cases of ``state_dir`` live in (not created)."""
    return Path(state_dir) / CASES_DIR


def list_cases(state_dir: Path) -> list[Path]:
    """Every case folder of ``state_dir``, oldest first (the names sort by time)."""
    folder = cases_dir(state_dir)
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir()
                  if p.is_dir() and not p.name.startswith(".") and (p / CASE_FILE).is_file())


def _size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def _kind_of(path: Path) -> str:
    try:
        return json.loads((path / CASE_FILE).read_text(encoding="utf-8")).get("case", REPORT)
    except (OSError, ValueError):
        return REPORT


def _make_room(state_dir: Path, needed: int, kind: str, max_cases: int, max_bytes: int) -> bool:
    """Whether a case of ``needed`` bytes fits; a report removes the oldest automatic cases to fit."""
    kept = list_cases(state_dir)
    sizes = {p: _size(p) for p in kept}

    def fits() -> bool:
        return len(sizes) < max_cases and sum(sizes.values()) + needed <= max_bytes

    if fits():
        return True
    if kind != REPORT:
        return False
    for path in [p for p in kept if _kind_of(p) == UNREADABLE]:
        shutil.rmtree(path, ignore_errors=True)
        del sizes[path]
        if fits():
            return True
    return False


def _as_json(value: Any) -> Any:
    """A reading or profile given as an object with ``to_json()``, or already as JSON."""
    return value.to_json() if hasattr(value, "to_json") else value


def save_case(state_dir: Path, frame: np.ndarray, reading: BoardReading | dict, board: Mapping[str, str],
              profile: Any = None, kind: str = REPORT, note: str = "",
              now: Callable[[], datetime.datetime] | None = None, max_cases: int = MAX_CASES,
              max_bytes: int = MAX_TOTAL_BYTES) -> Path | None:
    """Keep ``frame`` (BGR) with its ``reading``, the ``board`` as the game knew it (``{"E5": "red ew"}``)
    and the calibration ``profile`` (a ``Profile``, its JSON, or None) as a new case; its folder, or None
    when the cap leaves no room (see the module's docstring). Written whole or not at all."""
    if kind not in (REPORT, UNREADABLE):
        raise CaseError(f"a case is a {REPORT} or {UNREADABLE}, not {kind!r}")
    if not isinstance(frame, np.ndarray) or frame.ndim not in (2, 3) or frame.size == 0:
        raise CaseError("a case needs the camera frame as an image array")
    ok, png = cv2.imencode(".png", frame)
    if not ok or len(png) > MAX_FRAME_BYTES:
        raise CaseError("the frame cannot be kept (not encodable, or too large)")
    stamp = (now or (lambda: datetime.datetime.now(datetime.UTC)))()
    record = {"kind": KIND, "version": 1, "case": kind, "created": stamp.isoformat(timespec="seconds"),
              "note": str(note)[:2000], "board": {str(k): str(v) for k, v in sorted(board.items())},
              "reading": _as_json(reading)}
    case_text = json.dumps(record, indent=1) + "\n"
    profile_json = _as_json(profile)
    profile_text = json.dumps(profile_json, indent=1) + "\n" if profile_json is not None else None
    needed = len(png) + len(case_text) + len(profile_text or "")
    if not _make_room(state_dir, needed, kind, max_cases, max_bytes):
        return None
    folder = cases_dir(state_dir)
    folder.mkdir(parents=True, exist_ok=True)
    base = f"{stamp:%Y%m%d-%H%M%S}-{kind}"
    number = 1 + sum(1 for p in folder.iterdir() if p.name.startswith(base))
    # Written in a hidden folder beside it, then renamed: a crash leaves no half case to replay.
    work = Path(tempfile.mkdtemp(prefix=".new-", dir=folder))
    try:
        (work / FRAME_FILE).write_bytes(png.tobytes())
        (work / CASE_FILE).write_text(case_text, encoding="utf-8")
        if profile_text is not None:
            (work / PROFILE_FILE).write_text(profile_text, encoding="utf-8")
        target = folder / f"{base}-{number}"
        while target.exists():
            number += 1
            target = folder / f"{base}-{number}"
        os.replace(work, target)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return target


def load_case(path: Path) -> Case:
    """A case folder as a ``Case``; CaseError names what is missing or damaged."""
    path = Path(path)
    try:
        record = json.loads((path / CASE_FILE).read_text(encoding="utf-8"))
        profile = (json.loads((path / PROFILE_FILE).read_text(encoding="utf-8"))
                   if (path / PROFILE_FILE).is_file() else None)
    except (OSError, ValueError) as err:
        raise CaseError(f"{path} is not a readable case ({err})") from None
    if not isinstance(record, dict) or record.get("kind") != KIND:
        raise CaseError(f"{path} is not a Thoughtwave case")
    frame = cv2.imread(str(path / FRAME_FILE), cv2.IMREAD_COLOR)
    if frame is None:
        raise CaseError(f"{path} has no readable {FRAME_FILE}")
    truth = record.get("truth")
    return Case(path, frame, dict(record.get("reading") or {}), dict(record.get("board") or {}), profile,
                str(record.get("case", REPORT)), str(record.get("created", "")), str(record.get("note", "")),
                dict(truth) if isinstance(truth, dict) else None)


def export_cases(state_dir: Path, out: Path) -> Path:
    """Every case of ``state_dir`` in one ``.tar.gz`` at ``out`` (a folder gets ``thoughtwave-cases.tar.gz``
    inside it), each under ``cases/<name>/``; the archive's path. CaseError when there is no case."""
    cases = list_cases(state_dir)
    if not cases:
        raise CaseError(f"no cases in {cases_dir(state_dir)}")
    out = Path(out)
    if out.is_dir():
        out = out / "thoughtwave-cases.tar.gz"
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent)
    os.close(fd)
    try:
        with tarfile.open(tmp, "w:gz") as archive:
            for case in cases:
                for item in sorted(case.iterdir()):
                    if item.is_file():
                        archive.add(item, arcname=f"{CASES_DIR}/{case.name}/{item.name}", recursive=False)
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return out


class UnreadableCapture:
    """Picks the first frames of a game that have unreadable cells, to keep as cases (``UNREADABLE``): at
    most ``per_game`` a game, and no two within ``gap_seconds`` (one stall is one case, not a film of it).
    ``take`` decides (cheap: the camera thread calls it for every frame; ``CaseBook.save`` keeps the frame);
    ``new_game`` when a game starts."""

    def __init__(self, per_game: int = 3, gap_seconds: float = 30.0) -> None:
        self.per_game = per_game
        self.gap_seconds = gap_seconds
        self._saved = 0
        self._last_t: float | None = None

    def new_game(self) -> None:
        self._saved = 0
        self._last_t = None

    def take(self, t: float, reading: BoardReading) -> bool:
        """Whether the frame read as ``reading`` at ``t`` is one to keep; if so it counts against the game's
        allowance from now on, saved or not (a folder that cannot be written is not tried on every frame)."""
        if self._saved >= self.per_game or (self._last_t is not None and t - self._last_t < self.gap_seconds):
            return False
        if not reading.board_found or not reading.unreadable():
            return False
        self._saved += 1
        self._last_t = t
        return True

    @staticmethod
    def note(reading: BoardReading) -> str:
        """The note an unreadable case is kept with: ``"unreadable: E5, F6"``."""
        return f"unreadable: {', '.join(str(c) for c in reading.unreadable())}"


def board_text(expected: Mapping[Cell, tuple[Colour, Piece]]) -> dict[str, str]:
    """``{"E5": "red ew"}`` from a table's ``expected()`` (cell -> (colour, piece)), as a case keeps the board."""
    return {str(cell): f"{colour.value} {piece}" for cell, (colour, piece) in expected.items()}


class CaseBook:
    """Where a companion keeps its cases: ``state_dir``'s ``cases/`` folder, with the calibration profile at
    ``profile_path`` (read when a case is saved, so it is the one in use; None, absent or damaged: the case
    has none), the caps, and ``capture``, the ``UnreadableCapture`` that picks a game's unreadable frames."""

    def __init__(self, state_dir: Path, profile_path: Path | None = None, *, per_game: int = 3,
                 gap_seconds: float = 30.0, max_cases: int = MAX_CASES, max_bytes: int = MAX_TOTAL_BYTES,
                 now: Callable[[], datetime.datetime] | None = None) -> None:
        self.state_dir = Path(state_dir)
        self.folder = cases_dir(self.state_dir)
        self.profile_path = Path(profile_path) if profile_path is not None else None
        self.max_cases, self.max_bytes = max_cases, max_bytes
        self.capture = UnreadableCapture(per_game, gap_seconds)
        self._now = now

    def profile(self) -> dict | None:
        """The calibration profile's JSON as it is now, or None (none, or one that cannot be used)."""
        if self.profile_path is None or not self.profile_path.exists():
            return None
        try:
            return load_profile(self.profile_path).to_json()
        except (ProfileError, OSError):
            return None

    def save(self, frame: np.ndarray, reading: BoardReading | dict, board: Mapping[str, str], kind: str = REPORT,
             note: str = "") -> Path:
        """Keep a case (see ``save_case``) with the profile in use; its folder. CaseNotSaved (never an
        OSError) when the cap leaves no room or the folder cannot be written."""
        try:
            path = save_case(self.state_dir, frame, reading, board, self.profile(), kind=kind, note=note,
                             now=self._now, max_cases=self.max_cases, max_bytes=self.max_bytes)
        except OSError as err:
            if err.errno in (errno.ENOSPC, errno.EDQUOT):
                raise CaseNotSaved(DISK_FULL, f"the disk is full: free space on the disk holding {self.folder}",
                                   self.folder) from None
            detail = err.strerror or str(err)
            raise CaseNotSaved(UNWRITABLE, f"cannot write {self.folder}: {detail}", self.folder, detail) from None
        if path is None:
            raise CaseNotSaved(NO_ROOM, f"{self.folder} holds as many cases as it may ({self.max_cases}, "
                               f"{self.max_bytes // 2**20} MB): export them (thoughtwave cases export) and "
                               "delete some", self.folder)
        return path
