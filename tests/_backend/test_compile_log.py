"""KILN_LOG=compiles (kiln/_backend/compile_log.py): every XLA compile Kiln starts is one line on stderr, naming what
it compiles (a PyNative kernel, a lazy window of N ops, a backward piece k of n, a graph), its tier and its time.
Counted against JAX's own report of its backend compiles."""

import re
import weakref

import jax
import numpy as np
import pytest

import kiln
from kiln import nn, ops
from kiln._backend import cache, tiers
from kiln._pynative import backward_program, dispatch, lazy

_LINE = re.compile(r"^\[kiln\] XLA compiled (.+) \((quick|optimized) tier\) in (\d+\.\d) ms$", re.M)
_JAX_COMPILES: list = []  # JAX's backend compiles while a test counts them (None: not counting)
_COUNTING = [False]


def _count(event, duration, **_):
    if _COUNTING[0] and event == "/jax/core/compile/backend_compile_duration":
        _JAX_COMPILES.append(duration)


jax.monitoring.register_event_duration_secs_listener(_count)


@pytest.fixture
def fresh(tmp_path, monkeypatch):
    """Nothing compiled yet: a fresh on-disk cache, and no kernel, window or backward program held in memory."""
    # An earlier test's optimised compile, still under way, would log into this test's output: wait for those
    # asked for, and keep the ones never asked for from being asked here.
    monkeypatch.setattr(tiers, "_unasked", weakref.WeakSet())
    ahead = cache._threads.get(cache._AHEAD)
    if ahead is not None:
        ahead.submit(lambda: None).result()  # one worker: an earlier test's compile-ahead is done
    cache.wait_optimized()  # also a quick kernel's upgrade (it once logged into this test, JAX counting it)
    monkeypatch.setattr(cache, "_store", cache.DiskCache(tmp_path, 2**30))
    monkeypatch.setattr(dispatch, "_compiled", {})
    monkeypatch.setattr(dispatch.WINDOW, "programs", {})
    # Programs earlier tests ran once only: MAX_SINGLE_USE of them would make a new window (or backward plan)
    # run op by op, uncompiled, whatever ran before in this process.
    monkeypatch.setattr(dispatch.WINDOW, "single_use", set())
    monkeypatch.setattr(dispatch.WINDOW, "refused", {})
    monkeypatch.setattr(backward_program, "_programs", {})
    monkeypatch.setattr(backward_program, "_single_use", set())
    monkeypatch.setattr(backward_program, "_refused", {})
    monkeypatch.setattr(backward_program, "_primitives", {})
    monkeypatch.setattr(backward_program, "_last", [None, None])
    monkeypatch.setenv("KILN_LOG", "compiles")
    dispatch.WINDOW.flush()
    _JAX_COMPILES.clear()
    _COUNTING[0] = True
    yield
    _COUNTING[0] = False
    cache.wait_optimized()
    cache.flush_writes()


def _logged(capsys) -> list[tuple[str, str]]:
    cache.wait_optimized()  # the optimised tiers compiled in the background are logged too
    err = capsys.readouterr().err
    lines = _LINE.findall(err)
    assert len(lines) == err.count("[kiln] XLA compiled")  # every such line has what, tier and time
    assert len(lines) == len(_JAX_COMPILES)  # each compile JAX reports, once
    return [(what, tier) for what, tier, _ in lines]


def _train_step(n_ops: int):
    x = kiln.Tensor(np.linspace(0.1, 1.0, 12, dtype=np.float32).reshape(3, 4))
    w = kiln.Parameter(kiln.Tensor(np.ones((3, 4), np.float32)), name="w")

    def loss(a):
        h = a * w
        for _ in range(n_ops):
            h = ops.sin(h) * 0.9
        return h.sum()

    g = kiln.grad(loss, grad_position=None, weights=[w])(x)
    return (g[0] if isinstance(g, tuple) else g).asnumpy()


@pytest.mark.parametrize("lazy_on", [True, False])
def test_every_pynative_compile_is_logged_once_with_what_it_compiles(fresh, capsys, monkeypatch, lazy_on):
    monkeypatch.setattr(dispatch, "LAZY", lazy_on)
    monkeypatch.setattr(lazy, "MAX_OPS", 8)  # a backward plan of more steps runs in pieces
    _train_step(6)
    logged = _logged(capsys)
    whats = [what for what, _ in logged]
    assert logged and all(tier in ("quick", "optimized") for _, tier in logged)
    pieces = [m for w in whats for m in re.findall(r"backward piece (\d+) of (\d+), \d+ steps", w)]
    assert pieces and all(int(k) <= int(n) for k, n in pieces)
    assert {int(n) for _, n in pieces} == {int(pieces[0][1])} and int(pieces[0][1]) > 1
    if lazy_on:
        assert any(re.fullmatch(r"a lazy window of \d+ ops.*", w) for w in whats)
    else:
        assert "the PyNative kernel of Sin" in whats
        assert any(re.fullmatch(r"backward piece \d+ of \d+, \d+ steps", w) for w in whats)


class _Net(nn.Cell):
    def construct(self, x):
        return ops.exp(x) * 3.0


def test_a_graphs_compile_is_logged_with_its_name(fresh, capsys):
    kiln.set_context(mode=kiln.GRAPH_MODE)
    x = np.linspace(0, 1, 10, dtype=np.float32)
    np.testing.assert_allclose(_Net()(kiln.Tensor(x)).asnumpy(), np.exp(x) * 3.0, rtol=1e-6)
    assert ("the graph '_Net.construct'", "optimized") in _logged(capsys)


def test_nothing_is_logged_without_kiln_log(fresh, capsys, monkeypatch):
    monkeypatch.delenv("KILN_LOG")
    _train_step(2)
    cache.wait_optimized()
    assert _JAX_COMPILES and "XLA compiled" not in capsys.readouterr().err
