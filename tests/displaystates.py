"""The display served in a known state, for the browser tests and the screenshots (bench/screenshots.py).

Each state is a scripted game (no camera, no timing races): ``midgame`` (twelve moves, Red to move),
``flag`` (a new game begun with seventeen pieces still on the board and a hand resting on it: two
banners) and ``winner`` (Red has joined west and east). ``served_state`` plays the script to its end
before it yields, so every page shows the same thing however slowly the browser comes.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from serving import serving

from thoughtwave.engine import Rules
from thoughtwave.game import Companion, ScriptedGame, ScriptedSource, Settings, Store
from thoughtwave.webui.app import create_app, load_secret_key

PIN = "1357"

# Red builds along row 5 (west to east); Black along rows 1 and 3. Legal in this order.
MOVES = ["red ew@A5", "black ns@A1", "red ew@B5", "black ns@C1", "red ew@C5", "black ns@E1", "red ew@D5",
         "black ns@G1", "red ew@E5", "black nes@I1", "red nesw@F5", "black nesw@A3", "red nesw@G5",
         "black nesw@C3", "red esw@H5", "black ns@E3", "red esw@I5"]
WINNING_MOVES = ["black ne@G3", "red esw@J5"]

STATES = ("midgame", "flag", "winner")


def _script(state: str) -> list[str]:
    if state == "midgame":
        return MOVES[:12]
    if state == "flag":
        return [*MOVES, "hand 100000"]
    if state == "winner":
        return [*MOVES, *WINNING_MOVES]
    raise ValueError(f"unknown display state {state!r}")


def _settled(companion: Companion, state: str) -> bool:
    snap = companion.state()
    if state == "midgame":
        return len(snap.verdicts) == 12
    if state == "flag":
        kinds = {n.kind for n in snap.notices}
        return "hand" in kinds and len(snap.notices) == len(MOVES) + 1
    return snap.winner is not None


@contextmanager
def served_state(state: str, state_dir: Path, timeout: float = 20.0) -> Iterator[tuple[str, Companion]]:
    """The app serving a game in ``state`` (one of ``STATES``), settled; yields (base URL, companion).

    The flag state plays seventeen moves, then starts a new game as the control page's "New game" does,
    with the pieces still lying there, while a hand rests on the board."""
    game = ScriptedGame(_script(state), frames_per_step=1)
    store = Store.in_dir(state_dir)
    companion = Companion(store, Rules(), lambda: ScriptedSource(40), game.watcher,
                          Settings(speech=False, hand_warning_seconds=0.3, auto_new_game=False))
    app = create_app(companion, pin=PIN, secret_key=load_secret_key(state_dir), threads=8)
    try:
        with serving(app, threads=8) as url:
            companion.start()
            deadline = time.monotonic() + timeout
            if state == "flag":
                while len(companion.state().verdicts) < len(MOVES):
                    if time.monotonic() > deadline:
                        raise TimeoutError("the flag script did not lay its moves")
                    time.sleep(0.05)
                companion.new_game()
            while not _settled(companion, state):
                if time.monotonic() > deadline:
                    raise TimeoutError(f"the {state} state did not settle: {companion.state().notices}")
                time.sleep(0.05)
            try:
                yield url, companion
            finally:
                companion.stop()      # streams end when the companion stops
    finally:
        store.close()
