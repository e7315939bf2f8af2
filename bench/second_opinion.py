"""Train the tile reader's second opinion (``vision/second.py``) on path-traced sets, and write its weights.

    .venv/bin/python bench/second_opinion.py --sets /tmp/pbr7 /tmp/pbr8 /tmp/pbr43 /tmp/pbr47 /tmp/pbr53 /tmp/pbr59 \\
        /tmp/pbr61 [--out vision/second_opinion.npz] [--epochs 12] [--seed 0] [--hard 1 4]

The sets are rendered by ``bench/physical_set.py render`` (seeds 7, 8, 43, 47, 53, 59 and 61 made the shipped weights;
a set it is measured on must not be among them). Every cell of every found board is a sample: the reader's
light-divided picture of it (``vision.second.features``, as the reader sees it in play) and what the frame's record
says it holds; a cell the hand or the lamp covers teaches only that it is covered. Each sample is seen in its four
quarter turns (its sides turned with it). A network is two hidden layers (256 and 128, ReLU) and seven sigmoid
outputs (tile, red, a wave on n, e, s, w, covered); colour and sides are learnt from tiles only. Plain numpy, Adam,
cosine-decayed rate: about 12 s an epoch on one core. One network is trained for each ``--hard`` weight (seed
``--seed`` + its place), the weight the cells the rules leave unreadable count with (the only ones it is asked
about in play): the reader takes a reading only where every network is sure, so networks trained apart must agree.
The weights are stored as int8 with a scale per output.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from physical_set import _blank, _scene_of, lamp_cover  # noqa: E402

from thoughtwave.engine.cells import CELLS  # noqa: E402
from thoughtwave.vision.reading import CellState  # noqa: E402
from thoughtwave.vision.recognizer import Recognizer  # noqa: E402
from thoughtwave.vision.second import WEIGHTS, features  # noqa: E402

HIDDEN = (256, 128)
OUTPUTS = 7
ALL = np.arange(100)


def target(label: str, covered: bool) -> list[float]:
    """[tile, red, n, e, s, w, covered] for a cell holding ``label`` ("empty" or "red nes")."""
    if label == "empty":
        return [0, 0, 0, 0, 0, 0, covered]
    colour, piece = label.split()
    return [1, colour == "red", *(side in piece for side in "nesw"), covered]


def samples(folder: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every cell of every found board of a rendered set: features, targets, which are covered, and which the rules
    alone leave unreadable."""
    xs, ys, covers, hard = [], [], [], []
    for path in sorted(folder.glob("frame-*.json")):
        record = json.loads(path.read_text())
        frame = cv2.imread(str(path.with_suffix(".png")))
        if _blank(frame):
            continue
        recognizer = Recognizer()
        recognizer.reader.second = None
        reading = recognizer.read(frame)
        if not reading.board_found or recognizer.pose is None:
            continue
        geometry = recognizer.finder.geometry
        norm, _ = recognizer.reader.normalise(recognizer.finder.warp(frame, recognizer.pose))
        xs.append(features(norm, geometry.px_per_cell, geometry.margin_px, ALL))
        scene = _scene_of(record, frame)
        hidden = set(record["occluded_cells"]) | (set() if scene is None else lamp_cover(scene, record["draw"][
            "lamp_radius"]))
        covers.append([str(c) in hidden for c in CELLS])
        hard.append([reading.get(c).state is CellState.UNREADABLE for c in CELLS])
        ys.append([target(record["board"].get(str(c), "empty"), str(c) in hidden) for c in CELLS])
        print(f"\r{folder.name} {path.stem}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return (np.concatenate(xs), np.asarray(ys, np.float32).reshape(-1, OUTPUTS), np.asarray(covers).ravel(),
            np.asarray(hard).ravel())


