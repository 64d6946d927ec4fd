"""Issue 18 point 7: a Parameter written before a `raise` under a Tensor condition keeps that write.

In PyNative the writes before the raise happened and those after it did not; GRAPH_MODE, `@jit` and bytecode
capture must leave the same values (MindSpore 2.10 keeps them in PyNative and in its graph mode). Each case runs in
the four modes and compares the Parameters after the call with PyNative's, and with the values written out here.
"""

from __future__ import annotations

import numpy as np
import pytest

import kiln as ms
from kiln import Parameter, Tensor, nn, ops

MODES = ["pynative", "graph", "jit", "bytecode"]


def _t(values, dtype=np.float32):
    return Tensor(np.array(values, dtype))


def _param(name, values):
    return Parameter(_t(values), name=name, requires_grad=False)


def _caller(net, mode):
    if mode == "graph":
        ms.set_context(mode=ms.GRAPH_MODE)
        return net
    if mode == "jit":
        return ms.jit(net.construct)
    if mode == "bytecode":
        return ms.jit(net.construct, capture_mode="bytecode")
    return net


def _run(cls, mode, x):
    """(the raised type or None, {Parameter name: value after the call}) of one call of a new `cls` Cell."""
    net = cls()
    call = _caller(net, mode)
    try:
        call(_t(x))
        raised = None
    except Exception as err:  # noqa: BLE001  (compared with PyNative's)
        raised = type(err)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    return raised, {p.name: p.asnumpy().tolist() for p in net.get_parameters()}


class StraightLine(nn.Cell):
    """Writes by assignment, `ops.assign` and `+=`, then a raise under a Tensor `if`, then a write after it."""

    def __init__(self):
        super().__init__()
        self.a = _param("a", [0.0, 0.0])
        self.b = _param("b", [0.0, 0.0])
        self.c = _param("c", [1.0, 1.0])
        self.d = _param("d", [0.0, 0.0])

    def construct(self, x):
        self.a = x * 2
        ops.assign(self.b, x + 1)
        self.c += x
        if x.sum() > 0:
            raise ValueError("positive sum")
        self.d = x * 5
        return x


class WriteInBranch(nn.Cell):
    """A write inside a Tensor `if` branch, then a raise under a later Tensor `if`, and a raise in the writing
    branch itself after its write."""

    def __init__(self):
        super().__init__()
        self.a = _param("a", [0.0, 0.0])
        self.b = _param("b", [0.0, 0.0])

    def construct(self, x):
        if x.sum() > 0:
            self.a = x * 3
            if x.min() > 5:
                self.b = x - 5
                raise RuntimeError("min above 5")
        if x.max() > 1:
            raise ValueError("max above 1")
        self.b = x + 7
        return x


class WriteInLoop(nn.Cell):
    """A Tensor `while` writes two Parameters each trip and raises under a Tensor `if` between the writes: the
    trips that ran keep their writes, the failing trip keeps the write before its raise only."""

    def __init__(self):
        super().__init__()
        self.a = _param("a", [0.0, 0.0])
        self.n = _param("n", [0.0])

    def construct(self, x):
        i = Tensor(0, ms.int32)
        while i < 5:
            self.a = self.a + 1
            if self.a.max() > x.max():
                raise RuntimeError("a passed max(x)")
            self.n = self.n + 1
            i = i + 1
        return self.a


class RaiseBeforeLoopWrite(nn.Cell):
    """The raise comes first in the loop body: trip k fails holding the writes of trips 1..k-1. The counter is
    known only at run time, so no trip is unrolled and the write reaches the raise only through the loop's carry."""

    def __init__(self):
        super().__init__()
        self.a = _param("a", [0.0, 0.0])

    def construct(self, x):
        i = x.min() * 0
        while i < 5:
            if self.a.max() > x.max():
                raise RuntimeError("a passed max(x)")
            self.a = self.a + 1
            i = i + 1
        return self.a


class NestedLoops(nn.Cell):
    """A raise in an inner Tensor `while`, inside an outer one; both loops write."""

    def __init__(self):
        super().__init__()
        self.outer = _param("outer", [0.0])
        self.inner = _param("inner", [0.0])

    def construct(self, x):
        i = Tensor(0, ms.int32)
        while i < 3:
            self.outer = self.outer + 1
            j = Tensor(0, ms.int32)
            while j < 3:
                self.inner = self.inner + 1
                if self.inner.sum() > x.sum():
                    raise ValueError("inner passed sum(x)")
                j = j + 1
            i = i + 1
        return self.inner


