"""Shared test doubles and helpers for the game loop: a scripted companion, a recorder of what it
publishes (as the display's JSON), and driving the loop frame by frame without its thread."""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from thoughtwave.engine import Rules
from thoughtwave.game import Companion, ScriptedGame, ScriptedSource, Settings, Snapshot, Store
from thoughtwave.webui.view import render_state

FAST = Settings(backoff_start=0.02, backoff_cap=0.05, stall_seconds=0.5, hand_warning_seconds=10.0)


class Published:
    """Every state ``companion`` publishes, as the display's JSON, in order (the scripts run faster than
    a test can look, so a test reads what was shown)."""

    def __init__(self, companion: Companion) -> None:
        self.states: list[dict] = []
        companion.listen(lambda snapshot: self.states.append(render_state(snapshot)))


def state(companion: Companion) -> dict:
    """The companion's latest state as the display's JSON."""
    return render_state(companion.state())


def shown(snapshot: Snapshot) -> dict:
    return render_state(snapshot)


def scripted(script: list[str], *, store: Store | None = None, settings: Settings = FAST, rules: Rules | None = None,
             source: Callable | None = None, make_computer: Callable | None = None,
             frames_per_step: int = 1) -> tuple[Companion, ScriptedGame]:
    """A companion (not started) over a scripted game, with a fast source (50 frames a second of frame time,
    given at once)."""
    game = ScriptedGame(script, frames_per_step=frames_per_step)
    companion = Companion(store or Store(":memory:"), rules or Rules(),
                          source or (lambda: ScriptedSource(fps=50, realtime=False)), game.watcher, settings,
                          make_computer=make_computer)
    return companion, game


class Driver:
    """Runs the loop's work by hand, frame by frame, from its own fast scripted source."""

    def __init__(self, companion: Companion, game: ScriptedGame | None = None) -> None:
        self.companion, self.game = companion, game
        self.source = ScriptedSource(fps=50, realtime=False)

    def frames(self, count: int) -> dict:
        """Show ``count`` frames; the state after them."""
        for _ in range(count):
            self.companion.process(self.source.read())
        return state(self.companion)

    def steps(self, steps: int = 1) -> dict:
        """Show frames until the script has taken ``steps`` more steps (and at least one frame was seen)."""
        game = self.game
        assert game is not None
        target = min(game.position + steps, len(game.steps))
        for _ in range(10 * steps + 5):
            if game.position >= target and game.frames:
                break
            self.companion.process(self.source.read())
        return state(self.companion)

    def play(self, *lines: str) -> dict:
        """Add ``lines`` to the script and show frames until it has played them."""
        game = self.game
        assert game is not None
        game.steps.extend(lines)
        for _ in range(3 * len(lines) + 2):
            if game.position == len(game.steps):
                break
            self.companion.process(self.source.read())
        return state(self.companion)


@contextlib.contextmanager
def read_only(path: Path):
    """``path`` (a file or a directory) read-only for this process: by its mode for an ordinary user; for
    root, who may write anything, by a read-only bind mount over it (skipped where mounting is not allowed)."""
    if os.geteuid() != 0:
        mode = path.stat().st_mode
        path.chmod(0o555 if path.is_dir() else 0o444)
        try:
            yield
        finally:
            path.chmod(mode)
        return
    done = subprocess.run(["mount", "--bind", str(path), str(path)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"running as root and cannot bind-mount read-only here: {done.stderr.strip()}")
    try:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(path)], check=True, capture_output=True)
        yield
    finally:
        subprocess.run(["umount", str(path)], check=True)
