"""`raise` under a Tensor condition, and recursion whose stop condition is a Tensor, in graph mode.

Both are decided at run time: a `raise` in a Tensor branch fails the call only when that branch runs,
with the user's exception at the user's line; a recursion is compiled as deep as its inputs need
(deeper on demand, up to max_call_depth). PyNative (plain Python) is the reference throughout.
"""

from __future__ import annotations

import numpy as np
import pytest

import kiln as ms
from kiln import Parameter, Tensor, nn
from tests._compiler.frontend.ast.modes import MODES, compiled


def _t(values, dtype=np.float32):
    return Tensor(np.array(values, dtype))


class TooBig(ValueError):
    pass


def raise_when_big(x):
    if x.sum() > 3:
        raise TooBig(f"the sum passed {3}")
    return x * 2


def raise_in_loop(x):
    i = Tensor(0, ms.int32)
    while i < 5:
        if x.sum() > 100:
            raise RuntimeError("diverged")
        x = x * 3
        i = i + 1
    return x


def both_raise(x):
    if x.sum() > 3:
        raise ValueError("big")
    else:
        raise TypeError("small")


def test_raise_happens_only_when_its_branch_runs():
    f = ms.jit(raise_when_big)
    np.testing.assert_allclose(f(_t([1.0, 1.0])).asnumpy(), [2.0, 2.0])
    with pytest.raises(TooBig, match="the sum passed 3") as info:
        f(_t([3.0, 1.0]))
    assert "raise TooBig" in str(info.value)  # the user's line
    np.testing.assert_allclose(f(_t([0.5, 1.0])).asnumpy(), [1.0, 2.0])  # the same executable, again fine
    assert f.compile_count == 1


def test_raise_inside_a_tensor_loop():
    f = ms.jit(raise_in_loop)
    np.testing.assert_allclose(f(_t([0.1, 0.1])).asnumpy(), raise_in_loop(_t([0.1, 0.1])).asnumpy(), rtol=1e-6)
    with pytest.raises(RuntimeError, match="diverged"):
        f(_t([1.0, 1.0]))


def test_every_path_raises():
    f = ms.jit(both_raise)
    with pytest.raises(ValueError, match="big"):
        f(_t([5.0, 0.0]))
    with pytest.raises(TypeError, match="small"):
        f(_t([1.0, 1.0]))


def test_raise_runs_with_value_checks_switched_off():
    ms.set_context(runtime_checks=False)
    try:
        with pytest.raises(TooBig):
            ms.jit(raise_when_big)(_t([3.0, 1.0]))
    finally:
        ms.set_context(runtime_checks=True)


def test_gradient_through_a_function_that_may_raise():
    g = ms.jit(ms.grad(lambda x: raise_when_big(x).sum()))(_t([1.0, 1.0]))
    np.testing.assert_allclose(g.asnumpy(), [2.0, 2.0])


class Guarded(nn.Cell):
    """A raise in construct after a Parameter write: a failed call keeps the write made before the raise."""

    def __init__(self):
        super().__init__()
        self.calls = Parameter(Tensor(np.zeros(()), ms.float32), name="calls", requires_grad=False)

    def construct(self, x):
        self.calls += 1
        if x.min() < 0:
            raise ValueError("negative input")
        return x.sqrt()


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_a_failed_call_keeps_the_writes_made_before_its_raise(mode):
    """Issue 18 point 7: the write before the raise happened (PyNative, MindSpore's graph mode)."""
    ms.set_context(mode=mode)
    net = Guarded()
    net(_t([1.0, 4.0]))
    with pytest.raises(ValueError, match="negative input"):
        net(_t([-1.0, 4.0]))
    assert float(net.calls.asnumpy()) == 2.0
    net(_t([1.0, 4.0]))
    assert float(net.calls.asnumpy()) == 3.0


class WritesAroundChecks(nn.Cell):
    """Writes before, inside and after Tensor-conditioned raises and asserts, and inside a Tensor loop."""

    def __init__(self):
        super().__init__()
        self.a = Parameter(Tensor(np.zeros(2), ms.float32), name="a", requires_grad=False)
        self.b = Parameter(Tensor(np.zeros(2), ms.float32), name="b", requires_grad=False)

    def construct(self, x):
        self.a = x * 2
        if x.sum() > 10:
            self.b = x + 1
            raise ValueError("sum above 10")
        self.b = x * 3
        i = Tensor(0, ms.int32)
        while i < 3:
            self.a = self.a + 1
            if self.a.max() > 20:
                raise RuntimeError("a passed 20 in the loop")
            i = i + 1
        assert x.min() > -5, "x below -5"
        self.b = self.b * 0
        return self.a


