"""`and` / `or` with Tensors in graph mode give what Python gives (kiln/_compiler/frontend/ast/semantics.py): one
of the operands (`b` when `a` is true, else `a`), not an element-wise logical Tensor; the right operand runs only
when Python would run it; a Tensor of several elements has no truth value (ValueError), as in PyNative."""

from __future__ import annotations

import numpy as np
import pytest

from kiln import Tensor
from tests._compiler.frontend.ast.modes import MODES, compiled


def _operands(x, y):
    return x and y, x or y, y and x, (x - 2) or y, x and y * 3


def _in_condition(x, y):
    if x > 0 and y > 0:
        return x + y
    if x < 0 or y < 0:
        return x - y
    return x * y


def _many_elements(x, y):
    return x and y


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("a", "b"), [([2.0], [3.0]), (0.0, 5.0), (2.0, 0.0)])
def test_and_or_give_an_operand(mode, a, b):
    args = (Tensor(np.float32(a)) if np.ndim(a) == 0 else Tensor(np.array(a, np.float32)), Tensor(np.float32(b)))
    want = _operands(*args)
    got = compiled(mode, _operands)(*args)
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g.asnumpy(), w.asnumpy())


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("a", "b"), [(1.0, 2.0), (-1.0, 2.0), (0.0, 0.0), (1.0, -3.0)])
def test_and_or_in_a_tensor_condition(mode, a, b):
    args = (Tensor(np.float32(a)), Tensor(np.float32(b)))
    assert float(compiled(mode, _in_condition)(*args)) == float(_in_condition(*args))


@pytest.mark.parametrize("mode", MODES)
def test_a_tensor_of_many_elements_has_no_truth_value(mode):
    with pytest.raises(ValueError, match="ambiguous"):
        compiled(mode, _many_elements)(Tensor([0, 1]), Tensor([1, 2]))
