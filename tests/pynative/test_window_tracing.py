"""How often PyNative traces an op on a first step (`lazy.traceable`): once per primitive, attributes and input
signature, shared by the op's abstract evaluation in dispatch, every lazy window program holding it and every step
of a backward plan running its backward primitive; and a window traced that way computes what one tracing each op
anew computes, to the bit (the same operations: the cached trace is inlined).

The network repeats one block n times, so a first step that traced each op per use would trace the block's ops n
times (MobileNetV2's first PyNative step traced its 224 window ops, 69 signatures, and each backward step anew).
"""

from __future__ import annotations

import numpy as np
import pytest

import kiln
from kiln import Tensor, ops
from kiln._core.primitive import REGISTRY
from kiln._pynative import backward_program, dispatch, lazy
from tests.pynative.programs import Chain, forget_programs

DISPATCH_MODES = ("lazy",)


@pytest.fixture
def fresh(monkeypatch):
    """Nothing traced or compiled yet: no window or backward program, no op's output types, no traced op."""
    forget_programs(monkeypatch)
    monkeypatch.setattr(backward_program, "_primitives", {})
    monkeypatch.setattr(backward_program, "_last", [None, None])
    monkeypatch.setattr(dispatch, "_avals", {})
    monkeypatch.setattr(lazy, "_traceables", {}, raising=False)
    return monkeypatch


def _step(n: int):
    kiln.set_seed(0)
    net = Chain(n)
    x = Tensor(np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32))
    grad_fn = kiln.value_and_grad(net, 0, net.trainable_params())

    def run():
        loss, (gx, gw) = grad_fn(x)
        return [t.asnumpy() for t in (loss, gx, *gw)]

    return run


def _sigmoid_traces(fresh, n: int) -> int:
    """How many times the first step of an n-block chain calls Sigmoid's implementation (each call is a trace)."""
    sigmoid = REGISTRY["Sigmoid"]
    calls = []
    impl = sigmoid.impl
    fresh.setattr(sigmoid, "impl", lambda *a, **k: calls.append(1) or impl(*a, **k))
    fresh.setattr(sigmoid, "_backward", {})  # its backward primitive made anew, on the counting implementation
    _step(n)()
    fresh.setattr(sigmoid, "impl", impl)
    return len(calls)


def test_a_first_step_traces_a_repeated_op_once(fresh):
    three = _sigmoid_traces(fresh, 3)
    fresh.setattr(lazy, "_traceables", {}, raising=False)
    fresh.setattr(dispatch, "_avals", {})
    fresh.setattr(dispatch.WINDOW, "programs", {})
    six = _sigmoid_traces(fresh, 6)
    assert three == six, f"traced {three} times in 3 blocks, {six} in 6: once per use, not per signature"


@pytest.mark.parametrize("bound", [None, 24], ids=["one piece", "pieces"])
def test_a_window_traced_once_per_signature_computes_the_same_bits(fresh, bound):
    if bound is not None:  # the backward plan in pieces: each piece's output types are evaluated, then it runs
        fresh.setattr(lazy, "MAX_OPS", bound)
    got = _step(8)()

    def each_use(prim, attrs, consts=()):  # traced anew at every use, as a direct call of the implementation
        kw = prim.attrs_dict(attrs)

        def call(*xs):
            full = list(xs)
            for i, _, value in consts:
                full.insert(i, value)
            return prim.impl(*full, **kw)

        return call

    w = dispatch.WINDOW
    fresh.setattr(w, "programs", {})
    fresh.setattr(backward_program, "_primitives", {})
    fresh.setattr(backward_program, "_last", [None, None])
    fresh.setattr(dispatch, "_avals", {})
    fresh.setattr(lazy, "traceable", each_use)
    want = _step(8)()
    assert len(got) == len(want)
    for a, b in zip(got, want, strict=True):
        np.testing.assert_array_equal(a, b)


def test_an_implementation_replaced_since_is_traced_anew(fresh):
    run = _step(2)
    run()
    sigmoid = REGISTRY["Sigmoid"]
    impl = sigmoid.impl
    fresh.setattr(sigmoid, "impl", lambda *a, **k: impl(*a, **k) * 0.0 + 0.5)  # sigmoid(anything) = 0.5
    fresh.setattr(dispatch.WINDOW, "programs", {})  # (a compiled program keeps what it was built from)
    kiln.set_seed(0)
    x = Tensor(np.ones((2, 3), np.float32))
    np.testing.assert_array_equal(ops.sigmoid(x * 2.0).asnumpy(), np.full((2, 3), 0.5, np.float32))
