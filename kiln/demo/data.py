"""The demo's data: scikit-learn's 8x8 handwritten digits, upscaled to 32x32 for LeNet5."""

from __future__ import annotations

import numpy as np

SIZE = 32


def bilinear_matrix(n_in: int, n_out: int) -> np.ndarray:
    """The (n_out, n_in) matrix of 1-D bilinear resampling with half-pixel centers (align_corners=False)."""
    src = (np.arange(n_out) + 0.5) * (n_in / n_out) - 0.5
    src = np.clip(src, 0, n_in - 1)
    lo = np.floor(src).astype(np.int64)
    hi = np.minimum(lo + 1, n_in - 1)
    frac = src - lo
    m = np.zeros((n_out, n_in))
    m[np.arange(n_out), lo] += 1 - frac
    m[np.arange(n_out), hi] += frac
    return m


def resize_bilinear(images: np.ndarray, size: int) -> np.ndarray:
    """Resize (N, H, W) images to (N, size, size); separable, so two small matrix products."""
    rows = bilinear_matrix(images.shape[1], size)
    cols = bilinear_matrix(images.shape[2], size)
    return np.einsum("ih,nhw,jw->nij", rows, images, cols)


def _split_digits(test_fraction: float, seed: int, resize: int | None = None):
    """scikit-learn's digits in [0, 1] (resized to `resize` pixels a side), normalised by the training images' mean
    and standard deviation as float32, and int32 labels, split at random into train and test.

    Returns:
        (x_train, y_train, x_test, y_test).
    """
    # imported on use: scikit-learn is the demo's optional dependency, and kiln.demo.lenet is used without it
    from sklearn.datasets import load_digits  # noqa: PLC0415

    digits = load_digits()
    images = digits.images / 16.0 if resize is None else resize_bilinear(digits.images / 16.0, resize)
    labels = digits.target.astype(np.int32)
    order = np.random.default_rng(seed).permutation(len(images))
    n_test = int(round(len(images) * test_fraction))
    test, train = order[:n_test], order[n_test:]
    mean, std = images[train].mean(), images[train].std()
    images = ((images - mean) / std).astype(np.float32)
    return images[train], labels[train], images[test], labels[test]


def load_digits_32(test_fraction: float = 0.2, seed: int = 0):
    """Digits as normalised (N, 1, 32, 32) float32 images and int32 labels, split into train and test.

    Returns:
        (x_train, y_train, x_test, y_test).
    """
    x_train, y_train, x_test, y_test = _split_digits(test_fraction, seed, resize=SIZE)
    return x_train[:, None], y_train, x_test[:, None], y_test


def load_digits_rows(test_fraction: float = 0.2, seed: int = 0):
    """Digits as sequences for the transformer: (N, 8, 8) float32, each image's 8 rows as 8 tokens of 8 pixels.

    The split is the one of `load_digits_32` with the same arguments (the same images are held out).

    Returns:
        (x_train, y_train, x_test, y_test).
    """
    return _split_digits(test_fraction, seed)
