"""The demo's data: bilinear resizing against JAX's, the split and the normalisation."""

import jax
import numpy as np
import pytest

from kiln.demo.data import bilinear_matrix, load_digits_32, resize_bilinear


@pytest.mark.parametrize("n_in, n_out", [(8, 32), (5, 12), (4, 4)])
def test_resize_matches_jax(n_in, n_out):
    images = np.random.default_rng(0).standard_normal((3, n_in, n_in))
    expected = np.asarray(jax.image.resize(images, (3, n_out, n_out), method="bilinear"))
    np.testing.assert_allclose(resize_bilinear(images, n_out), expected, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(bilinear_matrix(n_in, n_out).sum(1), 1.0)


def test_digits_split():
    x_train, y_train, x_test, y_test = load_digits_32(test_fraction=0.2, seed=0)
    assert x_train.shape == (1438, 1, 32, 32) and x_test.shape == (359, 1, 32, 32)
    assert x_train.dtype == np.float32 and y_train.dtype == np.int32
    assert abs(float(x_train.mean())) < 1e-4 and abs(float(x_train.std()) - 1) < 1e-4
    assert set(np.unique(y_test)) == set(range(10))
