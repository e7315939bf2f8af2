"""Start-up checks of the state directory and its games database, run before the Store opens them.

A damaged database (an overwritten header, a damaged page inside), an empty file where the database
should be, or one the service cannot write would otherwise start "fine" and then fail game after game
(or quietly become a new, empty database). ``check_state_dir`` refuses each with a ``StateError``: one
line naming the file and what to do. The checks never change the file: the database is opened read-only
and immutable (no journal, no locks, no -wal or -shm made), so it stays byte for byte as it was for
whoever restores it. ``serve`` runs them before it opens the Store; the installer's backup is what they
tell the user to restore.
"""

from __future__ import annotations

import errno
import os
import sqlite3
import tempfile
from pathlib import Path
from urllib.parse import quote

#: The games database's file name in the state directory (``Store.in_dir`` opens this one).
DB_NAME = "games.sqlite3"
#: The copy the installer makes of the database before each update (systemd/install.sh).
BACKUP_SUFFIX = ".backup"
#: Up to this size the full ``integrity_check`` runs (a second or two on a Pi); above it ``quick_check``,
#: which skips the index-against-table comparison but still reads every page.
FULL_CHECK_BYTES = 64 * 2**20
#: Files SQLite keeps beside the database in WAL mode; they must be writable too.
COMPANIONS = ("-wal", "-shm")


class StateError(Exception):
    """The state directory or its database cannot be used; the message is one line saying what to do."""


def disk_full_text(path: Path | str) -> str:
    """What to tell the user when a write failed for lack of space: the cause and where to free it."""
    return f"the disk is full: free space on the disk holding {path}"


def is_disk_full(err: BaseException) -> bool:
    """Whether ``err`` (an OSError or an SQLite error) means there was no space left to write. The errors it
    was raised while handling count too: SQLite rolls back a transaction itself when the disk fills, so the
    Store's own ROLLBACK then fails ("no transaction is active") and hides the full disk behind it."""
    seen: BaseException | None = err
    for _ in range(8):
        if seen is None:
            return False
        if isinstance(seen, OSError) and seen.errno in (errno.ENOSPC, errno.EDQUOT):
            return True
        if isinstance(seen, sqlite3.Error) and (
                getattr(seen, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL or "disk is full" in str(seen)):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def storage_failure(err: BaseException, db: Path | str) -> str:
    """Why a write to the games database ``db`` failed, in words for the display: a full disk says so and
    where to free space, anything else its own message."""
    if is_disk_full(err):
        return disk_full_text(Path(str(db)).resolve().parent)
    return str(err)


def _advice(db: Path) -> str:
    backup = db.with_name(db.name + BACKUP_SUFFIX)
    return (f"stop the companion, then restore the backup the installer made ({backup}) or move {db.name} "
            "aside to start with no games")


def check_state_dir(state_dir: Path | str, db_name: str = DB_NAME) -> None:
    """Make sure ``state_dir`` exists and can be written (a probe file is written, synced and removed) and
    that its database, if there is one, is sound and writable; a StateError (one line) otherwise."""
    state_dir = Path(state_dir)
    try:
        state_dir.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise StateError(f"cannot make the state directory {state_dir}: {_reason(err, state_dir)}") from None
    _write_probe(state_dir)
    check_database(state_dir / db_name)


def _reason(err: OSError, where: Path) -> str:
    if is_disk_full(err):
        return disk_full_text(where)
    return str(err.strerror or err)


def _write_probe(state_dir: Path) -> None:
    """Write, sync and remove a small file: SQLite needs to make its journal files beside the database."""
    try:
        fd, name = tempfile.mkstemp(prefix=".write-probe-", dir=state_dir)
    except OSError as err:
        raise StateError(f"cannot write in the state directory {state_dir}: {_reason(err, state_dir)} "
                         "(give the companion's user write access, or choose another --state-dir)") from None
    try:
        os.write(fd, b"\0" * 4096)
        os.fsync(fd)
    except OSError as err:
        raise StateError(f"cannot write in the state directory {state_dir}: {_reason(err, state_dir)}") from None
    finally:
        os.close(fd)
        os.unlink(name)


def check_database(db: Path) -> None:
    """Refuse (StateError, one line) a database file that is not a regular file, is empty, cannot be
    written, or fails SQLite's integrity check. A missing file is fine: the Store makes a new one."""
    if not db.exists() and not db.is_symlink():
        return
    if not db.is_file():
        raise StateError(f"{db} is not a file where the games database should be: {_advice(db)}")
    if db.stat().st_size == 0:
        # SQLite would take a zero-byte file as a new, empty database and the games would be gone unseen.
        raise StateError(f"the games database {db} is empty (0 bytes): {_advice(db)}")
    for path in [db] + [db.with_name(db.name + suffix) for suffix in COMPANIONS]:
        if path.exists():
            _check_writable(path, db)
    problem = integrity_problem(db)
    if problem:
        raise StateError(f"the games database {db} is damaged ({problem}): {_advice(db)}")


def _check_writable(path: Path, db: Path) -> None:
    try:
        fd = os.open(path, os.O_RDWR)   # opening for writing writes nothing
    except OSError as err:
        raise StateError(f"the games database {path} cannot be written ({err.strerror}): give the companion's "
                         f"user write access to it and to {db.parent}, or move {db.name} aside to start with "
                         "no games") from None
    os.close(fd)


def integrity_problem(db: Path, full_check_bytes: int = FULL_CHECK_BYTES) -> str | None:
    """The first problem SQLite's integrity check finds in ``db`` (with how many more), or None when it is
    sound. ``integrity_check`` up to ``full_check_bytes``, ``quick_check`` above. Read-only and immutable:
    the file is not changed, and a -wal beside it is not read (the Store replays it when it opens)."""
    pragma = "integrity_check" if db.stat().st_size <= full_check_bytes else "quick_check"
    uri = f"file:{quote(str(db.resolve()))}?mode=ro&immutable=1"
    try:
        connection = sqlite3.connect(uri, uri=True)
    except sqlite3.Error as err:
        return str(err)
    try:
        rows = [row[0] for row in connection.execute(f"PRAGMA {pragma}(20)")]
    except sqlite3.Error as err:    # "file is not a database", "database disk image is malformed"
        return str(err)
    finally:
        connection.close()
    if rows == ["ok"]:
        return None
    first = " ".join(str(rows[0]).split()) if rows else "no answer from the check"
    more = f" and {len(rows) - 1} more problem(s)" if len(rows) > 1 else ""
    return f"{pragma}: {first}{more}"
