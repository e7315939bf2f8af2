"""Figures of the server under held connections (issue 15): how long a new viewer waits for the page while
50 event streams and 60 slow clients (half a request, then nothing) are held, and how soon a closed
stream's slot can be taken again.

Runs ``thoughtwave serve --moves`` (no camera) as a subprocess on a free 127.0.0.1 port with the default
server settings of the config, then opens the connections from this process (127.0.0.1 only).

    .venv/bin/python bench/abuse.py --viewers 20
"""

from __future__ import annotations

import argparse
import http.client
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PATIENCE = 30.0


def connect(port: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=PATIENCE)
    sock.settimeout(PATIENCE)
    return sock


def open_stream(port: int) -> tuple[socket.socket, int]:
    sock = connect(port)
    sock.sendall(b"GET /api/events HTTP/1.1\r\nHost: bench\r\n\r\n")
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    return sock, int(data.split(b" ", 2)[1]) if data else 0


def viewer_seconds(port: int) -> float:
    started = time.perf_counter()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=PATIENCE)
    connection.request("GET", "/")
    response = connection.getresponse()
    response.read()
    connection.close()
    if response.status != 200:
        raise SystemExit(f"the page answered {response.status}")
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", type=int, default=50)
    parser.add_argument("--slow", type=int, default=60)
    parser.add_argument("--viewers", type=int, default=20, help="new viewers timed one after another")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as state:
        moves = Path(state) / "moves.txt"
        moves.write_text("red ew@E5\nwait 1\n", encoding="utf-8")
        (Path(state) / "config.toml").write_text("", encoding="utf-8")   # the defaults, not /etc's config
        serve = subprocess.Popen(
            [sys.executable, "-m", "thoughtwave.cli", "serve", "--moves", str(moves), "--loop", "--port", "0",
             "--state-dir", state, "--config", str(Path(state) / "config.toml")],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=ROOT)
        held: list[socket.socket] = []
        try:
            assert serve.stdout is not None
            line = serve.stdout.readline()
            found = re.search(r":(\d+)/", line)
            if not found:
                raise SystemExit(f"serve did not start: {line!r}")
            port = int(found.group(1))
            quiet = statistics.median(viewer_seconds(port) for _ in range(args.viewers))
            statuses = []
            for _ in range(args.streams):
                sock, status = open_stream(port)
                held.append(sock)
                statuses.append(status)
            for _ in range(args.slow):
                sock = connect(port)
                sock.sendall(b"GET / HTTP/1.1\r\nHost: bench\r\n")
                held.append(sock)
            times = [viewer_seconds(port) for _ in range(args.viewers)]
            print(f"streams asked {args.streams}: {statuses.count(200)} served, {statuses.count(503)} refused (503)")
            print(f"new viewer, no load:   median {quiet * 1000:.1f} ms")
            print(f"new viewer, {args.streams} streams + {args.slow} slow clients held: median "
                  f"{statistics.median(times) * 1000:.1f} ms, "
                  f"worst {max(times) * 1000:.1f} ms ({args.viewers} viewers)")
            # A closed stream's slot: close one held stream, time until a new stream is served again.
            served = [s for s, status in zip(held, statuses, strict=False) if status == 200]
            served[0].close()
            started = time.perf_counter()
            while True:
                sock, status = open_stream(port)
                sock.close()
                if status == 200 or time.perf_counter() - started > PATIENCE:
                    break
                time.sleep(0.02)
            print(f"closed stream's slot taken again after {(time.perf_counter() - started) * 1000:.0f} ms")
        finally:
            for sock in held:
                sock.close()
            serve.terminate()
            serve.wait(10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
