"""Faults of the state directory at start: a damaged, empty or unwritable games database is refused by
``serve`` with exit 2 and one line naming the file and what to do, and the file is left byte for byte as
it was; a full disk is named as the cause, at start and on the display. The damaged files are made here
from a real database (its header overwritten, a b-tree page in the middle of it smashed)."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from doubles import Driver, read_only, scripted

from thoughtwave.engine import Rules
from thoughtwave.game import Store
from thoughtwave.game.dbcheck import (
    DB_NAME,
    StateError,
    check_state_dir,
    integrity_problem,
    is_disk_full,
    storage_failure,
)
from thoughtwave.game.store import StorageError

SERVE = [sys.executable, "-m", "thoughtwave.cli", "serve", "--port", "0"]
PAGE = 4096


def real_database(state_dir: Path, games: int = 60) -> Path:
    """A games database as the companion leaves it (several pages of games and moves), closed."""
    store = Store.in_dir(state_dir)
    for _ in range(games):
        game = store.new_game(Rules(), "Ada " * 10, "Brian " * 10)
        for move in ("ew@E5", "ns@F5", "ew@D5"):
            store.add_attempt(game, "red", move, "legal", "a reason " * 5)
    store.close()
    return state_dir / DB_NAME


def overwrite_header(db: Path) -> None:
    with db.open("r+b") as file:
        file.write(b"this is not SQLite at all")


def smash_middle_page(db: Path) -> None:
    """Garbage over the start of a b-tree page in the middle of the file (its header and cell pointers)."""
    pages = db.stat().st_size // PAGE
    assert pages > 8
    middle = pages // 2
    with db.open("r+b") as file:
        file.seek(middle * PAGE)
        file.write(b"\xa5" * 300)


def digest(directory: Path) -> dict[str, str]:
    """Every file of ``directory`` with its SHA-256: a check that changes nothing leaves this the same."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(directory.iterdir())}


def serve(state_dir: Path, moves: Path, **kwargs) -> subprocess.CompletedProcess:
    """``thoughtwave serve`` on ``state_dir``; one that starts serving (the fault missed) is stopped by the
    timeout and fails the test."""
    return subprocess.run([*SERVE, "--state-dir", str(state_dir), "--moves", str(moves)], capture_output=True,
                          text=True, timeout=60, **kwargs)


@pytest.fixture
def moves(tmp_path) -> Path:
    path = tmp_path / "moves.txt"
    path.write_text("red ew@E5\n", encoding="utf-8")
    return path


def assert_refused(done: subprocess.CompletedProcess, db: Path, *words: str) -> None:
    err = done.stderr
    assert done.returncode == 2, err
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert str(db) in err and all(word in err for word in words), err


@pytest.mark.parametrize("damage, words", [
    (overwrite_header, ("damaged", "not a database")),
    (smash_middle_page, ("damaged",)),
    (lambda db: db.write_bytes(b""), ("empty (0 bytes)",)),
])
def test_a_damaged_or_empty_database_is_refused_at_start_and_left_as_it_was(tmp_path, moves, damage, words):
    state = tmp_path / "state"
    db = real_database(state)
    damage(db)
    before = digest(state)
    done = serve(state, moves)
    assert_refused(done, db, *words, "restore the backup the installer made", f"{DB_NAME}.backup", "move")
    assert digest(state) == before      # byte-identical, and no -wal or -shm made beside it


def test_the_check_finds_a_smashed_inner_page_that_opening_the_database_does_not(tmp_path):
    db = real_database(tmp_path)
    smash_middle_page(db)
    sqlite3.connect(db).execute("SELECT count(*) FROM sqlite_master").fetchone()   # opens "fine"
    assert integrity_problem(db) and integrity_problem(db, full_check_bytes=0)   # integrity_ and quick_check


def test_a_sound_database_passes_and_serve_still_starts(tmp_path, moves):
    state = tmp_path / "state"
    db = real_database(state)
    assert integrity_problem(db) is None
    check_state_dir(state)
    check_state_dir(tmp_path / "new" / "state")      # a new directory is made, and is fine
    process = subprocess.Popen([*SERVE, "--state-dir", str(state), "--moves", str(moves)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert "Thoughtwave companion on http://" in process.stdout.readline()
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_the_store_and_the_check_name_the_same_file(tmp_path):
    assert Path(Store.in_dir(tmp_path).path) == tmp_path / DB_NAME


# ---- unwritable ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("which", ["file", "directory"])
def test_an_unwritable_database_is_refused_at_start_and_left_as_it_was(tmp_path, moves, which):
    state = tmp_path / "state"
    db = real_database(state)
    before = digest(state)
    with read_only(db if which == "file" else state):
        done = serve(state, moves)
    err = done.stderr
    assert done.returncode == 2 and len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert str(db if which == "file" else state) in err and "write" in err, err
    assert digest(state) == before


# ---- a full disk ---------------------------------------------------------------------------------------

@pytest.fixture
def tiny_disk(tmp_path):
    """A 256 KB tmpfs (needs the right to mount: root in a container that allows it), else skipped."""
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mount)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    yield mount
    subprocess.run(["umount", str(mount)], check=True)


def fill(directory: Path) -> None:
    """Write a file until the disk has no room left."""
    fd = os.open(directory / "filler", os.O_WRONLY | os.O_CREAT)
    try:
        while True:
            os.write(fd, b"\0" * PAGE)
    except OSError as err:
        assert is_disk_full(err)
    finally:
        os.close(fd)


def test_a_full_disk_at_start_says_so_and_where(tiny_disk, moves):
    state = tiny_disk / "state"
    real_database(state, games=5)
    fill(tiny_disk)
    with pytest.raises(StateError, match="the disk is full: free space on the disk holding"):
        check_state_dir(state)
    done = serve(state, moves)
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1, done.stderr
    assert f"the disk is full: free space on the disk holding {state}" in done.stderr


def test_a_write_that_fills_the_disk_is_named_as_a_full_disk(tiny_disk):
    store = Store.in_dir(tiny_disk)
    game = store.new_game(Rules())
    fill(tiny_disk)
    try:
        with pytest.raises(StorageError) as raised:
            for _ in range(10_000):
                store.add_attempt(game, "red", "ew@E5", "legal", "x" * 2000)
    finally:
        store.close()
    assert is_disk_full(raised.value)
    assert storage_failure(raised.value, tiny_disk / DB_NAME) == (
        f"the disk is full: free space on the disk holding {tiny_disk.resolve()}")


def test_the_display_names_a_full_disk_as_the_cause(tmp_path):
    """Through the store seam (any machine): the storage flag says the disk is full and where."""

    class FullDisk(Store):
        def add_attempt(self, *args):   # as SQLite fails on a full disk: the Store's ROLLBACK fails after it
            try:
                raise sqlite3.OperationalError("database or disk is full")
            except sqlite3.Error:
                raise sqlite3.OperationalError("cannot rollback - no transaction is active")  # noqa: B904 (as the Store does)

    companion, game = scripted(["red ew@E5"], store=FullDisk(tmp_path / DB_NAME))
    flags = Driver(companion, game).steps(1)["flags"]
    message = next(f["message"] for f in flags if f["kind"] == "storage")
    assert message == (f"could not save the game (the disk is full: free space on the disk holding "
                       f"{tmp_path.resolve()}); the last move was not counted")
