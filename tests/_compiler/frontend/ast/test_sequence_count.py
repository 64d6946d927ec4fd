"""`list.count` / `tuple.count` in graph mode where an item or the value counted is a Tensor known only when the
graph runs: Python's rule (an item that is the value, or equals it, counts), the count leaving the graph as a
Python int, as in PyNative (kiln/_compiler/frontend/ast/calls.py `_count`)."""

from __future__ import annotations

import numpy as np
import pytest

from kiln import Tensor
from tests._compiler.frontend.ast.modes import MODES, compiled


def _counts(aa, bb):
    x = [30, {"k": 1}, aa + bb, bb, "a"]
    return x.count(30), x.count(bb), (aa, bb, aa).count(aa), tuple(x).count("a")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("a", "b"), [(20, 10), (20, 30), (1, 2)])
def test_count_with_run_time_items(mode, a, b):
    args = (Tensor(a), Tensor(b))
    got = compiled(mode, _counts)(*args)
    assert got == _counts(*args)
    assert all(type(v) is int for v in got)


def _count_of_vectors(x):
    return [x, x + 1].count(x)


@pytest.mark.parametrize("mode", MODES)
def test_count_of_multi_element_tensors_is_ambiguous(mode):
    with pytest.raises(ValueError, match="ambiguous"):
        compiled(mode, _count_of_vectors)(Tensor(np.arange(3)))
