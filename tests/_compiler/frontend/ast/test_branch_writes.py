"""In-place writes to a plain Tensor inside a Tensor `if` branch or a Tensor `while` body (issue 18): `add_`,
`AssignAdd` and `ops.assign` in the then-branch, the else-branch, both, and a loop body, in GRAPH_MODE, `@jit` and
bytecode capture, give what PyNative (and MindSpore 2.10) gives: the write is joined like a Parameter's.

Bytecode capture breaks the graph at the Tensor `if` and resumes with `x.add_` half-called: the bound method's
`__self__` on the stack and the local `x` are one graph input of the resumed piece, so later reads see the write.
"""

from __future__ import annotations

import numpy as np
import pytest

import kiln as ms
from kiln import Tensor
from kiln.ops import operations as P
from tests._compiler.frontend.ast.modes import MODES, WRITES, compiled


def _in_then(write):
    def fn(x, y):
        if x < y:
            write(x, y)
        y = P.Sub()(y, x)
        return x, y

    return fn


def _in_else(write):
    def fn(x, y):
        if x < y:
            y = y * 2
        else:
            write(x, y)
        y = P.Sub()(y, x)
        return x, y

    return fn


def _in_both(write):
    def fn(x, y):
        if x < y:
            write(x, y)
        else:
            write(x, y * 10)
        z = x * 1  # reads the joined value after the if
        return x, P.Sub()(y, x), z

    return fn


def _read_in_branch(write):
    def fn(x, y):
        if x < y:
            write(x, y)
            y = y + x  # sees the written value
        else:
            y = y - x  # sees the outer value, not the then-branch's
        return x, y

    return fn


def _in_while(write):
    def fn(x, y):
        while x < y:
            write(x, 1 * (y - y + 1))
        return x, y - x

    return fn


def _run(mode, make, write, a, b):
    fn = compiled(mode, make(WRITES[write]))
    out = fn(Tensor(a, dtype=ms.int32), Tensor(b, dtype=ms.int32))
    return [int(t.asnumpy()) for t in out]


CASES = [
    (_in_then, 2, 3, [5, -2]),
    (_in_then, 3, 2, [3, -1]),
    (_in_else, 2, 3, [2, 4]),
    (_in_else, 3, 2, [5, -3]),
    (_in_both, 2, 3, [5, -2, 5]),
    (_in_both, 3, 2, [23, -21, 23]),
    (_read_in_branch, 2, 3, [5, 8]),
    (_read_in_branch, 3, 2, [3, -1]),
    (_in_while, 2, 7, [7, 0]),
    (_in_while, 9, 7, [9, -2]),
]


@pytest.mark.parametrize("write", list(WRITES))
@pytest.mark.parametrize("make, a, b, expected", CASES, ids=[f"{c[0].__name__}-{c[1]}-{c[2]}" for c in CASES])
@pytest.mark.parametrize("mode", MODES)
def test_a_write_to_a_plain_tensor_under_tensor_control_flow_is_joined(mode, make, a, b, expected, write):
    assert _run("pynative", make, write, a, b) == expected
    assert _run(mode, make, write, a, b) == expected


def _nested(x, y):
    if x < y:
        x.add_(y)
        if x > 4:
            x.add_(100)
        else:
            x.add_(1000)
    return x, y - x


@pytest.mark.parametrize("mode", MODES)
def test_a_write_in_a_nested_if_reaches_the_outer_graph(mode):
    for a, b, expected in ((2, 3, [105, -102]), (0, 3, [1003, -1000]), (5, 3, [5, -2])):
        out = compiled(mode, _nested)(Tensor(a, dtype=ms.int32), Tensor(b, dtype=ms.int32))
        assert [int(t.asnumpy()) for t in out] == expected


def test_a_tensor_made_inside_a_branch_is_written_as_before():
    def fn(x):
        if x > 0:
            t = x * 2
            t.add_(x)
            x = t
        return x

    np.testing.assert_array_equal(compiled("graph", fn)(Tensor(3, dtype=ms.int32)).asnumpy(), 9)
    np.testing.assert_array_equal(compiled("jit", fn)(Tensor(-3, dtype=ms.int32)).asnumpy(), -3)
