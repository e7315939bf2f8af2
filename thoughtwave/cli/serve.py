"""``thoughtwave serve``: the companion. Camera -> referee -> live display, served by waitress.

``--demo`` plays a scripted game on a simulated camera; ``--camera pi|usb:N|file:PATH|dir:PATH`` reads a
real one; ``--moves FILE`` plays typed moves with no camera at all (a display demo, and the tests).
Prints the address (and the PIN when none is configured) at start.
"""

from __future__ import annotations

import argparse
import logging
import secrets
import signal
import socket
import sys
from pathlib import Path
from typing import Any

from waitress import create_server

from thoughtwave.calibration.profile import load_profile_if_sound
from thoughtwave.cases import CaseBook
from thoughtwave.cli.errors import UsageError
from thoughtwave.cli.rulesargs import read_moves
from thoughtwave.config import CameraKind, CameraSpec, Config, ConfigError, load_config, open_camera, rules_of
from thoughtwave.configvalues import PIN_DIGITS
from thoughtwave.game import (
    Companion,
    ScriptedGame,
    ScriptedSource,
    Settings,
    Store,
    vision_watcher_factory,
)
from thoughtwave.game.dbcheck import StateError, check_state_dir
from thoughtwave.webui.app import create_app, load_secret_key

#: The demo camera's picture size unless the config asks for another.
DEMO_RESOLUTION = (640, 480)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--demo", action="store_true", help="a simulated camera (640x480) playing a scripted game")
    source.add_argument("--camera", metavar="SRC", help="pi, usb:N, file:PATH or dir:PATH (default: from the config)")
    source.add_argument("--moves", metavar="FILE",
                        help="no camera: lay the moves of FILE one by one (lines like 'red ew@E5', 'off E5', "
                             "'hand 3', 'wait 2', 'clear')")
    parser.add_argument("--move-seconds", type=float, default=1.0, metavar="S",
                        help="with --moves: seconds between steps (default 1)")
    parser.add_argument("--loop", action="store_true", help="with --moves: start the script again at its end")
    parser.add_argument("--host", help="address to listen on (default from the config: 127.0.0.1)")
    parser.add_argument("--port", type=int, help="port (default from the config: 8080; 0 picks a free one)")
    parser.add_argument("--state-dir", metavar="DIR", help="where games and the session key are kept")
    parser.add_argument("--config", metavar="FILE", help="TOML config (default: /etc/thoughtwave/config.toml if there)")


def _camera_parts(args: argparse.Namespace, config: Config) -> tuple[Any, Any, Path | None]:
    """(open_camera, make_watcher, the calibration profile's path if the reader uses it) for a real or demo
    camera, or for a script of moves."""
    if args.moves:
        if not args.move_seconds > 0:
            raise UsageError("--move-seconds must be more than 0")
        fps = 20.0
        script = list(read_moves(args.moves)[0])   # each line's length and their number bounded
        game = ScriptedGame(script, frames_per_step=max(1, round(args.move_seconds * fps)),
                            loop=args.loop)
        return (lambda: ScriptedSource(fps)), game.watcher, None

    try:
        spec = CameraSpec(CameraKind.DEMO) if args.demo else (
            CameraSpec.parse(args.camera) if args.camera else config.camera.spec)
    except ValueError as err:
        raise UsageError(f"--camera {err}") from None
    resolution = config.camera.resolution
    if args.demo:
        # The demo camera renders every frame with numpy: at 640x480 it costs a quarter of the CPU and
        # ~170 MB less memory than at a real camera's 1280x960, and the reader still reads the demo game
        # exactly (bench/serve.py). `camera.source = "demo"` in the config uses the configured size.
        resolution = DEMO_RESOLUTION
    profile = None
    settings = None
    profile_path = None
    if spec.kind is not CameraKind.DEMO:
        profile_path = config.profile_path   # a profile learnt on the real camera would not fit the demo's
        stored, warning = load_profile_if_sound(config.profile_path)
        if warning:
            print(f"warning: {warning}", file=sys.stderr, flush=True)
        if stored is not None:
            profile = stored.reader_profile()
            # The exposure and white balance calibration locked, so the light the reader learnt holds.
            settings = stored.camera_settings()
    try:
        make_watcher = vision_watcher_factory(config.vision.stable_seconds, profile)
    except ImportError as err:
        raise UsageError(f"the vision pipeline is not available: {err}") from None

    def open_the_camera() -> Any:
        return open_camera(spec, fps=config.camera.fps, resolution=resolution, settings=settings)

    return open_the_camera, make_watcher, profile_path


