"""Softmax of scaled logits (kiln/_prims/nn/activation.py), against NumPy in both modes. Found by the zoo's AutoDis
(research/recommend/autodis, temperature 1e-5): XLA computed the scaled logit again inside the fusion that subtracts
the row's maximum, as a fused multiply-add, so the maximum's x - max was a rounding error from 0. A saturated row came
out 0.99999994 with a gradient of s (1 - s) / temperature, about 6e-3 of the upstream gradient instead of 0, and Adam
turned that into full-size steps (MindSpore 2.10 gives exactly 1 and 0)."""

import numpy as np
import pytest

import kiln as ms
from kiln import Tensor, nn, ops
from tests._prims import derivative_from_output_cases, derivative_goldens

RNG = np.random.RandomState(0)
LOGITS = (0.3 * RNG.standard_normal((3, 5))).astype(np.float32)
SCALE = RNG.uniform(0, 1, (3, 4, 1)).astype(np.float32)
WEIGHT = RNG.standard_normal((3, 4, 5)).astype(np.float32)
# float16 holds scaled logits up to 65504 only: a larger temperature, where every row still saturates
TEMPERATURES = {ms.float32: 1e-5, ms.float16: 1e-4}
MODES = [ms.PYNATIVE_MODE, ms.GRAPH_MODE]


def _reference(dtype) -> tuple[np.ndarray, np.ndarray]:
    """(softmax, its gradient of sum(softmax * WEIGHT) w.r.t. the logits) in float64 from the scaled logits."""
    temperature = TEMPERATURES[dtype]
    x = (SCALE * LOGITS[:, None, :] / np.float32(temperature)).astype(ms.dtype_to_nptype(dtype)).astype(np.float64)
    e = np.exp(x - x.max(-1, keepdims=True))
    s = e / e.sum(-1, keepdims=True)
    dx = s * (WEIGHT - (s * WEIGHT).sum(-1, keepdims=True))
    return s, (dx * SCALE / temperature).sum(1)


class ScaledSoftmax(nn.Cell):
    def __init__(self, dtype):
        super().__init__()
        self.dtype = dtype
        self.temperature = TEMPERATURES[dtype]
        self.scale = Tensor(SCALE)
        self.softmax = ops.Softmax()

    def construct(self, logits):
        scaled = self.scale * ops.expand_dims(logits, 1) / self.temperature
        return self.softmax(scaled.astype(self.dtype)).astype(ms.float32)


@pytest.mark.parametrize("dtype", [ms.float32, ms.float16])
@pytest.mark.parametrize("mode", MODES)
def test_a_saturated_row_of_scaled_logits_is_exactly_one_hot(mode, dtype):
    net = ScaledSoftmax(dtype)
    ms.set_context(mode=mode)
    try:
        probs = net(Tensor(LOGITS)).asnumpy()
        grad = ms.grad(lambda a: (net(a) * Tensor(WEIGHT)).sum())(Tensor(LOGITS)).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    want_probs, want_grad = _reference(dtype)
    want_probs = want_probs.astype(ms.dtype_to_nptype(dtype))
    assert set(np.unique(want_probs)) == {0.0, 1.0}  # every row saturates at this temperature
    np.testing.assert_array_equal(probs, want_probs)
    # the exact gradient is below 1e-50 everywhere; the defect gave about 6e-3 of the upstream gradient
    np.testing.assert_allclose(grad, want_grad, rtol=0, atol=1e-30)


@pytest.mark.parametrize("row", [[-np.inf, -np.inf, -np.inf], [np.inf, 0.0, 1.0]])
def test_an_infinite_maximum_still_gives_nan(row):
    """As x - max does: a row of -inf, or one holding +inf, has no softmax."""
    assert np.isnan(ops.Softmax()(Tensor(np.array([row], np.float32))).asnumpy()).all()


SOFTMAX_CASES = ["softmax", "softmax_axis0", "softmax_long", "softmax_3d", "softmin"]


