"""Half-precision gradients of broadcast inputs (kiln/_prims/_low_precision.py): the sum over the broadcast axes runs
in float32 and is rounded once, as MindSpore 2.10's kernels sum it (checked there: Add, Sub, BiasAdd and Dense's bias
exact, Mul's product rounded to float16 first). Found by tests/zoo/ctcmodel (its float16 Dense): a float16 running sum
of 480 terms came out 0.043 from the exact sum rounded once. Against NumPy, in both modes."""

import numpy as np
import pytest

import kiln as ms
from kiln import Tensor, nn, ops
from kiln.common import dtype as mstype

RNG = np.random.default_rng(3)
ROWS = 480  # enough terms that a float16 running sum drifts by several units in the last place
X = RNG.standard_normal((ROWS, 7)).astype(np.float16)
B = RNG.standard_normal(7).astype(np.float16)
DY = RNG.standard_normal((ROWS, 7)).astype(np.float16)


def _rounded_sum(terms: np.ndarray) -> np.ndarray:
    """The sum over the rows in float64 (exact here for float16 terms), rounded once to float16."""
    return terms.astype(np.float64).sum(0).astype(np.float16)


CASES = {
    "Add": (lambda b: ops.Add()(Tensor(X), b), _rounded_sum(DY)),
    "Sub": (lambda b: ops.Sub()(Tensor(X), b), _rounded_sum(-DY)),
    # The product dy * x is a float16 Tensor op of its own, rounded before the sum.
    "Mul": (lambda b: ops.Mul()(Tensor(X), b), _rounded_sum((DY.astype(np.float32) * X).astype(np.float16))),
    "BiasAdd": (lambda b: ops.BiasAdd()(Tensor(X), b), _rounded_sum(DY)),
    "BiasAdd NCHW": (
        lambda b: ops.BiasAdd()(Tensor(X.T.reshape(1, 7, ROWS // 2, 2)), b),
        _rounded_sum(DY),
    ),
}


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
@pytest.mark.parametrize("case", list(CASES))
def test_float16_broadcast_gradient_sums_in_float32(mode, case):
    fn, want = CASES[case]
    dy = Tensor(DY.T.reshape(1, 7, ROWS // 2, 2) if case == "BiasAdd NCHW" else DY)
    ms.set_context(mode=mode)
    try:
        got = ms.grad(lambda b: (fn(b) * dy).astype(mstype.float32).sum())(Tensor(B))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert got.dtype == mstype.float16
    np.testing.assert_array_equal(got.asnumpy(), want)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_float16_dense_bias_gradient_sums_in_float32(mode):
    dense = nn.Dense(7, 7).to_float(mstype.float16)
    dense.weight.set_data(Tensor(np.eye(7, dtype=np.float32)))
    ms.set_context(mode=mode)
    try:
        loss = lambda x: (dense(x).astype(mstype.float32) * Tensor(DY.astype(np.float32))).sum()  # noqa: E731
        (got,) = ms.grad(loss, grad_position=None, weights=[dense.bias])(Tensor(X))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert got.dtype == mstype.float32  # the float32 Parameter's gradient, through the Cell's cast
    np.testing.assert_array_equal(got.asnumpy(), _rounded_sum(DY).astype(np.float32))


def test_float32_values_unchanged():
    x32, b32 = X.astype(np.float32), B.astype(np.float32)
    got = ms.grad(lambda b: (ops.Add()(Tensor(x32), b) * Tensor(DY.astype(np.float32))).sum())(Tensor(b32))
    np.testing.assert_allclose(got.asnumpy(), DY.astype(np.float64).sum(0), rtol=1e-5)
