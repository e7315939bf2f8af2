"""Persistence of games in SQLite, so a crash, ``kill -9`` or power cut loses nothing that was shown.

The store keeps each game (rules, players, started, ended, result) and the ordered list of its
actions: ``attempt`` (a placement seen or typed, with its verdict), ``undo`` (take back the last
verdict) and ``correct`` (a cell was misread: what is really there). Every action is committed with
``synchronous=FULL`` before the caller shows it. ``game.log.GameLog`` replays actions into a
``Referee``; the live companion and a restart use the same replay, so they cannot disagree.

>>> store = Store(":memory:"); game = store.new_game(Rules())
>>> _ = store.add_attempt(game, "red", "ew@E5", "legal", None)
>>> GameLog.replay(store.game(game).rules, store.actions(game)).referee.to_move.value
'black'
"""

from __future__ import annotations

import datetime
import json
import logging
import os
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from thoughtwave.engine import GameRecord, Rules
from thoughtwave.game.dbcheck import DB_NAME
from thoughtwave.game.log import Action, GameLog, cell_of

log = logging.getLogger(__name__)

_SELECT_GAMES = "SELECT id, rules, red, black, started, ended, result, opponent FROM games"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id      INTEGER PRIMARY KEY,
    rules   TEXT NOT NULL,
    red     TEXT NOT NULL DEFAULT '',
    black   TEXT NOT NULL DEFAULT '',
    started TEXT NOT NULL,
    ended   TEXT,
    result  TEXT NOT NULL DEFAULT 'ongoing',
    opponent TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS actions (
    id      INTEGER PRIMARY KEY,
    game    INTEGER NOT NULL REFERENCES games(id),
    kind    TEXT NOT NULL CHECK (kind IN ('attempt', 'undo', 'correct')),
    colour  TEXT,
    move    TEXT NOT NULL DEFAULT '',
    cell    TEXT,
    verdict TEXT,
    reason  TEXT,
    at      TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS actions_by_game ON actions (game, id);
CREATE TABLE IF NOT EXISTS logins (
    token   TEXT PRIMARY KEY,
    pin     TEXT NOT NULL,
    seen    REAL NOT NULL
);
"""

#: The largest id SQLite gives (64-bit signed): a larger one names no game.
MAX_ID = 2**63 - 1


class StorageError(Exception):
    """A change that could not be stored (disk full, damaged file, text SQLite cannot hold): none of it was."""


def now_text() -> str:
    """The current UTC time as ISO 8601 to the second, as stored."""
    return datetime.datetime.now(datetime.UTC).replace(microsecond=0).isoformat()


@dataclass(frozen=True)
class GameRow:
    """One stored game."""

    id: int
    rules: Rules
    red: str
    black: str
    started: str
    ended: str | None
    result: str
    opponent: dict | None = None     # a game against the computer: {"colour", "level", "seconds"}

    def to_json(self) -> dict:
        return {"id": self.id, "red": self.red, "black": self.black, "started": self.started,
                "ended": self.ended, "result": self.result, "rules": self.rules.to_json(),
                "opponent": self.opponent}


class Store:
    """The SQLite file in the state directory. Thread-safe: one connection behind a lock."""

    def __init__(self, path: Path | str) -> None:
        self.path = path
        self._lock = threading.Lock()
        if str(path) != ":memory:":
            _create_private(Path(path))
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        # FULL: a commit is on the disk (WAL fsynced) before we show the verdict it holds.
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute("PRAGMA foreign_keys=ON")
        self._db.executescript(_SCHEMA)
        self._migrate()

    def _migrate(self) -> None:
        """Bring a database made by an older version up to this schema (its games keep their meaning)."""
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(games)")}
        if "opponent" not in columns:   # from before games against the computer: all of two people
            try:
                self._db.execute("ALTER TABLE games ADD COLUMN opponent TEXT NOT NULL DEFAULT ''")
            except sqlite3.OperationalError:   # another process added it first
                if "opponent" not in {row[1] for row in self._db.execute("PRAGMA table_info(games)")}:
                    raise

    @classmethod
    def in_dir(cls, state_dir: Path) -> Store:
        """The store ``games.sqlite3`` in ``state_dir`` (created if missing)."""
        state_dir.mkdir(parents=True, exist_ok=True)
        return cls(state_dir / DB_NAME)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _write(self, sql: str, params: tuple) -> int:
        return self._transaction([(sql, params)])

    def _transaction(self, statements: list[tuple[str, tuple]]) -> int:
        """Run ``statements`` as one transaction: all are committed or none (StorageError). Returns the
        last statement's row id."""
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as err:
                raise StorageError(str(err)) from err
            try:
                cursor = None
                for sql, params in statements:
                    cursor = self._db.execute(sql, params)
                self._db.execute("COMMIT")
            except BaseException as err:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                if isinstance(err, sqlite3.Error | UnicodeError | ValueError | OverflowError):
                    raise StorageError(str(err)) from err
                raise
            return int(cursor.lastrowid or 0) if cursor is not None else 0

    def _read(self, sql: str, params: tuple = ()) -> list[tuple]:
        with self._lock:
            return self._db.execute(sql, params).fetchall()

    def pragma(self, name: str) -> Any:
        """The value of SQLite's ``PRAGMA name`` on the store's own connection (e.g. ``synchronous``: 2 is
        FULL), for a health check; ``name`` must be a plain word."""
        if not name.isidentifier():
            raise ValueError(f"not a pragma name: {name!r}")
        return self._read(f"PRAGMA {name}")[0][0]

    # ---- games -------------------------------------------------------------------------------
    def new_game(self, rules: Rules, red: str = "", black: str = "", opponent: dict | None = None) -> int:
        """Start a game (``opponent``: the computer's side, for a game against it); returns its id."""
        return self._write(*_insert_game(rules, red, black, opponent))

    def replace_game(self, ending: int, result: str, rules: Rules, red: str = "", black: str = "",
                     opponent: dict | None = None) -> int:
        """End game ``ending`` with ``result`` and start another, in one transaction: if the new game cannot
        be stored (StorageError), ``ending`` stays as it was. Returns the new game's id."""
        return self._transaction([
            ("UPDATE games SET result = ?, ended = COALESCE(ended, ?) WHERE id = ?", (result, now_text(), ending)),
            _insert_game(rules, red, black, opponent)])

    def set_result(self, game: int, result: str, ended: bool) -> None:
        """Record the result; ``ended`` stamps the end time (cleared again when False)."""
        self._write("UPDATE games SET result = ?, ended = CASE WHEN ? THEN COALESCE(ended, ?) END WHERE id = ?",
                    (result, ended, now_text(), game))

    def game(self, game: int) -> GameRow | None:
        """The game with this id, or None (for any int, however large)."""
        if not 0 < game <= MAX_ID:
            return None
        rows = self._read(_SELECT_GAMES + " WHERE id = ?", (game,))
        return _game_row(rows[0]) if rows else None

    def latest_game(self) -> GameRow | None:
        """The most recent game, finished or not."""
        rows = self._read(_SELECT_GAMES + " ORDER BY id DESC LIMIT 1")
        return _game_row(rows[0]) if rows else None

    def games(self, limit: int = 200) -> list[GameRow]:
        """Games, newest first."""
        rows = self._read(_SELECT_GAMES + " ORDER BY id DESC LIMIT ?", (limit,))
        return [_game_row(r) for r in rows]

    # ---- actions -----------------------------------------------------------------------------
    def add_attempt(self, game: int, colour: str | None, move: str, verdict: str, reason: str | None) -> int:
        """Commit one attempt and its verdict (durable when this returns)."""
        cell = cell_of(move)
        return self._write(
            "INSERT INTO actions (game, kind, colour, move, cell, verdict, reason, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (game, "attempt", colour, move, cell, verdict, reason, now_text()))

    def add_undo(self, game: int) -> int:
        """Commit an undo of the last verdict."""
        return self._write("INSERT INTO actions (game, kind, at) VALUES (?, 'undo', ?)", (game, now_text()))

    def add_correction(self, game: int, cell: str, colour: str | None, piece: str | None) -> int:
        """Commit a correction: ``cell`` really holds ``colour`` ``piece`` (None: it is empty)."""
        return self._write(
            "INSERT INTO actions (game, kind, colour, move, cell, at) VALUES (?, 'correct', ?, ?, ?, ?)",
            (game, colour, piece or "", cell, now_text()))

    def actions(self, game: int) -> list[Action]:
        """Every action of ``game``, oldest first."""
        if not 0 < game <= MAX_ID:
            return []
        rows = self._read("SELECT id, kind, colour, move, cell, verdict, reason, at FROM actions "
                          "WHERE game = ? ORDER BY id", (game,))
        return [Action(*row) for row in rows]

    def record(self, game: int) -> GameRecord | None:
        """The game as a ``GameRecord`` (the attempts that stand after undos and corrections)."""
        row = self.game(game)
        if row is None:
            return None
        referee = GameLog.replay(row.rules, self.actions(game)).referee
        return GameRecord.from_referee(referee, row.red, row.black, row.started[:10])

    # ---- logins (the web layer's sessions) -----------------------------------------------------------
    def add_login(self, token: str, pin: str, now: float) -> None:
        """Keep a login: ``token`` (a digest of the cookie's secret), ``pin`` (a digest of the PIN it used)."""
        self._write("INSERT OR REPLACE INTO logins (token, pin, seen) VALUES (?, ?, ?)", (token, pin, now))

    def login_seen(self, token: str) -> tuple[str, float] | None:
        """(pin digest, last seen) of the login ``token``, or None when there is none."""
        rows = self._read("SELECT pin, seen FROM logins WHERE token = ?", (token,))
        return (rows[0][0], rows[0][1]) if rows else None

    def touch_login(self, token: str, now: float) -> None:
        self._write("UPDATE logins SET seen = ? WHERE token = ?", (now, token))

    def end_login(self, token: str) -> None:
        self._write("DELETE FROM logins WHERE token = ?", (token,))

    def end_logins(self, keep_pin: str | None, idle_since: float) -> None:
        """End every login made with another PIN than ``keep_pin`` (None: all), or last seen before ``idle_since``."""
        self._write("DELETE FROM logins WHERE pin IS NOT ? OR seen < ?", (keep_pin, idle_since))


def _create_private(path: Path) -> None:
    """Create the database file readable by its owner only (SQLite gives its -wal and -shm files the same
    mode); an existing one readable by others is made private, with a warning."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        return
    except FileExistsError:
        pass
    mode = path.stat().st_mode & 0o777
    if mode & 0o077:
        log.warning("%s was readable by others (mode %o): made private (0600)", path, mode)
        os.chmod(path, 0o600)


def _insert_game(rules: Rules, red: str, black: str, opponent: dict | None) -> tuple[str, tuple]:
    return ("INSERT INTO games (rules, red, black, started, opponent) VALUES (?, ?, ?, ?, ?)",
            (json.dumps(rules.to_json()), red, black, now_text(), json.dumps(opponent) if opponent else ""))


def _game_row(row: tuple) -> GameRow:
    try:
        rules = Rules.from_json(json.loads(row[1]))
    except (ValueError, TypeError):
        log.warning("game %s has unreadable rules; using the standard game", row[0])
        rules = Rules()
    opponent = None
    if row[7]:
        try:
            opponent = json.loads(row[7])
        except ValueError:
            log.warning("game %s has an unreadable computer opponent; played as two people", row[0])
        if not isinstance(opponent, dict):
            opponent = None
    return GameRow(row[0], rules, row[2], row[3], row[4], row[5], row[6], opponent)