def turned(x: np.ndarray, y: np.ndarray, covered: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The samples in their four quarter turns (clockwise: the north side goes east), flattened, with the loss mask."""
    xs, ys = [], []
    for k in range(4):
        xs.append(np.rot90(x, -k, axes=(1, 2)).reshape(len(x), -1))
        t = y.copy()
        t[:, 2:6] = np.roll(y[:, 2:6], k, axis=1)
        ys.append(t)
    x4, y4 = np.concatenate(xs), np.concatenate(ys)
    mask = np.ones_like(y4)
    mask[:, 1:6] = y4[:, :1]                 # colour and sides from tiles only
    mask[np.tile(covered, 4), :6] = 0        # a covered cell teaches only that it is covered
    return x4, y4, mask


def train(x: np.ndarray, y: np.ndarray, mask: np.ndarray, epochs: int, seed: int,
          batch: int = 256, rate: float = 1e-3, decay: float = 1e-5) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """A ReLU network with sigmoid outputs, trained by Adam on the masked cross-entropy."""
    rng = np.random.default_rng(seed)
    sizes = (x.shape[1], *HIDDEN, OUTPUTS)
    weights = [rng.normal(0, np.sqrt(2 / a), (a, b)).astype(np.float32) for a, b in zip(sizes, sizes[1:], strict=False)]
    biases = [np.zeros(b, np.float32) for b in sizes[1:]]
    params = weights + biases
    m1, m2 = [np.zeros_like(p) for p in params], [np.zeros_like(p) for p in params]
    step = 0
    for epoch in range(epochs):
        started, total = time.perf_counter(), 0.0
        lr = rate * 0.5 * (1 + np.cos(np.pi * epoch / epochs))
        for chunk in np.array_split(rng.permutation(len(x)), max(1, len(x) // batch)):
            acts = [x[chunk]]
            for n, (w, b) in enumerate(zip(weights, biases, strict=True)):
                z = acts[-1] @ w + b
                acts.append(np.maximum(z, 0) if n < len(weights) - 1 else z)
            z, m = acts[-1], mask[chunk]
            total += float((m * (np.logaddexp(0, z) - y[chunk] * z)).sum())
            grad = m * (1 / (1 + np.exp(-z)) - y[chunk]) / len(chunk)
            grads_w, grads_b = [None] * len(weights), [None] * len(weights)
            for n in range(len(weights) - 1, -1, -1):
                grads_w[n], grads_b[n] = acts[n].T @ grad + decay * weights[n], grad.sum(axis=0)
                if n:
                    grad = (grad @ weights[n].T) * (acts[n] > 0)
            step += 1
            for k, (p, g) in enumerate(zip(params, grads_w + grads_b, strict=True)):
                m1[k] = 0.9 * m1[k] + 0.1 * g
                m2[k] = 0.999 * m2[k] + 0.001 * g * g
                p -= lr * (m1[k] / (1 - 0.9 ** step)) / (np.sqrt(m2[k] / (1 - 0.999 ** step)) + 1e-8)
        print(f"epoch {epoch + 1}/{epochs}: loss {total / len(x):.4f} ({time.perf_counter() - started:.0f} s)",
              file=sys.stderr, flush=True)
    return weights, biases


def save(nets: list[tuple[list[np.ndarray], list[np.ndarray]]], out: Path) -> None:
    """The networks' (weights, biases), int8 weights with one scale per output (a quarter of float32's size; the
    outputs move by under 1%)."""
    arrays: dict[str, np.ndarray] = {"layers": np.array(len(nets[0][0])), "nets": np.array(len(nets))}
    for j, (weights, biases) in enumerate(nets):
        for k, (w, b) in enumerate(zip(weights, biases, strict=True)):
            scale = np.maximum(np.abs(w).max(axis=0, keepdims=True), 1e-8) / 127.0
            arrays[f"n{j}_w{k}"] = np.round(w / scale).astype(np.int8)
            arrays[f"n{j}_s{k}"] = scale.astype(np.float32)
            arrays[f"n{j}_b{k}"] = b.astype(np.float32)
    np.savez_compressed(out, **arrays)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", type=Path, nargs="+", required=True, help="folders of bench/physical_set.py render")
    parser.add_argument("--out", type=Path, default=WEIGHTS)
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--hard", type=float, nargs="+", default=[1.0, 4.0],
                        help="a network for each: the weight of the cells the rules leave unreadable (default 1 4)")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    parts = [samples(folder) for folder in args.sets]
    x, y, covered, hard = (np.concatenate(p) for p in zip(*parts, strict=True))
    print(f"{len(x)} cells ({int(y[:, 0].sum())} tiles, {int(covered.sum())} covered, {int(hard.sum())} unreadable "
          "to the rules), four turns each", file=sys.stderr)
    x4, y4, mask = turned(x, y, covered)
    del x
    nets = []
    for j, weight in enumerate(args.hard):
        nets.append(train(x4, y4, mask * np.tile(np.where(hard, weight, 1.0), 4)[:, None].astype(np.float32),
                          args.epochs, args.seed + j))
    save(nets, args.out)
    print(f"wrote {args.out} ({args.out.stat().st_size // 1024} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
