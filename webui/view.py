"""The view model: a published ``game.Snapshot`` as the JSON of ``/api/state`` and the Server-Sent Events
(with the board as SVG), a stored game for its page, and the camera preview as JPEG.

Each is made once per version and shared by every viewer (``StateMessages``, ``PreviewJpegs``), in the
viewer's thread, never the camera's.
"""

from __future__ import annotations

import json
import threading
from typing import Any

import cv2

from thoughtwave.engine import Colour, GameRecord, Outcome, Verdict
from thoughtwave.engine.phrases import said_as
from thoughtwave.engine.pieces import KINDS
from thoughtwave.game import GameRow, Notice, Snapshot, is_picture
from thoughtwave.i18n import DEFAULT, Text
from thoughtwave.i18n.phrases import side_names
from thoughtwave.vision.causes import Cause
from thoughtwave.webui.boardsvg import board_svg
from thoughtwave.webui.localized import (
    clear_board_banner,
    computer_error,
    computer_name,
    game_names,
    grouped_banner,
    instruction_words,
    notice_text,
    reason_text,
    unreadable_banner,
    worded_notice,
)

#: The preview's width at most, and its JPEG quality.
PREVIEW_WIDTH = 640
JPEG_QUALITY = 70
MOVE_FIELDS = ("n", "colour", "move", "verdict", "reason")


def board_cells(verdicts: tuple[Verdict, ...] | list[Verdict]) -> tuple[dict[str, tuple[str, str]], str | None]:
    """The pieces legally on the board (``{"E5": ("red", "ew")}``) and the last cell played (None: none)."""
    cells: dict[str, tuple[str, str]] = {}
    last = None
    for v in verdicts:
        if v.cell is not None and v.outcome is not Outcome.REJECTED:
            last = str(v.cell)
            if v.outcome is Outcome.LEGAL and v.colour and v.piece:
                cells[str(v.cell)] = (v.colour.value, str(v.piece))
    return cells, last


def move_rows(verdicts: tuple[Verdict, ...] | list[Verdict], t: Text | None = None) -> list[dict]:
    """The moves list of the display: the ``referee --moves`` fields a person reads (``reason`` as the referee
    words it) and, for a move with a reason, ``reason_text``: the reason in the viewer's language."""
    t = t or Text(DEFAULT)
    rows = []
    for v in verdicts:
        row = {k: v.to_json()[k] for k in MOVE_FIELDS}
        if v.reason is not None:
            row["reason_text"] = reason_text(t, v)
        rows.append(row)
    return rows


def analysis_json(snapshot: Snapshot) -> dict:
    positions = snapshot.analysis
    now = positions[-1]
    threats = {c: sorted({m.cell for m in now.threats[c]}, key=lambda cell: cell.index) for c in Colour}
    return {
        "distance": {c.value: now.distance[c] for c in Colour},
        "threats": {c.value: [str(cell) for cell in threats[c]] for c in Colour},
        "history": [{"n": a.n, **{c.value: a.distance[c] for c in Colour}} for a in positions],
    }


#: Flag kinds that ask the players to wait or look (amber); the others stop play until put right (red).
WARN_KINDS = frozenset({"hand", "unreadable", "held", "board-moved"})

#: Flag kinds with one banner for several cells (``localized.grouped_banner`` words it).
GROUPED = frozenset({"illegal-piece", "rejected-piece", "lifted", "moved", "unexplained", "undone", "differs", "held",
                     "unreadable"})
#: Notices reworded for the display so that each says what to do (``localized.worded_notice``).
WORDED = frozenset({"hand"})
#: A new game (no move yet) with pieces lying on the board: one instruction, whatever the flags' kinds.
CLEAR_KINDS = frozenset({"unexplained", "differs"})


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]


#: The causes the reader names for an unreadable cell (``vision.causes.Cause`` values).
CAUSES = frozenset(c.value for c in Cause)


