"""Where serve keeps its games: the demo's apart from real ones, so a real camera never resumes a demo game."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest


def first_line_of_serve(tmp_path: Path, *args: str) -> str:
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "xdg"), "HOME": str(tmp_path)}
    env.pop("STATE_DIRECTORY", None)
    config = tmp_path / "config.toml"
    config.write_text("")
    proc = subprocess.Popen([sys.executable, "-m", "thoughtwave.cli", "serve", "--port", "0",
                             "--config", str(config), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if "games kept in" in line:
                return line
            if proc.poll() is not None:
                break
        pytest.fail("serve did not say where it keeps its games")
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def test_the_demo_keeps_its_games_apart_from_the_real_camera_s(tmp_path):
    line = first_line_of_serve(tmp_path, "--demo")
    assert f"games kept in {tmp_path / 'xdg' / 'thoughtwave' / 'demo'}" in line
    assert (tmp_path / "xdg" / "thoughtwave" / "demo" / "games.sqlite3").exists()


def test_an_explicit_state_directory_is_used_as_given_even_for_the_demo(tmp_path):
    line = first_line_of_serve(tmp_path, "--demo", "--state-dir", str(tmp_path / "mine"))
    assert f"games kept in {tmp_path / 'mine'}" in line
