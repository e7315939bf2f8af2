"""The glare and shadow map of the board at calibration: a cell map, a verdict that refuses or warns, and advice."""

import dataclasses

import numpy as np
import pytest
from test_calibration import SAMPLES, warm_lamp_setup, with_tiles

from thoughtwave.calibration.calibrate import calibrate_image
from thoughtwave.calibration.checks import SHADOW_FAIL_CELLS, light_map
from thoughtwave.engine.cells import Cell
from thoughtwave.synth import Glare, Shadow, render
from thoughtwave.vision.causes import CellLight


@pytest.fixture(scope="module")
def scene():
    return with_tiles(warm_lamp_setup(), SAMPLES)


def calibrated(scene, **light):
    return calibrate_image(render(dataclasses.replace(scene, light=dataclasses.replace(scene.light, **light)))[0])


def test_an_evenly_lit_board_has_a_clean_map(scene):
    result = calibrated(scene)
    assert result.ok and result.light.check.ok and not result.light.check.warning
    assert result.light.of("glare") == result.light.of("shadow") == []
    data = result.light.to_json()
    assert data["verdict"] == "ok" and len(data["cells"]) == 10 and all(len(r) == 10 for r in data["cells"])
    assert all(0.5 < v < 1.5 for row in data["light"] for v in row)


def test_a_lamps_reflection_is_mapped_and_refused_with_advice(scene):
    result = calibrated(scene, glare=(Glare((0.45, 0.5), 0.05, 220, 1.5, 20),))
    glare = result.light.of("glare")
    assert len(glare) >= 10 and result.light.of("shadow") == []
    # The reflection sits left of the middle of the picture: so do the cells it washes out.
    assert np.mean([c.col for c in glare]) < 6
    assert not result.ok and not result.light.check.ok
    assert result.light.check.advice.startswith(f"glare on {glare[0]}")
    assert next(c for c in result.checks if c.name == "glare") == result.light.check   # printed with the rest
    assert result.light.to_json()["verdict"] == "fail"


def test_a_shadow_band_is_mapped_along_its_path_and_refused(scene):
    result = calibrated(scene, shadow=Shadow(30, 0.0, 0.1, 0.6))
    shadow = result.light.of("shadow")
    assert len(shadow) > SHADOW_FAIL_CELLS and result.light.of("glare") == []
    assert not result.ok and "move what casts it" in result.light.check.advice


def test_a_few_shaded_cells_only_warn():
    light = np.ones(100, np.float32)
    light[[0, 1]] = 0.5                                     # A1 and B1 under a lamp arm's shadow
    measures = CellLight(light, light * 200, np.zeros(100, np.float32), np.ones(100, np.float32))
    verdict = light_map(measures)
    assert verdict.of("shadow") == [Cell.parse("A1"), Cell.parse("B1")]
    assert verdict.check.ok and verdict.check.warning
    assert verdict.check.advice.startswith("shadow on A1, B1")
    assert verdict.to_json()["verdict"] == "warn"


def test_a_board_too_dark_anywhere_is_refused():
    light = np.ones(100, np.float32)
    measures = CellLight(light, light * 40, np.zeros(100, np.float32), np.ones(100, np.float32))
    verdict = light_map(measures)
    assert not verdict.check.ok and "too dark" in verdict.check.advice
