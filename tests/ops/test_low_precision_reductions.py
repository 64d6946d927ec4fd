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
