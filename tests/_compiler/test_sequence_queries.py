"""`ops.functional.is_sequence_value_unknown` / `is_sequence_shape_unknown` as a user sees them (issue 18, point
12): inside a graph a tuple of run-time Tensors or `mutable` numbers has unknown values, a tuple of constants has
not, and every length is known (Kiln compiles a graph per length); in PyNative every value is known. The graph-mode
answers are MindSpore 2.10's for the same program, apart from `mutable(..., dynamic_len=True)` lengths."""

from __future__ import annotations

import numpy as np
import pytest

import kiln as ms
from kiln import Tensor, mutable, nn
from kiln.ops import functional as F


class _Queries(nn.Cell):
    def construct(self, consts, mutables, x):
        return (
            F.is_sequence_value_unknown(consts),
            F.is_sequence_value_unknown(mutables),
            F.is_sequence_value_unknown((x, x + 1)),
            F.is_sequence_shape_unknown(consts),
            F.is_sequence_shape_unknown([x]),
        )


@pytest.mark.parametrize(
    ("mode", "want"),
    [("graph", (False, True, True, False, False)), ("pynative", (False, False, False, False, False))],
)
def test_sequence_value_and_shape_unknown(mode, want):
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    got = _Queries()((1, 2), mutable((1, 2)), Tensor(np.ones(2, np.float32)))
    assert got == want and all(type(v) is bool for v in got)


def test_sequence_queries_need_a_sequence():
    with pytest.raises(TypeError, match="tuple or list"):
        F.is_sequence_value_unknown(Tensor(np.ones(2, np.float32)))