def _cause(notice: Notice) -> dict:
    """``{"cause": "glare"}`` for an unreadable cell whose flag names why (``vision.causes``), else {}."""
    worded = said_as(notice.why.english) if notice.why is not None and notice.kind == "unreadable" else None
    cause = worded.code.removeprefix("unreadable-") if worded is not None else None
    return {"cause": cause} if cause in CAUSES else {}


def flag_banners(flags: list[dict], new_game: bool, t: Text | None = None) -> list[dict]:
    """The display's banners: ONE per kind of problem, its cells listed together, each saying what to do.

    ``flags`` are the payload's flags (``kind``, ``cell`` or None, ``message``); ``new_game``: no move has
    been made yet, so pieces the table cannot explain are left over from the last game. Each banner is
    ``{kind, tone ("alert" or "warn"), cells, text}``, in the order the kinds first appear; ``t``: the language.
    """
    t = t or Text(DEFAULT)
    groups: dict[str, list[dict]] = {}
    for flag in flags:
        kind = "clear-board" if new_game and flag["kind"] in CLEAR_KINDS else flag["kind"]
        groups.setdefault(kind, []).append(flag)
    banners = []
    for kind, members in groups.items():
        cells = [f["cell"] for f in members if f["cell"]]
        if kind == "clear-board":
            text = clear_board_banner(t, cells)
        elif len(members) > 1 and kind == "unreadable":
            text = unreadable_banner(t, [(f.get("cause"), f["cell"], f["message"]) for f in members if f["cell"]])
        elif len(members) > 1 and kind in GROUPED:
            text = grouped_banner(t, kind, cells)
        elif kind in WORDED:
            text = worded_notice(t, kind)
        else:
            text = t.clauses([_sentence(f["message"]) for f in members])
        banners.append({"kind": kind, "tone": "warn" if kind in WARN_KINDS else "alert", "cells": cells,
                        "text": text})
    return banners


def computer_json(snapshot: Snapshot, t: Text | None = None) -> dict | None:
    turn = snapshot.computer
    if turn is None:
        return None
    told = turn.instruction
    instruction = {**told.to_json(), **instruction_words(t or Text(DEFAULT), told)} if told else None
    t = t or Text(DEFAULT)
    return {**turn.opponent.to_json(), "name": computer_name(t, turn.opponent), "to_move": turn.to_move,
            "thinking": turn.thinking, "instruction": instruction, "error": computer_error(t, turn.error)}


def render_state(snapshot: Snapshot, lang: str = DEFAULT) -> dict:
    """The JSON of ``/api/state`` and of each Server-Sent Event, its sentences in ``lang``."""
    t = Text(lang)
    cells, last = board_cells(snapshot.verdicts)
    wave = [str(c) for c in snapshot.wave]
    flags = [{"kind": n.kind, "cell": str(n.cell) if n.cell else None,
              "message": notice_text(t, n, snapshot.camera), **_cause(n)} for n in snapshot.notices]
    flag_cells = {f["cell"]: f["kind"] for f in flags if f["cell"]}
    rules = snapshot.rules
    analysis = analysis_json(snapshot)
    computer = computer_json(snapshot, t)
    told = computer["instruction"] if computer else None
    ghost = (told["cell"], told["colour"], told["piece"]) if told else None
    return {
        "game": game_names(t, snapshot.game.to_json()),
        "next": snapshot.next.value if snapshot.next else None,
        "winner": snapshot.winner.value if snapshot.winner else None,
        "draw": snapshot.draw,
        "result": snapshot.result,
        "left": {c.value: {k.value: snapshot.left[c][k] for k in KINDS} for c in Colour},
        "cells": {name: {"colour": colour, "piece": piece} for name, (colour, piece) in cells.items()},
        "last": last,
        "wave": wave,
        "moves": move_rows(snapshot.verdicts, t),
        "flags": flags,
        "banners": flag_banners(flags, new_game=not snapshot.verdicts, t=t),
        "status": snapshot.status,
        "camera": {"state": snapshot.camera.state, "message": snapshot.camera.message, "fps": snapshot.camera.fps,
                   "retry_in": snapshot.camera.retry_in},
        "sides": {c.value: side_names(t, rules.sides_of(c)) for c in Colour},
        "rules": rules.to_json(),
        "speech": snapshot.speech,
        "seen": snapshot.seen,
        "decided": snapshot.decided,
        "frame_t": snapshot.frame_t,
        "analysis": analysis,
        "computer": computer,
        "svg": board_svg(cells, last=last, wave=wave, flags=flag_cells, red_sides=rules.red_sides,
                         threats=analysis["threats"], ghost=ghost, t=t),
        "version": snapshot.version,
        "lang": t.lang,
    }


