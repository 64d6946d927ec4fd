"""A local variable read on a path where it is not assigned is Python's UnboundLocalError in GRAPH_MODE and
`@jit` too, raised while compiling at the user's line (issue 18, point 12: MindSpore raises it there), not a
value `<undefined>` returned or a Kiln internal error."""

from __future__ import annotations

import numpy as np
import pytest

import kiln as ms
from kiln import Tensor, nn
from tests._compiler.frontend.ast.modes import MODES, compiled


def _returns_one_branch(x):
    if x < 0:
        y = 0
    return y  # noqa: F821


def _uses_one_branch(x):
    if x < 0:
        y = x
    return y + 1  # noqa: F821


def _after_a_tensor_while(x):
    while x < 0:
        y = 0
    return y  # noqa: F821


def _nested_function(x):
    def inner(x):
        if x < 0:
            y = 0
        return y  # noqa: F821

    return inner(x)


class _Wrap(nn.Cell):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def construct(self, x):
        return self.fn(x)


@pytest.mark.parametrize(
    ("fn", "line"),
    [
        (_returns_one_branch, "return y"),
        (_uses_one_branch, "return y + 1"),
        (_after_a_tensor_while, "while x < 0"),  # the loop that leaves it unassigned
        (_nested_function, "return y"),
    ],
)
@pytest.mark.parametrize("mode", ("graph", "jit"))
def test_a_variable_not_assigned_on_every_path_is_unbound(mode, fn, line):
    x = Tensor(np.array([1.0], np.float32))
    if mode == "graph":
        ms.set_context(mode=ms.GRAPH_MODE)
        run = _Wrap(fn)
    else:
        run = ms.jit(fn)
    with pytest.raises(UnboundLocalError) as info:
        run(x)
    assert "not assigned on every path" in str(info.value) or "Assign it before the loop" in str(info.value)
    shown = str(info.value).split("The failing expression")[1].splitlines()[2]  # the user's line
    assert shown.strip().startswith(line)
    with pytest.raises(UnboundLocalError):  # as Python itself
        fn(x)


def _return_from_a_for_inside_a_tensor_while(x, p):
    while x < 5:
        p = p + 1
        x = x + 1
        for _ in range(3):  # `_` is assigned only in the loop and never read: not an unassigned variable
            p = p + 2
            if p > 2:
                return x * 10
        x = x + p
    return x


def _unread_counter_after_a_tensor_while(x):
    while x < 4:
        x = x + 1
        k = 2  # noqa: F841  (assigned only in the body, never read: the loop does not carry it)
    return x


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("p0", (-4, -20, 5))
def test_a_name_assigned_in_a_tensor_loop_and_never_read_needs_no_value_before_it(mode, p0):
    x, p = Tensor(np.array(1, np.int32)), Tensor(np.array(p0, np.int32))
    want = _return_from_a_for_inside_a_tensor_while(x, p).asnumpy()
    got = compiled(mode, _return_from_a_for_inside_a_tensor_while)(x, p)
    np.testing.assert_array_equal(got.asnumpy(), want)
    assert compiled(mode, _unread_counter_after_a_tensor_while)(x).asnumpy() == 4
