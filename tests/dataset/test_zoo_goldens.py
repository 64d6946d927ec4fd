"""What the model zoo's `create_dataset` functions do, against MindSpore 2.10 goldens.

Goldens: tests/dataset/make_goldens_zoo.py (run under MindSpore's environment) on the cases of zoo_cases.py.
"""

import json
import os

import numpy as np
import pytest
from PIL import Image

import kiln.dataset as ds
import kiln.dataset.vision as vision
from kiln.mindrecord import FileWriter
from tests.dataset import zoo_cases

HERE = os.path.join(os.path.dirname(__file__), "goldens")
with open(os.path.join(HERE, "zoo.json")) as f:
    GOLDEN = json.load(f)
RESIZED = np.load(os.path.join(HERE, "zoo_resize.npz"))


def test_resize_is_bit_exact():
    """uint8 in OpenCV's fixed point, float32 and uint16 in its float arithmetic, NEAREST's source rows, and the
    longer side of a shorter-side resize truncated: every output equal to MindSpore's."""
    got = zoo_cases.resize_goldens(vision)
    assert got.keys() == {k for k in RESIZED.files if not k.startswith("pil/")}
    for key, expected in got.items():
        expected = RESIZED[key]
        assert got[key].dtype == expected.dtype and got[key].shape == expected.shape, key
        np.testing.assert_array_equal(got[key], expected, err_msg=key)


def test_pil_images_are_transformed_by_pillow_and_stay_pil():
    arrays, types = zoo_cases.pil_goldens(vision, Image)
    assert types == GOLDEN["pil_types"]
    for key, got in arrays.items():
        np.testing.assert_array_equal(got, RESIZED[key], err_msg=key)
    with pytest.raises(TypeError, match="ToPIL"):
        vision.Resize(4, vision.Inter.ANTIALIAS)(np.zeros((8, 8, 3), np.uint8))


def test_resize_batched_equals_one_by_one():
    images = np.random.default_rng(0).integers(0, 256, (3, 19, 27, 3)).astype(np.uint8)
    for op in (vision.Resize((11, 40)), vision.Resize(8), vision.Resize((30, 17), vision.Inter.BICUBIC)):
        np.testing.assert_array_equal(op.batch_call(images), np.stack([op(x) for x in images]))
        floats = images.astype(np.float32) / 7
        np.testing.assert_array_equal(op.batch_call(floats), np.stack([op(x) for x in floats]))


def test_concat_use_sampler_shards_rows_across_children():
    got = zoo_cases.concat_goldens(ds)
    assert got.keys() == GOLDEN["concat"].keys()
    for key, expected in GOLDEN["concat"].items():
        assert got[key] == expected, key


def test_concat_use_sampler_splits_mindrecord_children_in_blocks(tmp_path):
    got = zoo_cases.concat_mindrecord_goldens(ds, FileWriter, str(tmp_path))
    assert got == GOLDEN["concat_mindrecord"]


def test_per_batch_map_takes_ragged_input_columns():
    assert zoo_cases.per_batch_map_goldens(ds) == GOLDEN["per_batch_map"]


def test_concat_use_sampler_refuses_what_mindspore_refuses():
    joined = ds.NumpySlicesDataset({"a": np.arange(5)}, shuffle=False) + ds.NumpySlicesDataset({"a": np.arange(3)})
    with pytest.raises(ValueError, match="shuffle=False"):
        joined.use_sampler(ds.DistributedSampler(2, 0, shuffle=True))
    with pytest.raises(ValueError, match="num_samples"):
        joined.use_sampler(ds.DistributedSampler(2, 0, shuffle=False, num_samples=2))
    with pytest.raises(TypeError, match="DistributedSampler or a RandomSampler"):
        joined.use_sampler(ds.SequentialSampler())
    with pytest.raises(ValueError, match="replacement"):
        joined.use_sampler(ds.RandomSampler(replacement=True))
    batched = ds.NumpySlicesDataset({"a": np.arange(4)}, shuffle=False).batch(2)
    with pytest.raises(TypeError, match="concat before batch"):
        (batched + batched).use_sampler(ds.DistributedSampler(2, 0, shuffle=False))


def test_concat_random_sampler_interleaves_children_in_their_order():
    ds.config.set_seed(5)
    joined = ds.NumpySlicesDataset({"a": np.arange(5)}, shuffle=False) + ds.NumpySlicesDataset(
        {"a": np.arange(3) + 10}, shuffle=False
    )
    joined.use_sampler(ds.RandomSampler())
    epochs = []
    it = joined.create_tuple_iterator(output_numpy=True, num_epochs=4)
    for _ in range(4):
        got = [int(r[0]) for r in it]
        assert sorted(got) == [0, 1, 2, 3, 4, 10, 11, 12]
        assert [x for x in got if x < 10] == [0, 1, 2, 3, 4] and [x for x in got if x >= 10] == [10, 11, 12]
        epochs.append(got)
    assert len({tuple(e) for e in epochs}) > 1  # a new interleaving each epoch
