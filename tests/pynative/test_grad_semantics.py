"""PyNative gradient details MindSpore's tests rely on (the dtype/kwargs cases are in hook_cases.py's goldens)."""

from __future__ import annotations

import numpy as np
import pytest

import kiln
from kiln import Tensor, nn, ops
from kiln._pynative import tape


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


def test_constant_output_gives_zero_gradients_in_jit_too():
    # MindSpore 2.10: () for a non-Tensor first argument, zeros for a function whose output is a constant
    @kiln.jit
    def of_ints(x, y):
        return ops.GradOperation()(lambda a, b: a * b)(x, y)

    assert of_ints(1, 2) == ()

    @kiln.jit
    def of_constant(x):
        return ops.GradOperation()(lambda a: 3)(x)

    np.testing.assert_array_equal(of_constant(Tensor(np.ones(2, np.float32))).asnumpy(), [0.0, 0.0])


@pytest.mark.parametrize("fused", [True, False])
def test_a_tensor_read_several_times_sums_its_gradients_last_read_first(fused, monkeypatch):
    # MindSpore's PyNative walks the backward in the reverse of the forward's order, so x's three gradients here sum
    # as (C + B) + A. In float16 the order shows: (2**-11 + 2**-11) + 1 = 1 + 2**-10, while (1 + 2**-11) + 2**-11
    # rounds to 1 twice. Kiln walked a depth-first order of the graph from the output (A first: 1.0): HyperText's
    # MobiusAdd and ToKlein summed their inputs' gradients in another order than MindSpore, 1 ulp apart in half the
    # elements, amplified by the Poincare ball's Lorentz factors. Both the fused backward program and the op-by-op
    # walk (MindSpore 2.10 gives 1 + 2**-10 for this function)
    monkeypatch.setattr(tape, "FUSED_BACKWARD", fused)
    h = 2.0**-11
    a, b, c = (Tensor(np.array([v], np.float16)) for v in (1.0, h, h))

    def f(x):
        p1 = x * a
        p2 = x * b
        p3 = x * c
        return (p3 + p2) + p1  # a depth-first walk from the output reaches p1 last, so its backward runs first

    grad = kiln.grad(f)(Tensor(np.array([3.0], np.float16)))
    assert grad.dtype == kiln.float16
    np.testing.assert_array_equal(grad.asnumpy(), np.array([1 + 2 * h], np.float16))
