"""`for i in range(n)` with a Tensor `n` compiles to one loop that serves every value of `n`."""

import numpy as np

import kiln as ms
from kiln._compiler.cache import memory as cache


def _repeat_double(x, n):
    s = x
    for _ in range(n):
        s = s * 2 + 1
    return s


def test_tensor_bounded_range_matches_pynative_and_compiles_once():
    compiled = ms.jit(_repeat_double)
    x = ms.Tensor(np.array([1.0, -2.0], np.float32))
    before = cache.STATS["compiles"]
    for n in (0, 1, 3, 5):
        want = _repeat_double(x, ms.Tensor(n)).asnumpy()  # PyNative: range() reads the value
        np.testing.assert_allclose(compiled(x, ms.Tensor(n)).asnumpy(), want)
    assert cache.STATS["compiles"] - before == 1


def _count_down(x, n):
    s = x
    for i in range(n, 0, -2):
        s = s + i
    return s


def test_tensor_bounded_range_with_a_negative_constant_step():
    compiled = ms.jit(_count_down)
    x = ms.Tensor(np.zeros(2, np.float32))
    for n in (0, 1, 6, 7):
        want = _count_down(x, ms.Tensor(n)).asnumpy()
        np.testing.assert_allclose(compiled(x, ms.Tensor(n)).asnumpy(), want)
