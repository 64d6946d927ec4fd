"""`with` blocks in graph mode, as Python runs them and as MindSpore 2.10 compiles them: `__enter__`'s value bound
by `as`, the body, then `__exit__(None, None, None)`; a `return` evaluates its value before the `__exit__` calls; a
`break`/`continue` leaves (and exits) only the blocks inside its loop; several items nest. Each case runs in
PyNative, GRAPH_MODE, `@jit` and bytecode capture, against plain Python (the PyNative run).

MindSpore 2.10 gives the values here in both its modes (checked with /work/msvenv on the `Scale` manager below):
`x * (2k) + 1` for `_enter_value_and_body`, the return inside the block, and the break out of a `for` loop."""

from __future__ import annotations

import numpy as np
import pytest

from kiln import Parameter, Tensor, jit_class, nn, ops
from kiln import dtype as mstype
from tests._compiler.frontend.ast.modes import MODES, compiled


@jit_class
class Scale:
    """A context manager whose `__enter__` gives `2 * k` as a Tensor."""

    def __init__(self, k: float):
        self.k = Tensor([k], mstype.float32)

    def __enter__(self):
        return self.k * 2

    def __exit__(self, exc_type, exc_value, traceback):
        return False


def _enter_value_and_body(x):
    a = x
    with Scale(3.0) as s:
        a = a * s
    with Scale(1.0):
        a = a + 1
    return a


def _return_inside(x):
    with Scale(3.0) as s:
        return x * s


def _break_inside_loop(x):
    for i in range(3):
        with Scale(2.0) as s:
            x = x + s
            if i == 1:
                break
    return x


def _continue_inside_loop(x):
    for i in range(4):
        with Scale(0.5) as s:
            if i % 2 == 0:
                continue
            x = x * s + i
    return x


def _tensor_if_inside(x):
    with Scale(3.0) as s:
        if x.sum() > 0:
            x = x * s
        else:
            x = x - s
    return x


def _inside_tensor_while(x):
    while x.sum() < 20:
        with Scale(1.0) as s:
            x = x + s
    return x


def _return_in_tensor_branch(x):
    with Scale(2.0) as s:
        if x.sum() > 0:
            return x * s
        x = x - s
    return x


def _two_items_unpacked(x):
    with Scale(1.0) as a, Scale(2.0) as b:
        pair = (a, b)
    first, second = pair
    return x * first + second


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "fn",
    [
        _enter_value_and_body,
        _return_inside,
        _break_inside_loop,
        _continue_inside_loop,
        _inside_tensor_while,
        _two_items_unpacked,
    ],
    ids=lambda f: f.__name__,
)
def test_with_block_values_match_python(mode, fn):
    x = np.array([1.0, -2.0], np.float32)
    expected = fn(Tensor(x)).asnumpy()
    np.testing.assert_allclose(compiled(mode, fn)(Tensor(x)).asnumpy(), expected)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("fn", [_tensor_if_inside, _return_in_tensor_branch], ids=lambda f: f.__name__)
def test_with_block_around_a_tensor_if(mode, fn):
    x = np.array([1.0, 2.0], np.float32)
    for value in (x, -x):
        np.testing.assert_allclose(compiled(mode, fn)(Tensor(value)).asnumpy(), fn(Tensor(value)).asnumpy())


class _Logged(nn.Cell):
    """A context manager that appends a digit to a Parameter on enter (1) and exit (2): the log's digits show
    which calls ran, in which order, and which value a `return` saw."""

    def __init__(self):
        super().__init__()
        self.log = Parameter(Tensor(np.zeros(1, np.float32)), name="log")

    def __enter__(self):
        ops.assign(self.log, self.log * 10 + 1)
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        ops.assign(self.log, self.log * 10 + 2)
        return False


class _ReturnsInside(nn.Cell):
    def __init__(self):
        super().__init__()
        self.m = _Logged()

    def construct(self, x):
        with self.m as m:
            ops.assign(m.log, m.log * 10 + 5)
            return m.log + x  # read before __exit__ runs, as in Python


class _ExitsInLoop(nn.Cell):
    def __init__(self):
        super().__init__()
        self.m = _Logged()

    def construct(self, x):
        for i in range(3):
            with self.m:
                if i == 1:
                    break
        return x


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_exit_runs_once_after_the_body_and_after_the_return_value(mode):
    net = _ReturnsInside()
    if mode == "graph":
        compiled("graph", lambda x: x)  # sets GRAPH_MODE (the conftest resets it)
    out = net(Tensor(np.zeros(1, np.float32)))
    assert out.asnumpy().tolist() == [15.0]
    assert net.m.log.asnumpy().tolist() == [152.0]


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_break_exits_the_block_it_leaves(mode):
    net = _ExitsInLoop()
    if mode == "graph":
        compiled("graph", lambda x: x)
    net(Tensor(np.zeros(1, np.float32)))
    assert net.m.log.asnumpy().tolist() == [1212.0]


def _not_a_manager(x):
    with x as y:
        x = y + 1
    return x


@pytest.mark.parametrize("mode", MODES)
def test_a_value_without_enter_is_a_type_error_as_in_python(mode):
    with pytest.raises(TypeError) as info:
        compiled(mode, _not_a_manager)(Tensor(np.ones(2, np.float32)))
    if mode in ("graph", "jit"):
        assert "__enter__" in str(info.value) and "with x as y:" in str(info.value)
