"""Kiln's own operations whose result shape or attributes depend on run-time values, under jit_syntax_level STRICT
(MindSpore's tests st/pynative/pyboost/test_pyboost_ops_{ones,zeros}.py and ut/python/ops/
test_dyn_shape_primitive.py): `ops.ones(size_tensor)`, `ops.isclose` with `mutable()` tolerances and Primitives
built from `mutable()` numbers (`ops.AvgPool(k)`) are host steps at every syntax level, as MindSpore's graphs
compile them as dynamic shapes; the user's own Python on run-time values (`x.asnumpy()`, NumPy) stays refused."""

from __future__ import annotations

import numpy as np
import pytest

import kiln as ms
from kiln import Tensor, mutable, nn, ops
from kiln._compiler.errors import GraphCompileError
from tests._compiler.frontend.ast.modes import Wrap

STRICT = ms.JitConfig(jit_syntax_level="STRICT")


@pytest.fixture(params=["graph", "jit"])
def strict(request):
    """`fn` compiled under STRICT: a Cell in GRAPH_MODE, or `@jit` with a STRICT JitConfig."""

    def make(fn):
        if request.param == "graph":
            ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.STRICT)
            return Wrap(fn)
        return ms.jit(fn, jit_config=STRICT)

    yield make
    ms.set_context(mode=ms.PYNATIVE_MODE, jit_syntax_level=ms.LAX)


@pytest.mark.parametrize("op, fill", [(ops.ones, 1), (ops.zeros, 0)])
def test_ones_and_zeros_of_a_size_tensor(strict, op, fill):
    fn = strict(lambda size: op(size, ms.float32))
    for size in ([2, 3], [3, 1, 2]):
        got = fn(Tensor(np.array(size, np.int64)))
        np.testing.assert_array_equal(got.asnumpy(), np.full(size, fill, np.float32))


def test_the_gradient_of_ones_by_its_size_is_zero(strict):
    # MindSpore 2.10 (GRAPH_MODE, STRICT): ops.grad(ones, (0,))(Tensor([2, 3]), float64) is [0, 0]
    fn = strict(lambda size: ops.grad(lambda s: ops.ones(s, ms.float64), (0,))(size))
    np.testing.assert_array_equal(fn(Tensor(np.array([2, 3], np.int64))).asnumpy(), [0, 0])


def test_isclose_with_mutable_tolerances(strict):
    fn = strict(lambda x, y, rtol, atol, nan: ops.isclose(x, y, rtol, atol, nan))
    x = np.array([[1.0, 2.0, np.nan], [3.0, 4.0, 5.0]], np.float32)
    y = np.array([[1.001, 2.1, np.nan]], np.float32)
    for rtol, atol in ((3e-3, 2e-3), (0.1, 2e-3), (0.0, 0.0)):
        got = fn(Tensor(x), Tensor(y), mutable(rtol), mutable(atol), mutable(True))
        want = np.isclose(x, y, rtol=np.float32(rtol), atol=np.float32(atol), equal_nan=True)
        np.testing.assert_array_equal(got.asnumpy(), want)


class _PoolOfRunTimeSizes(nn.Cell):
    def construct(self, x, kernel, stride):
        return ops.AvgPool(kernel, stride, "VALID", "NCHW")(x)


def _avg_pool(x: np.ndarray, k: int, s: int) -> np.ndarray:
    h, w = (x.shape[2] - k) // s + 1, (x.shape[3] - k) // s + 1
    return np.array([[[[x[n, c, i * s : i * s + k, j * s : j * s + k].mean() for j in range(w)] for i in range(h)]
                      for c in range(x.shape[1])] for n in range(x.shape[0])], np.float32)  # fmt: skip


def test_a_primitive_built_from_mutable_numbers():
    ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.STRICT)
    try:
        x = np.arange(1 * 3 * 4 * 5, dtype=np.float32).reshape(1, 3, 4, 5)
        net = _PoolOfRunTimeSizes()
        for k, s in ((1, 1), (2, 1), (3, 2)):
            got = net(Tensor(x), mutable(k), mutable(s))
            np.testing.assert_allclose(got.asnumpy(), _avg_pool(x, k, s), rtol=1e-6)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE, jit_syntax_level=ms.LAX)


def test_a_primitive_built_from_a_mutable_tuple(strict):
    fn = strict(lambda x, size: ops.ResizeNearestNeighbor(size)(x))
    x = np.arange(6, dtype=np.float32).reshape(1, 1, 2, 3)
    np.testing.assert_array_equal(fn(Tensor(x), mutable((2, 2))).asnumpy(), [[[[0, 1], [3, 4]]]])  # MindSpore 2.10
    np.testing.assert_array_equal(fn(Tensor(x), mutable((3, 2))).asnumpy(), [[[[0, 1], [0, 1], [3, 4]]]])


def test_the_programs_own_host_reads_stay_refused_under_strict(strict):
    fn = strict(lambda x: x + Tensor(x.asnumpy().sum()))
    with pytest.raises(GraphCompileError, match="needs the value of a Tensor"):
        fn(Tensor(np.ones(2, np.float32)))


class _PoolLoss(nn.Cell):
    def construct(self, x, kernel):
        return ops.AvgPool(kernel, 1, "VALID", "NCHW")(x).sum()


def test_the_gradient_through_a_primitive_built_from_a_mutable_number():
    # d/dx of the sum of a k x k stride-1 average pool: each element's number of windows, over k * k
    ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.STRICT)
    try:
        x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
        k = 2
        grad = ops.grad(_PoolLoss(), (0,))(Tensor(x), mutable(k))
        windows = np.zeros((4, 4), np.float32)
        for i in range(4 - k + 1):
            for j in range(4 - k + 1):
                windows[i : i + k, j : j + k] += 1
        np.testing.assert_allclose(grad.asnumpy()[0, 0], windows / (k * k), rtol=1e-6)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE, jit_syntax_level=ms.LAX)
