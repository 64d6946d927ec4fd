"""Sums of float16/bfloat16 accumulate in float32 and cast back (issue 18.4), in PyNative and compiled."""

import numpy as np
import pytest

import kiln
from kiln import ops


@pytest.mark.parametrize("dtype", [kiln.float16, kiln.bfloat16])
@pytest.mark.parametrize("how", ["pynative", "jit"])
def test_sum_and_cumsum_of_many_small_values(dtype, how):
    x = kiln.Tensor(np.full(3000, 0.1, np.float32)).astype(dtype)

    def f(x):
        return ops.sum(x), ops.cumsum(x, 0)[-1], x.sum(), ops.ReduceSum()(x)

    outs = kiln.jit(f)(x) if how == "jit" else f(x)
    for out in outs:
        assert out.dtype == dtype
        # float32 accumulation, then one rounding: 299.93 (float16's 0.1) and 300.29 (bfloat16's) both round to 300;
        # a float16 running sum stalls at 299.0, a bfloat16 one far lower
        assert float(out) == 300.0


def _cast_reduce_loss(x):
    low = ops.cast(x, kiln.bfloat16)
    return ops.cast(low.sum(), kiln.float32) + ops.cast(low.mean(), kiln.float32) * 4.0


@pytest.mark.parametrize("how", ["pynative", "jit"])
def test_gradient_through_a_bfloat16_reduction(how):
    """d/dx of cast(sum(bf16(x))) + 4 * cast(mean(bf16(x))) is 2 everywhere: PyNative's tape once dropped every op on a
    bfloat16 Tensor (NumPy calls bfloat16's dtype kind "V", not "f") and gave 0 where compiled graphs gave 2."""
    x = kiln.Tensor(np.array([0.5, -0.25, 1.0, 0.75], np.float32))
    grad = kiln.grad(_cast_reduce_loss)
    g = (kiln.jit(grad) if how == "jit" else grad)(x)
    np.testing.assert_array_equal(g.asnumpy(), np.full(4, 2.0, np.float32))
