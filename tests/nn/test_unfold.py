"""nn.Unfold (MindSpore's deprecated patch extractor, `[1, rows, cols, 1]` windows) against a NumPy reference of
TensorFlow-style patches, in both modes; nn.UnfoldExt is mint.nn.Unfold."""

import math

import numpy as np
import pytest

import kiln as ms
from kiln import Tensor, mint, nn


def _patches(x, k, s, r, padding):
    """(N, C, H, W) -> (N, kh*kw*C, oh, ow), each patch ordered (row, col, channel), SAME padding split low-first."""
    (kh, kw), (sh, sw), (rh, rw) = k, s, r
    span_h, span_w = (kh - 1) * rh + 1, (kw - 1) * rw + 1
    n, c, h, w = x.shape
    if padding == "same":
        oh, ow = math.ceil(h / sh), math.ceil(w / sw)
        ph, pw = max((oh - 1) * sh + span_h - h, 0), max((ow - 1) * sw + span_w - w, 0)
        x = np.pad(x, ((0, 0), (0, 0), (ph // 2, ph - ph // 2), (pw // 2, pw - pw // 2)))
    else:
        oh, ow = (h - span_h) // sh + 1, (w - span_w) // sw + 1
    out = np.zeros((n, kh * kw * c, oh, ow), x.dtype)
    for i in range(oh):
        for j in range(ow):
            patch = x[:, :, i * sh : i * sh + span_h : rh, j * sw : j * sw + span_w : rw]
            out[:, :, i, j] = patch.transpose(0, 2, 3, 1).reshape(n, -1)
    return out


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
@pytest.mark.parametrize(
    "k, s, r, padding",
    [((2, 2), (1, 1), (1, 1), "valid"), ((3, 2), (2, 1), (1, 2), "valid"), ((3, 3), (2, 2), (1, 1), "same"),
     ((2, 3), (1, 2), (2, 1), "SAME")],
)  # fmt: skip
def test_unfold_matches_numpy_patches(mode, k, s, r, padding):
    ms.set_context(mode=mode)
    try:
        x = np.random.default_rng(3).normal(size=(2, 3, 7, 6)).astype(np.float32)
        unfold = nn.Unfold([1, *k, 1], [1, *s, 1], [1, *r, 1], padding)
        np.testing.assert_array_equal(unfold(Tensor(x)).asnumpy(), _patches(x, k, s, r, padding.lower()))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_unfold_gradient_counts_each_pixels_patches():
    # Unfold is linear: the gradient of sum(patches * weights) is each pixel's weights summed over its windows
    x = np.random.default_rng(4).normal(size=(1, 2, 5, 5)).astype(np.float32)
    unfold = nn.Unfold([1, 3, 3, 1], [1, 2, 2, 1], [1, 1, 1, 1])
    weights = np.random.default_rng(5).normal(size=_patches(x, (3, 3), (2, 2), (1, 1), "valid").shape)
    grad = ms.grad(lambda t: (unfold(t) * Tensor(weights.astype(np.float32))).sum())(Tensor(x)).asnumpy()
    eps, want = 1e-3, np.zeros_like(x, np.float64)
    for index in np.ndindex(x.shape):
        up, down = x.astype(np.float64), x.astype(np.float64)
        up[index] += eps
        down[index] -= eps
        f = lambda v: (_patches(v, (3, 3), (2, 2), (1, 1), "valid") * weights).sum()  # noqa: E731
        want[index] = (f(up) - f(down)) / (2 * eps)
    np.testing.assert_allclose(grad, want, rtol=1e-5, atol=1e-5)


def test_unfold_arguments_are_checked():
    with pytest.raises(ValueError, match=r"'ksizes' must have the form \[1, rows, cols, 1\], but got \[2, 2, 2, 1\]"):
        nn.Unfold([2, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1])
    with pytest.raises(TypeError, match="'strides' must be a tuple or list"):
        nn.Unfold([1, 2, 2, 1], 1, [1, 1, 1, 1])
    with pytest.raises(ValueError, match="'rates' must be positive ints"):
        nn.Unfold([1, 2, 2, 1], [1, 1, 1, 1], [1, 0, 1, 1])
    with pytest.raises(ValueError, match="'padding' must be 'valid' or 'same'"):
        nn.Unfold([1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "full")


def test_unfold_ext_is_mints():
    assert nn.UnfoldExt is mint.nn.Unfold
