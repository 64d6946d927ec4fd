"""The bound on what one compiled PyNative program holds (`lazy.MAX_OPS`): a backward plan longer than the bound
runs as several pieces (kiln/_pynative/backward_program.py `split`), and a lazy window holding a piece never grows
past the bound.

The network is a Python loop over N small networks (DIEN's auxiliary network, unrolled over its time steps, made
one 3117-step backward program that XLA compiled for 9 minutes). Values and gradients are compared with the same
code run op by op (`KILN_LAZY=0`, backward walked op by op); the size of every compiled program is read from the
caches that hold them (the window's `programs`, the backward program's `_programs`).
"""

from __future__ import annotations

import numpy as np
import pytest

import kiln
from kiln import Tensor
from kiln._pynative import backward_program, dispatch, lazy, tape
from tests.pynative.programs import Chain, forget_programs

DISPATCH_MODES = ("lazy",)
BOUND = 24  # small, so that a short chain passes it (and its pieces compile quickly)


@pytest.fixture
def fresh(monkeypatch):
    """An empty window and no compiled window or backward program, with the bound at BOUND."""
    w = forget_programs(monkeypatch)
    monkeypatch.setattr(lazy, "MAX_OPS", BOUND)
    return w


def _plan_steps(prim) -> int | None:
    """The steps of the backward plan `prim` runs (a window's op recorded for a whole plan), else None."""
    return next((len(p[1]) for p, q in backward_program._primitives.items() if q is prim), None)


def _window_program_sizes(window) -> list[int]:
    """Each compiled window program's ops, an op standing for a backward plan counted as the plan's steps."""
    return [sum(_plan_steps(prim) or 1 for prim, *_ in key[0]) for key in window.programs]


def _step(n: int):
    kiln.set_seed(0)
    net = Chain(n)
    x = Tensor(np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32))
    grad_fn = kiln.value_and_grad(net, 0, net.trainable_params())

    def run():
        loss, (gx, gw) = grad_fn(x)
        return [loss, gx, *gw]

    return run


def _op_by_op(run) -> list[np.ndarray]:
    saved = dispatch.LAZY, tape.FUSED_BACKWARD
    dispatch.LAZY, tape.FUSED_BACKWARD = False, False
    try:
        return [t.asnumpy() for t in run()]
    finally:
        dispatch.LAZY, tape.FUSED_BACKWARD = saved


def _assert_same(got, want):
    assert len(got) == len(want)
    for a, b in zip(got, want, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)  # (a compiled program fuses: float32 rounding)


@pytest.fixture
def pieces(monkeypatch):
    """The pieces `backward_program.split` returned, call after call."""
    calls: list = []
    split = backward_program.split
    monkeypatch.setattr(backward_program, "split", lambda *args: calls.append(split(*args)) or calls[-1])
    return calls


def test_a_long_backward_in_the_window_compiles_bounded_programs(fresh, pieces):
    run = _step(12)  # 12 x (matmul, bias, sigmoid, mul, mul, add) forward: a backward plan of over 100 steps
    want = _op_by_op(run)
    for _ in range(2):  # the second step reuses the first one's programs
        _assert_same([t.asnumpy() for t in run()], want)
    sizes = _window_program_sizes(fresh)
    assert max(sizes) <= BOUND, sizes
    assert len(pieces[-1]) >= 3, "the plan is split into pieces"
    programs = len(fresh.programs)
    run()[0].asnumpy()
    assert len(fresh.programs) == programs


def test_a_long_backward_run_at_once_compiles_bounded_programs(fresh):
    dispatch_lazy = dispatch.LAZY
    run = _step(12)
    want = _op_by_op(run)
    dispatch.LAZY = False  # the backward plan runs through its own cache (`_program`), not the window
    try:
        _assert_same([t.asnumpy() for t in run()], want)
    finally:
        dispatch.LAZY = dispatch_lazy
    steps = [len(p[1]) for p in backward_program._programs]
    assert len(steps) >= 3 and max(steps) <= BOUND, steps


def test_a_short_backward_stays_one_program_with_its_forward(fresh):
    run = _step(1)  # a plan under the bound: forward, backward and its gradients' reads are one window
    want = _op_by_op(run)
    _assert_same([t.asnumpy() for t in run()], want)
    assert len(fresh.programs) == 1
    ((ops_, _),) = fresh.programs
    assert [prim.name for prim, *_ in ops_].count("BackwardProgram") == 1


@pytest.mark.parametrize("n", [12, 30])
def test_the_pieces_of_a_repeated_block_compile_once(fresh, pieces, n):
    run = _step(n)  # the same block n times: its backward repeats a period of steps
    want = _op_by_op(run)
    _assert_same([t.asnumpy() for t in run()], want)
    plans = [piece for piece, _, _ in pieces[-1]]
    inner = plans[1:-1]  # (the first piece starts at the loss, the last ends at the leaves)
    assert len(inner) >= 2 and all(len(p[1]) <= BOUND for p in plans)
    assert len(set(inner)) == 1, [len(p[1]) for p in plans]  # cut at the period: one plan, one program
    prim = backward_program._primitives[inner[0]]
    holding = [key for key in fresh.programs if any(op[0] is prim for op in key[0])]
    # every inner piece ran as one compiled window program (the last one may share its window with what follows)
    assert len(holding) <= 2, len(holding)
    programs = len(fresh.programs)
    _assert_same([t.asnumpy() for t in run()], want)
    assert len(fresh.programs) == programs


def test_cuts_fall_on_the_period_of_a_repetition():
    period, bound = 7, 24
    steps = tuple(("leaf", i) for i in range(3)) + tuple(
        (i, f"op{i % period}", (), (), (((2,), "f4"),), ()) for i in range(10 * period)
    )
    cuts = backward_program._cuts(steps, bound)
    sizes = [b - a for a, b in zip(cuts, cuts[1:], strict=False)]
    assert cuts[0] == 0 and cuts[-1] == len(steps) and max(sizes) <= bound, cuts
    inner = cuts[1:-1]
    assert all((c - 3) % period == 0 for c in inner), cuts  # every cut at the start of a period
    assert sizes[1:-1] == [period * (bound // period)] * (len(sizes) - 2), sizes
    plain = tuple((i, f"op{i}", (), (), (((2,), "f4"),), ()) for i in range(60))  # no repetition: every `bound` steps
    assert backward_program._cuts(plain, bound) == [0, 24, 48, 60]
