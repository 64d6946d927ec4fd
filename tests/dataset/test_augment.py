"""AutoAugment, RandAugment, TrivialAugmentWide: the op table, magnitude bins and pipeline use.

The policies are random (MindSpore's draws cannot be reproduced), so the ops they apply are checked one by one.
"""

import numpy as np
import pytest

import kiln.dataset as ds
import kiln.dataset.vision as v
from kiln.dataset.vision import transforms as T

IMG = (np.random.default_rng(0).random((12, 16, 3)) * 255).astype(np.uint8)


@pytest.mark.parametrize(
    ("name", "mag", "ref"),
    [
        ("Brightness", 0.5, lambda x: v.AdjustBrightness(1.5)(x)),
        ("Color", -0.3, lambda x: v.AdjustSaturation(0.7)(x)),
        ("Contrast", 0.2, lambda x: v.AdjustContrast(1.2)(x)),
        ("Sharpness", 0.4, lambda x: v.AdjustSharpness(1.4)(x)),
        ("Posterize", 5, lambda x: v.Posterize(5)(x)),
        ("Solarize", 100.0, lambda x: v.Solarize(100.0)(x)),
        ("AutoContrast", 0.0, lambda x: v.AutoContrast()(x)),
        ("Equalize", 0.0, lambda x: v.Equalize()(x)),
        ("Invert", 0.0, lambda x: 255 - x),
        ("Rotate", 20.0, lambda x: v.Rotate(20.0)(x)),
        ("Identity", 0.0, lambda x: x),
    ],
)
def test_ops_are_the_named_transforms(name, mag, ref):
    np.testing.assert_array_equal(T._augment_op(IMG, name, mag, v.Inter.NEAREST, 0), ref(IMG))


def test_shear_and_translate_geometry():
    img = np.zeros((6, 8, 3), np.uint8)
    img[:, 2] = 255  # a vertical line at x = 2
    sheared = T._augment_op(img, "ShearX", 0.5, v.Inter.NEAREST, 0)
    cols = [int(np.argmax(sheared[y, :, 0])) for y in range(6)]
    assert cols[0] == 2 and abs(cols[4] - 2) == 2  # row y moves by 0.5 * y about the top-left corner
    moved = T._augment_op(img, "TranslateX", 3.0, v.Inter.NEAREST, 0)
    assert int(np.argmax(moved[0, :, 0])) == 5


def test_magnitude_bins():
    assert T._posterize_bins(10, 4).tolist() == [8, 8, 7, 7, 6, 6, 5, 5, 4, 4]
    assert T._posterize_bins(31, 6)[[0, -1]].tolist() == [8, 2]


@pytest.fixture
def seed3():
    old = ds.config.get_seed()
    ds.config.set_seed(3)
    yield
    ds.config.set_seed(old)


def test_policies_in_pipeline(seed3):
    ops = [v.AutoAugment(), v.AutoAugment(v.AutoAugmentPolicy.SVHN, v.Inter.BILINEAR, (1, 2, 3)),
           v.RandAugment(3, 20), v.TrivialAugmentWide(15)]  # fmt: skip
    d = ds.NumpySlicesDataset({"image": np.stack([IMG] * 6)}, shuffle=False)
    for op in ops:
        outs = [r[0] for r in d.map(op, ["image"]).create_tuple_iterator(output_numpy=True)]
        assert all(o.shape == IMG.shape and o.dtype == np.uint8 for o in outs)
        assert any(not np.array_equal(o, IMG) for o in outs)
    with pytest.raises(RuntimeError):
        v.RandAugment()(IMG.astype(np.float32))
    with pytest.raises(ValueError):
        v.RandAugment(magnitude=31)
