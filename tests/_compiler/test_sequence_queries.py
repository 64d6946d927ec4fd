"""`ops.functional.is_sequence_value_unknown` / `is_sequence_shape_unknown` as a user sees them (issue 18, point
12): inside a graph a tuple of run-time Tensors or `mutable` numbers has unknown values, a tuple of constants has
not, and only a length declared variable (`mutable(..., dynamic_len=True)`) is unknown (Kiln still compiles a graph
per length); in PyNative every value and length is known. The graph-mode answers are MindSpore 2.10's for the same
programs."""

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


def _declared_lengths(seq):
    copied = tuple(seq)
    return (
        F.is_sequence_shape_unknown(seq),
        F.is_sequence_shape_unknown(copied),
        F.is_sequence_shape_unknown(list(copied)),
        F.is_sequence_shape_unknown(seq + seq),
        F.is_sequence_shape_unknown(seq[1:]),
        F.is_sequence_shape_unknown(tuple(mutable([1, 2]))),
        len(seq),
    )


@pytest.mark.parametrize("capture_mode", ["ast", "bytecode"])
@pytest.mark.parametrize("make", [list, tuple])
def test_a_length_declared_variable_is_unknown_inside_a_graph(capture_mode, make):
    """`mutable(..., dynamic_len=True)` (an input, or made inside the graph) and the copies, sums and slices of
    it have unknown lengths inside a graph, as in MindSpore 2.10; the values themselves are unchanged."""
    seq = mutable(make([1, 2, 3]), True)
    assert ms.jit(_declared_lengths, capture_mode=capture_mode)(seq) == (True,) * 5 + (False, 3)

    def made_inside():
        inner = mutable(make([1, 2, 3]), True)
        return _declared_lengths(inner), tuple(inner) == (1, 2, 3)

    assert ms.jit(made_inside, capture_mode=capture_mode)() == ((True,) * 5 + (False, 3), True)


def test_a_length_declared_variable_is_known_in_pynative():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    seq = mutable([1, 2, 3], True)
    assert _declared_lengths(seq) == (False,) * 6 + (3,)
    assert seq + [4] == [1, 2, 3, 4] and [0] + seq == [0, 1, 2, 3] and seq[::2] == [1, 3]