def make_server(app: Any, config: Config, host: str, port: int) -> Any:
    """The waitress server for ``app`` with the config's limits: ``threads`` workers (streams take at most
    all but two), at most ``connection_limit`` connections, idle ones closed after ``channel_timeout``
    seconds. It reads a connection while its stream runs (``channel_request_lookahead``), so a stream
    sees its client gone within a second and frees its slot. OSError when it cannot listen."""
    server = config.server
    return create_server(app, host=host, port=port, threads=server.threads, connection_limit=server.connection_limit,
                         channel_timeout=server.channel_timeout, cleanup_interval=max(1, server.channel_timeout // 3),
                         channel_request_lookahead=1, ident="thoughtwave", asyncore_use_poll=True)


def _check_host(host: str, port: int) -> None:
    """A UsageError (one line) when ``host`` is not an address or a name this machine can resolve."""
    try:
        socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (OSError, ValueError) as err:   # socket.gaierror; ValueError: a NUL or a label IDNA refuses
        reason = getattr(err, "strerror", None) or str(err)
        raise UsageError(f"--host {host}: not an address or a name this machine can resolve ({reason})") from None


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    try:
        config = load_config(Path(args.config) if args.config else None)
    except ConfigError as err:
        raise UsageError(str(err)) from None
    if args.port is not None and not 0 <= args.port <= 65535:
        raise UsageError("--port must be 0-65535")
    host = args.host or config.server.host
    port = config.server.port if args.port is None else args.port
    _check_host(host, port)
    if args.state_dir:
        config = config.with_state_dir(args.state_dir)
    elif args.demo:
        # The demo's games stay apart from real ones: a real camera would otherwise resume the demo game.
        config = config.with_state_dir(config.state_dir / "demo")
    state_dir = config.state_dir
    try:   # before the Store opens it: a damaged, empty or read-only database is refused, left as it is
        check_state_dir(state_dir)
    except StateError as err:
        raise UsageError(str(err)) from None
    try:
        store = Store.in_dir(state_dir)
        secret_key = load_secret_key(state_dir)
    except (OSError, Exception) as err:  # sqlite3.Error and OSError both mean the directory is unusable
        raise UsageError(f"cannot use the state directory {state_dir}: {err}") from None

    camera, make_watcher, profile_path = _camera_parts(args, config)
    settings = Settings(hand_warning_seconds=config.vision.hand_warning_seconds, speech=config.display.speech)
    try:   # misread and unreadable frames are kept as cases in the state directory (thoughtwave.cases)
        companion = Companion(store, rules_of(config), camera, make_watcher, settings,
                              cases=CaseBook(state_dir, profile_path))
    except ImportError as err:  # the vision pipeline (OpenCV reader) is missing or broken
        store.close()
        raise UsageError(f"the vision pipeline is not available: {err}") from None
    pin = config.server.pin
    generated = pin is None
    if generated:
        digits = PIN_DIGITS[0]
        pin = f"{secrets.randbelow(10**digits):0{digits}d}"
    app = create_app(companion, pin=pin, secret_key=secret_key, config=config)
    try:
        server = make_server(app, config, host, port)
    except (OSError, ValueError) as err:   # waitress says ValueError for an address it cannot resolve
        store.close()
        raise UsageError(f"cannot listen on {host}:{port}: {getattr(err, 'strerror', None) or err}") from None

    def terminate(signum: int, frame: Any) -> None:  # systemd stops us with SIGTERM: shut down cleanly
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, terminate)
    companion.start()
    shown_host = f"[{server.effective_host}]" if ":" in str(server.effective_host) else server.effective_host
    print(f"Thoughtwave companion on http://{shown_host}:{server.effective_port}/  (games kept in {state_dir})",
          flush=True)
    if generated:
        print(f"PIN for changes (new game, undo, corrections): {pin}", flush=True)
    try:
        server.run()
    finally:
        companion.stop()
        store.close()
        sys.stdout.flush()
    return 0
