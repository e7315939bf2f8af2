"""Figures of the companion: verdict latency to the page, frames per second, CPU share and memory of ``serve``.

Runs ``thoughtwave serve --demo`` (the demo camera plays its scripted game in real time) as a subprocess,
listens to ``/api/events`` like a browser, and for every verdict measures:

* tile laid -> page: from the instant the tile touches the board under the player's fingers (the demo
  camera's timeline knows when) to the SSE message arriving; an upper bound of "hand leaving -> page",
  as it also holds the hand's withdrawal (0.25 s over the cell, 0.8 s going away) and the stabiliser's
  ``stable_seconds``;
* hand out of view -> page: from the frame in which the hand has left the picture altogether (it
  leaves the board itself earlier, so this can be near zero or even negative);
* frame -> page: from the loop reading the frame that settled it to the SSE message arriving
  (vision + referee + SQLite commit with fsync + push).

CPU share and resident memory come from ``/proc/<pid>`` of the serve process.

``--oracle`` runs the same loop, store and web server in this process with a reader that knows what
the demo camera drew (no pixel reading): the figure of everything but recognition, usable before the
tile reader exists. Without it, the real recogniser is used.

    .venv/bin/python bench/serve.py --seconds 90
    .venv/bin/python bench/serve.py --oracle --seconds 60 --thinking     # fps with and without the computer

``--thinking`` watches a second window of ``--seconds`` with the computer thinking beside the companion
(``bench/thinking.py``: searches of ``--move-seconds`` back to back in their own process, with the search's
own worker processes, as the companion's worker runs them in a game against the computer) and prints
the frames per second of both windows.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from thoughtwave.synth.demo import Lay, Timeline  # noqa: E402


class SseClient(threading.Thread):
    """Reads ``/api/events`` and keeps (arrival time, state) for every message."""

    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        self.url = url
        self.messages: list[tuple[float, dict]] = []
        self.stop = False

    def run(self) -> None:
        with urllib.request.urlopen(self.url + "/api/events", timeout=60) as response:
            data: list[str] = []
            for raw in response:
                arrived = time.time()
                line = raw.decode().rstrip("\n")
                if line.startswith("data: "):
                    data.append(line[6:])
                elif not line and data:
                    self.messages.append((arrived, json.loads("".join(data))))
                    data = []
                if self.stop:
                    return


def proc_cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def proc_rss_mb(pid: int) -> tuple[float, float]:
    """(resident now, peak resident) in MB."""
    values = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, rest = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            values[key] = int(rest.split()[0]) / 1024
    return values.get("VmRSS", 0.0), values.get("VmHWM", 0.0)


def lay_times(timeline: Timeline, frame_t: float) -> tuple[float, float] | None:
    """Camera times (tile laid, hand out of the picture) of the latest tile laid by ``frame_t``."""
    number, t_game = divmod(frame_t, timeline.duration)
    lays = [v for v in timeline.visits if isinstance(v.action, Lay) and v.change is not None and v.change <= t_game]
    if not lays:
        return None
    start = number * timeline.duration
    return start + lays[-1].change, start + lays[-1].end


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]


def watch(client: SseClient, pid: int, seconds: float) -> tuple[list[float], float]:
    """The camera's frames per second from the latest state message, once a second for ``seconds``,
    and the peak resident memory (MB) seen meanwhile."""
    fps: list[float] = []
    peak = 0.0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        time.sleep(1.0)
        peak = max(peak, *proc_rss_mb(pid))
        if client.messages:
            fps.append(client.messages[-1][1]["camera"]["fps"])
    return fps, peak


def start_subprocess(state_dir: Path, fps: float, resolution: str, camera: str) -> tuple[subprocess.Popen, str]:
    config = state_dir / "config.toml"
    width, height = resolution.lower().split("x")
    config.write_text(f'state_dir = "{state_dir}"\n[camera]\nsource = "{camera}"\nfps = {fps}\n'
                      f'resolution = [{int(width)}, {int(height)}]\n[display]\nspeech = false\n')
    process = subprocess.Popen([sys.executable, "-m", "thoughtwave.cli", "serve", "--port", "0",
                                "--config", str(config)], cwd=ROOT, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True)
    for line in process.stdout:
        if "http://" in line:
            return process, "http://" + line.split("http://", 1)[1].split("/", 1)[0]
    raise SystemExit("serve did not start (is the vision pipeline there? try --oracle)")


def start_in_process(state_dir: Path, fps: float, resolution: str = "1280x960"):
    """The companion with an oracle reader, served by waitress in this process; returns (url, stop)."""
    import numpy as np
    from waitress import create_server

    from thoughtwave.engine import CELLS, Rules
    from thoughtwave.game import Companion, Settings, Store
    from thoughtwave.synth.demo import DemoCamera
    from thoughtwave.vision.reading import BoardReading, CellReading
    from thoughtwave.vision.watch import Watcher
    from thoughtwave.webui.app import create_app, load_secret_key

    class OracleReader:
        """Reads what the demo camera drew (its ground truth) instead of the pixels."""

        pose_moved = False

        def __init__(self) -> None:
            self.truth = None

        def read(self, image: np.ndarray) -> BoardReading:
            truth = self.truth
            cells = {c: CellReading.empty() for c in CELLS}
            for cell, (colour, piece) in truth.tiles.items():
                cells[cell] = CellReading.tile(colour, piece)
            for cell in truth.occluded_cells:
                cells[cell] = CellReading.unreadable()
            return BoardReading(True, cells, bool(truth.occluded_cells), frozenset(truth.occluded_cells))

        def draw_overlay(self, image: np.ndarray) -> np.ndarray:
            return image

    reader = OracleReader()
    size = tuple(int(n) for n in resolution.lower().split("x"))

    class TruthCamera(DemoCamera):
        def read(self):
            frame = super().read()
            reader.truth = self.truth
            return frame

    store = Store.in_dir(state_dir)
    companion = Companion(store, Rules(), lambda: TruthCamera(fps=fps, resolution=size),
                          lambda table: Watcher(table=table, reader=reader),
                          Settings(speech=False))
    app = create_app(companion, pin="000000", secret_key=load_secret_key(state_dir))
    server = create_server(app, host="127.0.0.1", port=0, threads=4)
    threading.Thread(target=server.run, daemon=True).start()
    companion.start()

    def stop() -> None:
        companion.stop()
        server.close()
        store.close()

    return f"http://127.0.0.1:{server.effective_port}", stop


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=90.0, help="how long to watch (one demo game is ~75 s)")
    parser.add_argument("--fps", type=float, default=10.0, help="demo camera frame rate")
    parser.add_argument("--resolution", default="1280x960", help="camera size WxH (the config default is 1280x960)")
    parser.add_argument("--camera", default="demo",
                        help="serve's camera source (default demo; e.g. dir:FRAMES for memory without the renderer)")
    parser.add_argument("--oracle", action="store_true", help="in-process, with a reader that knows the truth")
    parser.add_argument("--thinking", action="store_true",
                        help="then watch as long again with the computer thinking beside the companion")
    parser.add_argument("--move-seconds", type=float, default=4.0, help="with --thinking: seconds a search")
    parser.add_argument("--workers", type=int, default=None, help="with --thinking: the search's processes")
    args = parser.parse_args()
    timeline = Timeline()
    with tempfile.TemporaryDirectory() as tmp:
        state_dir = Path(tmp)
        if args.oracle:
            url, stop = start_in_process(state_dir, args.fps, args.resolution)
            pid, process = os.getpid(), None
        else:
            process, url = start_subprocess(state_dir, args.fps, args.resolution, args.camera)
            pid, stop = process.pid, None
        client = SseClient(url)
        client.start()
        time.sleep(1.0)
        warm = time.monotonic() + 30.0      # the first frames: the camera's rate is not yet measured
        while time.monotonic() < warm and not (client.messages and client.messages[-1][1]["camera"]["fps"]):
            time.sleep(0.5)
        cpu0, wall0 = proc_cpu_seconds(pid), time.monotonic()
        fps_seen, peak = watch(client, pid, args.seconds)
        cpu = (proc_cpu_seconds(pid) - cpu0) / (time.monotonic() - wall0)
        fps_thinking: list[float] = []
        thinking_report = ""
        if args.thinking:
            thinker = subprocess.Popen([sys.executable, str(ROOT / "bench" / "thinking.py"),
                                        "--seconds", f"{args.seconds + 2:g}",
                                        "--move-seconds", f"{args.move_seconds:g}"]
                                       + ([] if args.workers is None else ["--workers", str(args.workers)]),
                                       cwd=ROOT, stdout=subprocess.PIPE, text=True)
            time.sleep(1.0)         # the thinker imports and starts its first search
            fps_thinking, peak_thinking = watch(client, pid, args.seconds)
            peak = max(peak, peak_thinking)
            thinking_report = thinker.communicate(timeout=60)[0].strip()
        rss, hwm = proc_rss_mb(pid)
        client.stop = True
        if process is not None:
            process.terminate()
            process.wait(10)
        elif stop is not None:
            stop()

    frame_to_page, hand_to_page, laid_to_page, verdicts = [], [], [], 0
    last_decided = 0.0
    for arrived, state in client.messages:
        if not state.get("moves") or state.get("decided", 0) == last_decided:
            continue
        last_decided = state["decided"]
        verdicts += 1
        frame_to_page.append(arrived - state["seen"])
        if state.get("frame_t") is not None and args.camera == "demo":
            times = lay_times(timeline, state["frame_t"])
            if times is not None:
                laid, gone = times
                hand_to_page.append(state["frame_t"] - gone + (arrived - state["seen"]))
                laid_to_page.append(state["frame_t"] - laid + (arrived - state["seen"]))
    mode = "oracle reader, in-process" if args.oracle else "real recogniser, serve subprocess"
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"companion, camera {args.camera} {args.resolution} at {args.fps:g} fps, {args.seconds:g} s, {mode}; "
          f"{os.cpu_count()} cores, load average {load} (shared machine)")
    print(f"{'figure':<34} {'median':>9} {'p95':>9} {'n':>4}")
    for name, values in (("tile laid -> verdict on page (s)", laid_to_page),
                         ("hand out of view -> page (s)", hand_to_page),
                         ("frame -> verdict on page (ms)", [v * 1000 for v in frame_to_page])):
        if values:
            print(f"{name:<34} {statistics.median(values):>9.3f} {percentile(values, 0.95):>9.3f} {len(values):>4}")
    if fps_seen:
        print(f"{'frames per second sustained':<34} {statistics.median(fps_seen):>9.1f} "
              f"{percentile(fps_seen, 0.05):>9.1f} {len(fps_seen):>4}   (median, 5th percentile, samples)")
    if args.thinking:
        if fps_thinking:
            print(f"{'fps while the computer thinks':<34} {statistics.median(fps_thinking):>9.1f} "
                  f"{percentile(fps_thinking, 0.05):>9.1f} {len(fps_thinking):>4}   ({thinking_report})")
        else:
            print("fps while the computer thinks: no state messages seen")
    print(f"{'CPU share of one core':<34} {cpu * 100:>8.0f}%")
    print(f"{'resident memory (MB): end / peak':<34} {rss:>9.0f} {max(peak, hwm):>9.0f}")
    print(f"verdicts seen: {verdicts}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