def _softmax_of(name):
    axis = derivative_from_output_cases.AXES[name]
    if name == "softmin":
        return lambda x: ops.softmin(x, axis)
    return lambda x: ops.softmax(x, axis)


@pytest.mark.parametrize("name", SOFTMAX_CASES)
def test_float16_softmax_gradients_match_mindspore_bit_for_bit(name):
    # Softmax's (and Softmin's) backward rule is MindSpore's y * (dout - sum(y * dout)), each step rounded to float16
    # and the sum of the rounded products taken in float32 (goldens: make_derivative_from_output_goldens_mindspore.py;
    # rows of 8 and 128, along axis 0 and the middle of three axes). The backend's transposed rule differed from
    # MindSpore's in 216-284 of 512 elements (up to 1024 ulps) and is further from float64; now none, in both modes.
    for mode in MODES:
        (out, dx), (want_out, want) = derivative_goldens.kiln_and_mindspore(name, "float16", mode, _softmax_of(name))
        assert not derivative_goldens.differing(out, want_out).any()
        differ = derivative_goldens.differing(dx, want)
        assert not differ.any(), (
            f"mode {mode}: {int(differ.sum())} of 512 differ, e.g. {dx[differ][:4]} vs {want[differ][:4]}"
        )


@pytest.mark.parametrize("name", SOFTMAX_CASES)
def test_float32_softmax_gradients_are_equal_in_both_modes_and_near_float64(name):
    # float32 keeps the backend's rule (MindSpore's order is no nearer float64, its exp differs from Kiln's): GRAPH_MODE
    # equals PyNative bit for bit, and both are within a few float32 ulps of float64's, measured against the row's
    # largest term y * dout (a saturated row's gradient is far smaller than the rounding of its terms)
    xs, dout = derivative_goldens.inputs(name, "float32")
    x, axis = xs[0].astype(np.float64), derivative_from_output_cases.AXES[name]
    y = np.exp(-x - (-x).max(axis, keepdims=True)) if name == "softmin" else np.exp(x - x.max(axis, keepdims=True))
    y /= y.sum(axis, keepdims=True)
    want = y * (dout - (y * dout).sum(axis, keepdims=True)) * (-1 if name == "softmin" else 1)
    grads = [derivative_goldens.kiln_and_mindspore(name, "float32", mode, _softmax_of(name))[0][1] for mode in MODES]
    np.testing.assert_array_equal(grads[0], grads[1])
    scale = np.abs(y * dout).max(axis, keepdims=True)
    assert (np.abs(grads[0] - want) / scale).max() < 6 * 2.0**-24  # measured 3.1-4.5 (MindSpore's order 3.5-3.7)


@pytest.mark.parametrize("name", ["softmax", "softmin"])
def test_softmax_gradient_is_the_derivative(name):
    # the rule in float64 against central differences, first and second order (the second goes through the rule)
    rng = np.random.default_rng(7)
    x, w = rng.standard_normal((3, 5)), rng.standard_normal((3, 5))
    fn = _softmax_of(name)
    first = ms.grad(lambda a: (fn(a) * Tensor(w)).sum())
    h, fd, fd2 = 1e-6, np.zeros(x.shape), np.zeros(x.shape)
    second = ms.grad(lambda a: (first(a) * Tensor(w)).sum())(Tensor(x)).asnumpy()
    for i in np.ndindex(x.shape):
        e = np.zeros(x.shape)
        e[i] = h
        fd[i] = ((fn(Tensor(x + e)).asnumpy() - fn(Tensor(x - e)).asnumpy()) * w).sum() / (2 * h)
        fd2[i] = ((first(Tensor(x + e)).asnumpy() - first(Tensor(x - e)).asnumpy()) * w).sum() / (2 * h)
    np.testing.assert_allclose(first(Tensor(x)).asnumpy(), fd, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(second, fd2, rtol=1e-6, atol=1e-9)
