"""Deterministic maps under a batch run once per batch: the result must equal the row-by-row pipeline."""

import numpy as np
import pytest

import kiln
from kiln.dataset import GeneratorDataset, NumpySlicesDataset, transforms, vision


def _ops():
    return [
        vision.Resize((9, 7)),
        vision.Rescale(1.0 / 255.0, 0.0),
        vision.Normalize(mean=(0.2, 0.4, 0.6), std=(0.5, 0.6, 0.7)),
        vision.HWC2CHW(),
    ]


def _row_by_row(images, labels, ops):
    rows = []
    for img, lab in zip(images, labels, strict=True):
        for op in ops:
            img = op(img)
        rows.append((img, transforms.TypeCast(kiln.int32)(lab)))
    return np.stack([r[0] for r in rows]), np.stack([r[1] for r in rows])


@pytest.mark.parametrize("size", [(12, 10), (5, 6)])
def test_fused_batch_equals_row_by_row(size):
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, (10,) + size + (3,), dtype=np.uint8)
    labels = rng.integers(0, 10, 10).astype(np.int64)
    ds = NumpySlicesDataset({"image": images, "label": labels}, shuffle=False)
    ds = ds.map(transforms.TypeCast(kiln.int32), input_columns="label")
    ds = ds.map(_ops(), input_columns="image").batch(4, drop_remainder=False)
    assert ds._fused_maps(), "these maps are deterministic and should run on whole batches"
    got = list(ds.create_tuple_iterator(output_numpy=True))
    want_img, want_lab = _row_by_row(images, labels, _ops())
    np.testing.assert_allclose(np.concatenate([g[0] for g in got]), want_img, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(np.concatenate([g[1] for g in got]), want_lab)
    assert got[0][0].dtype == np.float32 and got[0][1].dtype == np.int32
    assert [g[0].shape[0] for g in got] == [4, 4, 2]


def test_rows_of_different_sizes_fall_back_to_row_by_row():
    rng = np.random.default_rng(1)
    images = [rng.integers(0, 256, (8 + i, 6 + 2 * i, 3), dtype=np.uint8) for i in range(6)]

    def source():
        for i, img in enumerate(images):
            yield img, np.int64(i)

    ds = GeneratorDataset(source, column_names=["image", "label"], shuffle=False)
    ds = ds.map(_ops(), input_columns="image").batch(3)
    got = np.concatenate([b[0] for b in ds.create_tuple_iterator(output_numpy=True)])
    want, _ = _row_by_row(images, list(range(6)), _ops())
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_batch_errors_still_name_the_operation():
    ds = NumpySlicesDataset({"image": np.zeros((4, 5, 5, 2), np.float32)}, shuffle=False)
    ds = ds.map([vision.Normalize(mean=(0.1, 0.2, 0.3), std=(1.0, 1.0, 1.0))], input_columns="image").batch(2)
    with pytest.raises(RuntimeError, match="Normalize: the image has 2 channel"):
        list(ds.create_tuple_iterator(output_numpy=True))
