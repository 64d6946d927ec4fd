"""A Python number where an op takes a Tensor (`ops.kl_div(x, 0)`, `ops.prelu(x, 2)`) gives the same value in
GRAPH_MODE as in PyNative, and as NumPy. The compiled graph handed a Python int to the primitive as it was, and the
primitive's `.astype` / `.ndim` raised AttributeError (found by tools/ops_sweep's `graph` sweep)."""

from __future__ import annotations

import numpy as np
import pytest

import kiln as ms
from kiln import Tensor, ops

X = np.array([[-1.5, -0.2, 0.0, 0.7], [1.2, -2.0, 0.3, 2.5]], np.float32)


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        (lambda x: ops.kl_div(x, 0.5, "sum"), lambda x: np.sum(0.5 * (np.log(0.5) - x))),
        (lambda x: ops.kl_div(x, 0, "none"), lambda x: np.zeros_like(x)),
        (lambda x: ops.prelu(x, 0.25), lambda x: np.where(x > 0, x, 0.25 * x)),
        (lambda x: ops.prelu(x, 2), lambda x: np.where(x > 0, x, 2 * x)),
    ],
    ids=["kl_div_float", "kl_div_int", "prelu_float", "prelu_int"],
)
def test_a_python_number_input_is_the_same_in_both_modes(call, expected):
    pynative = call(Tensor(X)).asnumpy()
    graph = ms.jit(call)(Tensor(X)).asnumpy()
    np.testing.assert_allclose(pynative, expected(X), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(graph, pynative, rtol=1e-6, atol=1e-7)
