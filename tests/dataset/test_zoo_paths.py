"""Names zoo data pipelines import from MindSpore's dataset modules: validator_helpers' bounds,
transforms.validators' check, py_transforms_util.rotate, and `context` beside the dataset package."""

import numpy as np
import pytest
from PIL import Image

import kiln
from kiln import dataset
from kiln.dataset import validator_helpers
from kiln.dataset.transforms.validators import check_random_transform_ops
from kiln.dataset.vision import Inter
from kiln.dataset.vision import py_transforms_util as util


def test_bounds_and_context():
    assert validator_helpers.INT32_MAX == 2**31 - 1 and validator_helpers.UINT8_MAX == 255
    assert validator_helpers.FLOAT_MAX_INTEGER == 16777216
    assert dataset.context is kiln.context


def test_rotate_a_quarter_turn():
    pixels = np.arange(48, dtype=np.uint8).reshape(4, 4, 3)
    out = np.asarray(util.rotate(Image.fromarray(pixels), 90, Inter.NEAREST, False, None, 0))
    np.testing.assert_array_equal(out, np.rot90(pixels))  # counter-clockwise
    with pytest.raises(TypeError, match="PIL image"):
        util.rotate(pixels, 90, Inter.NEAREST, False, None, 0)
    with pytest.raises(ValueError, match="ANTIALIAS"):
        util.rotate(Image.fromarray(pixels), 45, Inter.ANTIALIAS, False, None, 0)


class _Choice:
    @check_random_transform_ops
    def __init__(self, transforms, prob=0.5):
        self.transforms, self.prob = transforms, prob


def test_random_transform_ops_check():
    assert _Choice([abs], 1).prob == 1
    with pytest.raises(TypeError):
        _Choice((abs,))
    with pytest.raises(ValueError):
        _Choice([])
    with pytest.raises(TypeError):
        _Choice([abs, 3])
    with pytest.raises(ValueError):
        _Choice([abs], 1.5)
