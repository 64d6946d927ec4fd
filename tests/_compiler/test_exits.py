"""`return`, `break` and `continue` under a Tensor condition, nested in Tensor `if`s and loops.

Each program runs in PyNative (plain Python: the reference) and compiled with `jit`; values and gradients
must agree. The inputs are chosen so that each exit is taken at least once across the cases.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

import kiln as ms
from kiln import Parameter, Tensor, nn, ops


def _t(values, dtype=np.float32):
    return Tensor(np.array(values, dtype))


def _i(v):
    return Tensor(v, ms.int32)


def nested_return(a, b, x):
    if a > 0:
        if b > 0:
            return x * 2
        y = x + 1
    else:
        y = x - 1
    return y * 3


def break_in_while(x, n):
    i = _i(0)
    while i < n:
        if x.sum() > 10:
            break
        x = x * 2
        i = i + 1
    return x * i.astype(ms.float32)


def return_in_while(x):
    i = _i(0)
    while i < 10:
        if x.sum() > 5:
            return x * 10
        x = x + 1
        i = i + 1
    return x - 1


def continue_in_while(x, n):
    i = _i(0)
    s = x * 0
    while i < n:
        i = i + 1
        if x.sum() * i.astype(ms.float32) > 4:
            continue
        s = s + ops.log(x) * i.astype(ms.float32)
    return s


def continue_in_static_for(x):
    s = x * 0
    for i in range(4):
        if x.sum() > i:
            continue
        s = s + x
    return s


def break_in_tensor_range(x, n):
    s = x * 0
    for i in range(n):
        if s.sum() > 6:
            break
        s = s + x * i
    return s


def return_from_inner_loop(x, n):
    i = _i(0)
    while i < n:
        j = _i(0)
        while j < n:
            if (x * j.astype(ms.float32)).sum() > 8:
                return x * j.astype(ms.float32) + i.astype(ms.float32)
            j = j + 1
        x = x + 1
        i = i + 1
    return x


def break_inner_return_outer(x, n):
    i = _i(0)
    while i < n:
        j = _i(0)
        while j < 5:
            if x.sum() > 3:
                break
            x = x * 1.5
            j = j + 1
        if x.sum() > 20:
            return ops.sqrt(x)
        x = x + 2
        i = i + 1
    return x


def helper_with_return(x):
    while x.sum() < 50:
        if x.max() > 9:
            return x * 0.5
        x = x * 3
    return x


def calls_helper(x):
    if x.sum() > 0:
        y = helper_with_return(x)
    else:
        y = -x
    return y + 1


def exit_returns_tuple(x):
    i = _i(0)
    while i < 4:
        if x.sum() > 4:
            return x, i
        x = x + 1
        i = i + 1
    return x * 2, i * 10


def while_true_break(x):
    while True:
        x = x * 2
        if x.sum() > 10:
            break
    return x


def while_true_return(x, y):
    while True:
        if x.sum() > 20:
            return x + y
        x = x + y


def static_loop_with_tensor_break(x):
    for _ in range(6):
        x = x * 2
        if x.sum() > 10:
            break
    return x


X = [1.0, 2.0]
CASES = [
    (while_true_break, [(_t(X),), (_t([20.0, 1.0]),), (_t([0.01, 0.02]),)], 0),
    (while_true_return, [(_t(X), _t([1.0, 1.0])), (_t([30.0, 0.0]), _t([2.0, 3.0]))], 1),
    (static_loop_with_tensor_break, [(_t(X),), (_t([0.001, 0.0]),)], 0),
    (nested_return, [(_t(1.0), _t(1.0), _t(X)), (_t(1.0), _t(-1.0), _t(X)), (_t(-1.0), _t(1.0), _t(X))], 2),
    (break_in_while, [(_t(X), _i(5)), (_t(X), _i(1)), (_t([20.0, 1.0]), _i(3))], 0),
    (return_in_while, [(_t(X),), (_t([-100.0, 2.0]),)], 0),
    (continue_in_while, [(_t([1.0, 0.5]), _i(4)), (_t([0.1, 0.2]), _i(6))], 0),
    (continue_in_static_for, [(_t([1.0, 0.5]),), (_t([-1.0, -0.5]),)], 0),
    (break_in_tensor_range, [(_t([1.0, 0.5]), _i(10)), (_t([0.1, 0.1]), _i(3))], 0),
    (return_from_inner_loop, [(_t([1.0, 2.0]), _i(3)), (_t([0.1, 0.1]), _i(2))], 0),
    (break_inner_return_outer, [(_t([1.0, 1.0]), _i(4)), (_t([0.1, 0.1]), _i(1))], 0),
    (calls_helper, [(_t([1.0, 2.0]),), (_t([-1.0, -2.0]),), (_t([20.0, 30.0]),)], 0),
    (exit_returns_tuple, [(_t([1.0, 2.0]),), (_t([-5.0, -2.0]),)], None),
]
IDS = [c[0].__name__ for c in CASES]


def _leaves(v):
    return [x.asnumpy() for x in (v if isinstance(v, tuple) else (v,))]


@pytest.mark.parametrize(("fn", "inputs", "grad_at"), CASES, ids=IDS)
def test_values_match_pynative(fn, inputs, grad_at):
    compiled = ms.jit(fn)
    for args in inputs:
        expected = _leaves(fn(*args))
        got = _leaves(compiled(*args))
        assert len(got) == len(expected)
        for g, e in zip(got, expected, strict=True):
            np.testing.assert_allclose(g, e, rtol=1e-6)


@pytest.mark.parametrize(
    ("fn", "inputs", "grad_at"),
    [c for c in CASES if c[2] is not None],
    ids=[c[0].__name__ for c in CASES if c[2] is not None],
)
def test_gradients_match_pynative(fn, inputs, grad_at):
    def loss(*args):
        return fn(*args).sum()

    compiled = ms.jit(ms.grad(loss, grad_position=grad_at))
    for args in inputs:
        expected = ms.grad(loss, grad_position=grad_at)(*args).asnumpy()
        np.testing.assert_allclose(compiled(*args).asnumpy(), expected, rtol=1e-6)


def test_gradient_of_loop_exit_against_finite_differences():
    x0 = np.array([1.0, 2.5])

    def reference(x):  # break_inner_return_outer in float64 NumPy
        for _ in range(4):
            for _ in range(5):
                if x.sum() > 3:
                    break
                x = x * 1.5
            if x.sum() > 20:
                return np.sqrt(x).sum()
            x = x + 2
        return x.sum()

    h = 1e-6
    fd = np.array([(reference(x0 + e) - reference(x0 - e)) / (2 * h) for e in np.eye(2) * h])
    g = ms.jit(ms.grad(lambda x, n: break_inner_return_outer(x, n).sum()))(_t(x0), _i(4))
    np.testing.assert_allclose(g.asnumpy(), fd, rtol=1e-4)


class EarlyExitNet(nn.Cell):
    """A Parameter written before an early exit: the write must survive the exit, as in PyNative."""

    def __init__(self):
        super().__init__()
        self.count = Parameter(Tensor(np.zeros(()), ms.float32), name="count", requires_grad=False)

    def construct(self, x):
        while x.sum() < 100:
            self.count += 1
            if x.max() > 30:
                return x
            x = x * 2
        return -x


def test_parameter_writes_before_an_exit():
    x = _t([1.0, 3.0])
    eager = EarlyExitNet()
    expected = eager(x).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    graph = EarlyExitNet()
    np.testing.assert_allclose(graph(x).asnumpy(), expected)
    np.testing.assert_allclose(graph.count.asnumpy(), eager.count.asnumpy())


class LoopAtTheEnd(nn.Cell):
    """A construct that ends with a loop and no return: the loop still runs (its writes are the result)."""

    def __init__(self):
        super().__init__()
        self.total = Parameter(Tensor(np.zeros(2), ms.float32), name="total", requires_grad=False)

    def construct(self, x):
        i = 0
        while i < 3:
            self.total += x
            i += 1


def test_a_function_ending_in_a_loop_runs_the_loop():
    ms.set_context(mode=ms.GRAPH_MODE)
    net = LoopAtTheEnd()
    assert net(_t([1.0, 2.0])) is None
    np.testing.assert_allclose(net.total.asnumpy(), [3.0, 6.0])


SCALE = 3.0


def _scaled(f):
    @functools.wraps(f)
    def wrapper(*args):
        return f(*args) * SCALE

    return wrapper


@_scaled
def wrapped_square_sum(x):
    return (x * x).sum()


def test_a_functools_wraps_wrapper_compiles_its_own_code():
    # The source of the wrapper is compiled, not the function it wraps (inspect follows __wrapped__).
    x = _t([1.0, 2.0])
    np.testing.assert_allclose(ms.jit(wrapped_square_sum)(x).asnumpy(), wrapped_square_sum(x).asnumpy())
    np.testing.assert_allclose(ms.jit(ms.grad(wrapped_square_sum))(x).asnumpy(), [6.0, 12.0])
