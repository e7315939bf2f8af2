"""bench/second_opinion.py: the samples it learns from turn with their sides, cover teaches only cover, and the weights
it writes are read back by the reader as they were learnt."""

import json
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

from second_opinion import samples, save, target, turned  # noqa: E402

from thoughtwave.synth import Scene, render  # noqa: E402
from thoughtwave.vision.second import SecondOpinion  # noqa: E402


def test_a_sample_turned_a_quarter_clockwise_has_its_north_wave_on_the_east():
    x = np.ones((1, 20, 20, 3), np.float32)
    x[0, :10, 8:12] = 0.2                             # a dark strip from the north edge to the middle
    y = np.array([target("red n", covered=False)], np.float32)
    x4, y4, mask = turned(x, y, np.array([False]))
    once = x4[1].reshape(20, 20, 3)
    assert once[8:12, 10:].max() < 0.5 and once[:8, 8:12].min() == 1.0      # now east of the middle
    assert y4[1, 2:6].tolist() == [0, 1, 0, 0] and y4[2, 2:6].tolist() == [0, 0, 1, 0]
    assert mask.min() == 1.0


def test_a_covered_cell_teaches_only_that_it_is_covered_and_an_empty_one_no_colour_or_sides():
    y = np.array([target("black es", covered=True), target("empty", covered=False)], np.float32)
    _, y4, mask = turned(np.ones((2, 20, 20, 3), np.float32), y, np.array([True, False]))
    assert mask[0].tolist() == [0, 0, 0, 0, 0, 0, 1] and y4[0, 6] == 1
    assert mask[1].tolist() == [1, 0, 0, 0, 0, 0, 1] and y4[1].sum() == 0


def test_saved_networks_are_read_back_as_learnt_each_in_its_four_views(tmp_path):
    rng = np.random.default_rng(3)
    sizes = (1200, 16, 8, 7)
    nets = [([rng.normal(0, 0.1, (a, b)).astype(np.float32) for a, b in zip(sizes, sizes[1:], strict=False)],
             [rng.normal(0, 0.1, b).astype(np.float32) for b in sizes[1:]]) for _ in range(2)]
    save(nets, tmp_path / "w.npz")
    x = rng.uniform(0, 1.5, (5, 20, 20, 3)).astype(np.float32)
    views = SecondOpinion(tmp_path / "w.npz").probabilities(x)
    assert views.shape == (8, 5, 7)
    for j, (weights, biases) in enumerate(nets):
        z = x.reshape(5, -1)
        for n, (w, b) in enumerate(zip(weights, biases, strict=True)):
            z = z @ w + b
            z = np.maximum(z, 0) if n < 2 else z
        assert views[4 * j] == pytest.approx(1 / (1 + np.exp(-z)), abs=0.02)     # each network's unturned view


def test_samples_are_every_cell_of_a_found_board_with_its_truth(tmp_path):
    frame, truth = render(Scene.random(4400, level="mild", hand=False, resolution=(960, 720)))
    cv2.imwrite(str(tmp_path / "frame-00000.png"), frame)
    (tmp_path / "frame-00000.json").write_text(json.dumps(
        {"board": truth.board_state(), "hand": False, "occluded_cells": [], "draw": {}}))
    x, y, covered, hard = samples(tmp_path)
    assert x.shape == (100, 20, 20, 3) and y.shape == (100, 7) and not covered.any() and hard.shape == (100,)
    assert int(y[:, 0].sum()) == len(truth.tiles)
