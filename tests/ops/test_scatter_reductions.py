"""The scatter reductions (sub, mul, div, max, min) in every face agree with MindSpore 2.10 where indices repeat
(each repeated index applies all of its updates), integer division truncates, and the product's and quotient's
gradients are MindSpore's (goldens: make_scatter_reduction_goldens_mindspore.py); with distinct indices their
gradients match central differences, and GRAPH_MODE gives PyNative's values."""

import json
import os

import numpy as np
import pytest

import kiln as ms
from kiln import Tensor, ops
from tests.ops.scatter_reduction_cases import KINDS, UPDATES, X, run

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "scatter_reduction_goldens_mindspore.json")) as f:
    GOLDENS = json.load(f)["cases"]
KILN = run(ms)


@pytest.mark.parametrize("case", sorted(GOLDENS))
def test_case_matches_mindspore(case):
    np.testing.assert_allclose(np.asarray(KILN[case]), np.asarray(GOLDENS[case]), rtol=1e-6, atol=0)


def test_integer_division_keeps_the_dtype():
    out = ops.tensor_scatter_div(Tensor(np.array([7, -8], np.int32)), Tensor(np.array([[1]], np.int32)),
                                 Tensor(np.array([3], np.int32)))  # fmt: skip
    assert out.dtype == ms.int32 and out.asnumpy().tolist() == [7, -2]


@pytest.mark.parametrize("kind", ["mul", "div"])
def test_gradient_with_distinct_indices_matches_central_differences(kind):
    scatter = getattr(ops, f"tensor_scatter_{kind}")
    rows = np.array([[2], [0]], np.int32)
    x, updates = X.astype(np.float64), UPDATES[:2].astype(np.float64)
    weights = np.linspace(-1, 2, 6).reshape(3, 2)

    def loss(a, b):
        return float((scatter(Tensor(a), Tensor(rows), Tensor(b)).asnumpy() * weights).sum())

    got = ms.grad(lambda a, b: (scatter(a, Tensor(rows), b) * Tensor(weights)).sum(), grad_position=(0, 1))(
        Tensor(x), Tensor(updates)
    )
    for position, (value, grad) in enumerate(zip((x, updates), got, strict=True)):
        want = np.zeros_like(value)
        for index in np.ndindex(value.shape):
            up, down = [x.copy(), updates.copy()], [x.copy(), updates.copy()]
            up[position][index] += 1e-6
            down[position][index] -= 1e-6
            want[index] = (loss(*up) - loss(*down)) / 2e-6
        np.testing.assert_allclose(grad.asnumpy(), want, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("kind", KINDS)
def test_graph_mode_equals_pynative(kind):
    scatter = getattr(ops, f"tensor_scatter_{kind}")
    rows = Tensor(np.array([[0], [0], [2]], np.int32))
    compiled = ms.jit(lambda a, b: scatter(a, rows, b))
    np.testing.assert_array_equal(compiled(Tensor(X), Tensor(UPDATES)).asnumpy(), KILN[f"tensor_scatter_{kind}"])
