"""Held connections against a real waitress server, built as ``thoughtwave serve`` builds it (issue 15):
streams capped per client and overall, refused with 503 and ``Connection: close``, a closed stream's slot
freed at once, and a new viewer served while 50 streams and 60 slow clients are held.

Sockets on 127.0.0.1 only, bounded in count (at most 111 at once) and in time (every wait has a timeout);
the only time bound asserted is a generous one for the new viewer (the real figure: bench/abuse.py)."""

import http.client
import socket
import threading
import time
from contextlib import ExitStack, contextmanager

import pytest

from thoughtwave.cli.serve import make_server
from thoughtwave.config import Config, ServerConfig
from thoughtwave.engine import Rules
from thoughtwave.game import Companion, ScriptedGame, ScriptedSource, Settings, Store
from thoughtwave.webui.app import KEPT_THREADS, create_app, load_secret_key

#: Seconds any one socket operation of the test may take before the test fails.
PATIENCE = 5.0


@contextmanager
def served(tmp_path, **server):
    """A companion served by waitress on a free 127.0.0.1 port with ``ServerConfig(**server)``; yields
    (port, the app's stream slots)."""
    config = Config(server=ServerConfig(**server)).with_state_dir(tmp_path)
    game = ScriptedGame([])
    companion = Companion(Store(":memory:"), Rules(), lambda: ScriptedSource(50, realtime=False), game.watcher,
                          Settings())
    companion.refresh()
    app = create_app(companion, pin="246813", secret_key=load_secret_key(tmp_path), config=config)
    server_ = make_server(app, config, "127.0.0.1", 0)
    thread = threading.Thread(target=server_.run, daemon=True)
    thread.start()
    try:
        yield server_.effective_port, app.extensions["thoughtwave"].slots
    finally:
        companion.stop()                  # the streams end within their wake period
        server_.close()
        server_.task_dispatcher.shutdown(timeout=PATIENCE)
        thread.join(PATIENCE)


def connect(port: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=PATIENCE)
    sock.settimeout(PATIENCE)
    return sock


def head(sock: socket.socket) -> tuple[int, str]:
    """The status and the headers (lower case) of the answer on ``sock``."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(4096)
        assert chunk, "the server closed before answering"
        data += chunk
    text = data.split(b"\r\n\r\n", 1)[0].decode("latin-1")
    return int(text.split(" ", 2)[1]), text.lower()


def open_stream(port: int) -> tuple[socket.socket, int, str]:
    sock = connect(port)
    sock.sendall(b"GET /api/events HTTP/1.1\r\nHost: test\r\n\r\n")
    status, headers = head(sock)
    return sock, status, headers


def closed_by_server(sock: socket.socket) -> bool:
    """Whether the server closes ``sock`` (reads to the end; a timeout means it kept it open)."""
    try:
        while sock.recv(4096):
            pass
    except TimeoutError:
        return False
    return True


def new_viewer(port: int) -> int:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=PATIENCE)
    try:
        connection.request("GET", "/")
        response = connection.getresponse()
        assert b"<svg" in response.read()
        return response.status
    finally:
        connection.close()


@pytest.mark.parametrize("per_client", [4, 32])
def test_a_new_viewer_is_served_while_50_streams_and_60_slow_clients_are_held(tmp_path, per_client):
    threads = 8
    cap = min(per_client, threads - KEPT_THREADS)   # one client: the lower of its cap and the overall one
    with served(tmp_path, threads=threads, streams_per_client=per_client) as (port, slots), ExitStack() as held:
        statuses = []
        for _ in range(50):
            sock, status, headers = open_stream(port)
            held.callback(sock.close)            # the client never lets go of its sockets
            statuses.append(status)
            if status == 503:
                assert "connection: close" in headers and "retry-after" in headers
                assert closed_by_server(sock)     # a refused stream holds no connection
        assert statuses.count(200) == cap and statuses.count(503) == 50 - cap
        assert slots.open == cap
        for _ in range(60):                      # slow clients: half a request, then nothing
            sock = connect(port)
            held.callback(sock.close)
            sock.sendall(b"GET / HTTP/1.1\r\nHost: test\r\n")
        started = time.monotonic()
        assert new_viewer(port) == 200
        assert time.monotonic() - started < PATIENCE   # generous: bench/abuse.py measures the real figure


def test_a_closed_streams_slot_is_freed_at_once_not_at_the_next_keep_alive(tmp_path):
    with served(tmp_path, streams_per_client=1) as (port, slots):
        first, status, _ = open_stream(port)
        assert status == 200
        second, status, _ = open_stream(port)
        assert status == 503            # this client holds all it may
        second.close()
        first.close()
        deadline = time.monotonic() + PATIENCE   # the keep-alive comes only after 15 s
        while True:
            sock, status, _ = open_stream(port)
            sock.close()
            if status == 200 or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        assert status == 200


def test_streams_are_capped_per_client_below_the_overall_cap(tmp_path):
    with served(tmp_path, threads=8, streams_per_client=2) as (port, slots), ExitStack() as held:
        answers = []
        for _ in range(3):
            sock, status, _ = open_stream(port)
            held.callback(sock.close)
            answers.append(status)
        assert answers == [200, 200, 503] and slots.open == 2 < slots.cap
