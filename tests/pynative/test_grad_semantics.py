"""PyNative gradient details MindSpore's tests rely on (the dtype/kwargs cases are in hook_cases.py's goldens)."""

from __future__ import annotations

import numpy as np

import kiln
from kiln import Tensor, nn, ops


def test_cell_with_bprop_returns_new_tensors_even_for_its_input():
    class Same(nn.Cell):
        def construct(self, x):
            return x, x * 2

        def bprop(self, x, out, dout):
            return (dout[0] * 0 + 1,)

    x = Tensor(np.array([3.0, 3.0], np.float32))
    out = Same()(x)
    assert out[0] is not x
    np.testing.assert_array_equal(out[0].asnumpy(), x.asnumpy())
    g = ops.GradOperation(get_all=True)(Same())(x)
    np.testing.assert_array_equal(g[0].asnumpy(), [1.0, 1.0])


def test_sens_of_another_dtype_is_cast_to_the_output():
    f = ops.GradOperation(sens_param=True)(lambda a: a * 3)
    g = f(Tensor(np.array([1.0, 2.0], np.float32)), Tensor(np.array([1, 2], np.int32)))
    assert g.dtype == kiln.float32
    np.testing.assert_array_equal(g.asnumpy(), [3.0, 6.0])