def stored_game(row: GameRow, record: GameRecord, lang: str = DEFAULT) -> dict:
    """A stored game for its page and ``/api/games/N``: ``moves``, ``svg``, ``result`` and ``cells``."""
    t = Text(lang)
    referee = record.replay()
    cells, _ = board_cells(referee.verdicts)
    wave = [str(c) for c in referee.winning_wave()]
    last = next((str(v.cell) for v in reversed(referee.verdicts) if v.cell), None)
    svg = board_svg(cells, last=last, wave=wave, red_sides=row.rules.red_sides,
                    title=t.gettext("Game %(number)s", number=row.id), t=t)
    return {"moves": move_rows(referee.verdicts, t), "svg": svg, "result": referee.result,
            "cells": {k: {"colour": c, "piece": p} for k, (c, p) in cells.items()}}


class StateMessages:
    """The state of each version, rendered once per language: as JSON and as one Server-Sent Event."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._rendered: dict[str, tuple[int, dict, bytes]] = {}    # language -> (version, state, event)

    def _render(self, snapshot: Snapshot, lang: str) -> tuple[int, dict, bytes]:
        done = self._rendered.get(lang)
        if done is None or done[0] != snapshot.version:
            state = render_state(snapshot, lang)
            done = (snapshot.version, state, f"id: {snapshot.version}\ndata: {json.dumps(state)}\n\n".encode())
            self._rendered[lang] = done
        return done

    def state(self, snapshot: Snapshot, lang: str = DEFAULT) -> dict:
        """The JSON of ``snapshot`` in ``lang`` (shared: never change it)."""
        with self._lock:
            return self._render(snapshot, lang)[1]

    def event(self, snapshot: Snapshot, lang: str = DEFAULT) -> bytes:
        """``snapshot`` in ``lang`` as one Server-Sent Event (``id`` is its version)."""
        with self._lock:
            return self._render(snapshot, lang)[2]


def encode_preview(image: Any, width: int = PREVIEW_WIDTH, quality: int = JPEG_QUALITY) -> bytes | None:
    """A JPEG of ``image`` at most ``width`` wide, or None when it is not a picture."""
    if not is_picture(image):
        return None
    h, w = image.shape[:2]
    if w > width:
        image = cv2.resize(image, (width, max(1, round(h * width / w))), interpolation=cv2.INTER_AREA)
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return data.tobytes() if ok else None


class PreviewJpegs:
    """The companion's latest preview picture as JPEG, encoded once per picture however many watch."""

    def __init__(self, width: int = PREVIEW_WIDTH, quality: int = JPEG_QUALITY) -> None:
        self.width, self.quality = width, quality
        self._lock = threading.Lock()
        self._seq = -1
        self._jpeg: bytes | None = None

    def jpeg(self, seq: int, picture: Any) -> bytes | None:
        """The JPEG of preview number ``seq`` (``picture``), or None when there is none."""
        with self._lock:
            if seq != self._seq:
                self._seq, self._jpeg = seq, (None if picture is None else encode_preview(picture, self.width,
                                                                                          self.quality))
            return self._jpeg


__all__ = ["PreviewJpegs", "StateMessages", "encode_preview", "flag_banners", "render_state", "stored_game"]