CASES = [
    # (Cell, input, raised, Parameters after the call)
    (StraightLine, [1.0, 2.0], ValueError, {"a": [2.0, 4.0], "b": [2.0, 3.0], "c": [2.0, 3.0], "d": [0.0, 0.0]}),
    (StraightLine, [-1.0, -2.0], None, {"a": [-2.0, -4.0], "b": [0.0, -1.0], "c": [0.0, -1.0], "d": [-5.0, -10.0]}),
    (WriteInBranch, [1.0, 2.0], ValueError, {"a": [3.0, 6.0], "b": [0.0, 0.0]}),
    (WriteInBranch, [6.0, 7.0], RuntimeError, {"a": [18.0, 21.0], "b": [1.0, 2.0]}),
    (WriteInBranch, [0.5, 0.25], None, {"a": [1.5, 0.75], "b": [7.5, 7.25]}),
    (WriteInLoop, [2.5, 0.0], RuntimeError, {"a": [3.0, 3.0], "n": [2.0]}),
    (WriteInLoop, [9.0, 0.0], None, {"a": [5.0, 5.0], "n": [5.0]}),
    (RaiseBeforeLoopWrite, [2.5, 0.0], RuntimeError, {"a": [3.0, 3.0]}),
    (RaiseBeforeLoopWrite, [-1.0, -3.0], RuntimeError, {"a": [0.0, 0.0]}),
    (RaiseBeforeLoopWrite, [9.0, 0.0], None, {"a": [5.0, 5.0]}),
    (NestedLoops, [4.5], ValueError, {"outer": [2.0], "inner": [5.0]}),
    (NestedLoops, [20.0], None, {"outer": [3.0], "inner": [9.0]}),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("cls", "x", "raised", "after"),
    CASES,
    ids=[f"{c[0].__name__}-{'raises' if c[2] else 'no_raise'}-{i}" for i, c in enumerate(CASES)],
)
def test_writes_before_a_tensor_raise_are_kept(mode, cls, x, raised, after):
    got = _run(cls, mode, x)
    assert got == (raised, after)
    if mode != "pynative":
        assert got == _run(cls, "pynative", x)


def test_a_failed_call_then_a_good_one_continues_from_the_kept_write():
    """The executable is reused: the kept write of the failed call is the next call's starting value."""
    ms.set_context(mode=ms.GRAPH_MODE)
    net = WriteInLoop()
    with pytest.raises(RuntimeError, match="a passed max"):
        net(_t([2.5, 0.0]))
    net(_t([20.0, 0.0]))  # five more trips
    np.testing.assert_allclose(net.a.asnumpy(), [8.0, 8.0])
    np.testing.assert_allclose(net.n.asnumpy(), [7.0])


def raise_every_trip(x):
    i = Tensor(0, ms.int32)
    while i < 3:
        if x.sum() > 0:
            raise ValueError("positive sum")
        i = i + 1
    return x * i


@pytest.mark.parametrize("capture", ["ast", "bytecode"])
def test_a_loop_whose_body_raises_every_trip_stops_at_the_raise(capture):
    """The raising branch's placeholder values must not feed another trip (this hung: the trip counter came back
    as 0 from the raising branch, and the loop ran on)."""
    f = ms.jit(raise_every_trip, capture_mode=capture)
    with pytest.raises(ValueError, match="positive sum"):
        f(_t([1.0, 2.0]))
    np.testing.assert_allclose(f(_t([-1.0, -2.0])).asnumpy(), [-3.0, -6.0])


class Scaled(nn.Cell):
    """A trainable weight, a counter written before a raise that does not fire on the inputs given."""

    def __init__(self):
        super().__init__()
        self.w = Parameter(_t([0.5, -1.5]), name="w")
        self.calls = _param("calls", [0.0])

    def construct(self, x):
        self.calls += 1
        y = x * self.w
        i = Tensor(0, ms.int32)
        while i < 2:
            y = y * self.w + x
            if y.max() > 1000:
                raise ValueError("diverged")
            i = i + 1
        return (y * y).sum()


@pytest.mark.parametrize("mode", MODES)
def test_gradients_are_those_of_pynative_when_the_raise_does_not_fire(mode):
    net = Scaled()
    grad = ms.grad(net, grad_position=0, weights=net.trainable_params())
    x = _t([1.0, 2.0])
    reference = Scaled()
    want_dx, (want_dw,) = ms.grad(reference, grad_position=0, weights=reference.trainable_params())(x)
    if mode == "graph":
        ms.set_context(mode=ms.GRAPH_MODE)
    try:
        call = ms.jit(grad, capture_mode="bytecode") if mode == "bytecode" else ms.jit(grad) if mode == "jit" else grad
        dx, (dw,) = call(x)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(dx.asnumpy(), want_dx.asnumpy(), rtol=1e-5)
    np.testing.assert_allclose(dw.asnumpy(), want_dw.asnumpy(), rtol=1e-5)