@pytest.mark.parametrize("mode", ["pynative", "graph", "jit"])
@pytest.mark.parametrize(
    ("x", "error", "a_after", "b_after"),
    [
        ([6.0, 5.0], ValueError, [12.0, 10.0], [7.0, 6.0]),  # the write inside the raising branch is kept
        ([9.0, 0.0], RuntimeError, [21.0, 3.0], [27.0, 0.0]),  # raised in the loop's third trip: two trips kept
        ([1.0, -6.0], AssertionError, [5.0, -9.0], [3.0, -18.0]),  # the assert keeps what came before it only
        ([1.0, 2.0], None, [5.0, 7.0], [0.0, 0.0]),
    ],
    ids=["raise_in_branch", "raise_in_loop", "assert", "no_raise"],
)
def test_writes_before_a_raise_are_kept_and_writes_after_it_are_not(mode, x, error, a_after, b_after):
    net = WritesAroundChecks()
    if mode == "graph":
        ms.set_context(mode=ms.GRAPH_MODE)
    call = ms.jit(net.construct) if mode == "jit" else net
    if error is None:
        call(_t(x))
    else:
        with pytest.raises(error):
            call(_t(x))
    np.testing.assert_allclose(net.a.asnumpy(), a_after)
    np.testing.assert_allclose(net.b.asnumpy(), b_after)


# -- recursion ----------------------------------------------------------------------------------------

ONE = Tensor([1], ms.int32)


def count_down(x):
    if x > 0:
        return count_down(x - 1) + 1
    return ONE


def factorial(x):
    if x <= 1.0:
        return x * 0 + 1
    return x * factorial(x - 1)


def three_ways(x):
    y = x * 0
    if x < 0:
        y = ONE
    elif x < 3:
        y = x * three_ways(x - 1)
    elif x < 5:
        y = x * three_ways(x - 2)
    else:
        y = three_ways(x - 4)
    return y + 1


def endless(x):
    if x > 0:
        return endless(x - 1)
    return endless(x + 1)


@pytest.mark.parametrize("n", [0, 3, 11])
def test_recursion_with_a_tensor_stop_condition(n):
    x = Tensor([n], ms.int32)
    f = ms.jit(count_down)
    np.testing.assert_array_equal(f(x).asnumpy(), count_down(x).asnumpy())
    # compiled again only while its depth doubles: 4, 8, 16 calls
    assert f.compile_count <= 3


@pytest.mark.parametrize("fn, n", [(count_down, 0), (count_down, 11), (three_ways, 5)])
def test_recursion_under_bytecode_capture_computes_what_python_does(fn, n):
    """Issue 18 point 9: recursion with a Tensor stop condition, which AST graphs compile, runs under bytecode
    capture too (an internal cut of the recursion must never reach the user)."""
    x = Tensor([n], ms.int32)
    got = ms.jit(fn, capture_mode="bytecode")(x)
    np.testing.assert_array_equal(got.asnumpy(), fn(x).asnumpy())


def test_recursion_with_several_recursive_calls():
    x = Tensor([5], ms.int32)
    np.testing.assert_array_equal(ms.jit(three_ways)(x).asnumpy(), three_ways(x).asnumpy())


def test_gradient_through_recursion():
    x = _t([4.0])
    expected = ms.grad(lambda v: factorial(v).sum())(x).asnumpy()
    np.testing.assert_allclose(expected, [3 * 16 - 6 * 4 + 2])  # d/dx x(x-1)(x-2) at 4
    got = ms.jit(ms.grad(lambda v: factorial(v).sum()))(x)
    np.testing.assert_allclose(got.asnumpy(), expected)


def test_recursion_deeper_than_max_call_depth_is_a_recursion_error():
    ms.set_context(max_call_depth=16)
    try:
        with pytest.raises(RecursionError, match="max_call_depth=16"):
            ms.jit(count_down)(Tensor([40], ms.int32))
    finally:
        ms.set_context(max_call_depth=1000)


def test_recursion_that_never_ends_is_a_compile_error():
    with pytest.raises(RuntimeError, match="endless"):
        ms.jit(endless)(Tensor([5], ms.int32))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", [RuntimeWarning, UserWarning, ImportError, LookupError])
def test_a_builtin_exception_raised_while_compiling_keeps_its_type(mode, kind):
    # a Python-int condition raises while compiling: RuntimeWarning and others became a GraphCompileError
    def fn(x, n):
        if n == 1:
            raise kind("n should not be 1")
        return x

    with pytest.raises(kind, match="n should not be 1"):
        compiled(mode, fn)(_t([1.0]), 1)
