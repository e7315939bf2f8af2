"""The channel helpers of the tile reader give numpy's own numbers, faster."""

import numpy as np
import pytest

from thoughtwave.vision.channels import median_colour


@pytest.mark.parametrize("count", [1, 2, 3, 31, 64, 7056])
def test_the_median_colour_of_whole_numbers_is_numpys_median(count):
    samples = np.random.default_rng(count).integers(0, 256, (count, 3)).astype(np.uint8)
    samples[: count // 3] = 255         # ties at the top, as paper clipped white gives
    expected = np.median(samples.astype(np.float32), axis=0)
    got = median_colour(samples)
    assert got.dtype == expected.dtype == np.float32
    assert np.array_equal(got, expected)
