"""Softmax of scaled logits (kiln/_prims/nn/activation.py), against NumPy in both modes. Found by the zoo's AutoDis
(research/recommend/autodis, temperature 1e-5): XLA computed the scaled logit again inside the fusion that subtracts
the row's maximum, as a fused multiply-add, so the maximum's x - max was a rounding error from 0. A saturated row came
out 0.99999994 with a gradient of s (1 - s) / temperature, about 6e-3 of the upstream gradient instead of 0, and Adam
turned that into full-size steps (MindSpore 2.10 gives exactly 1 and 0)."""

import numpy as np
import pytest

import kiln as ms
from kiln import Tensor, nn, ops

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
