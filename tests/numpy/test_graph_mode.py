"""`kiln.numpy` inside compiled functions: the same numbers under `kiln.jit` (and GRAPH_MODE) as in PyNative, and
each compiled call did compile (the compile counter moved), so no comparison is PyNative against itself."""

from __future__ import annotations

import numpy as np
import pytest

import kiln
import kiln.numpy as knp
from kiln import Tensor
from kiln._compiler.cache import memory as cache

_rng = np.random.default_rng(3)
X = _rng.uniform(-2, 2, (4, 5)).astype(np.float32)
Y = _rng.uniform(-2, 2, (5,)).astype(np.float32)
IDX = _rng.integers(0, 5, (4, 2)).astype(np.int32)


def elementwise(x, y):
    return knp.logaddexp(knp.multiply(x, y), knp.clip(x, -1.0, 1.0)) + knp.hypot(x, 2) + knp.copysign(y, x)


def reductions(x, y):
    return knp.nanmean(x, axis=0) + knp.std(x, axis=0, ddof=1) + knp.average(x, axis=0, weights=[1, 2, 3, 4]) + y


def layout(x, y):
    padded = knp.pad(x, ((1, 2), (2, 1)), mode="reflect")
    rolled = knp.roll(knp.rot90(padded), 2, axis=1)
    return knp.concatenate([knp.ravel(rolled), knp.tile(y, 2), knp.repeat(y, [1, 0, 2, 1, 1])])


def products(x, y):
    return knp.tensordot(x, knp.outer(y, y), 1) + knp.dot(x, y)[:, None] + knp.trace(x)


def creation(x, y):
    grid = knp.tril(knp.ones((4, 5)), 1) * knp.linspace(0, 1, 5) + knp.eye(4, 5, k=-1)
    return grid + knp.diag(y)[:4] + knp.cumsum(x, axis=1)


def signal(x, y):
    conv = knp.convolve(y, knp.array([1.0, -2.0, 1.0]), "same")
    grad = knp.gradient(x, axis=1)
    interp = knp.interp(y, knp.array([-2.0, 0.0, 2.0]), knp.array([0.0, 1.0, 4.0]))
    return grad + conv + interp + knp.polyval([1.0, 0.5, -1.0], y)


def selection(x, idx):
    picked = knp.take_along_axis(x, idx, 1)
    chosen = knp.where(picked > 0, picked, -picked)
    return knp.select([chosen > 1, chosen > 0.5], [chosen, chosen * 2], 0.0) + knp.histogram(x, 4)[0][:2]


CASES = [
    (elementwise, (X, Y)),
    (reductions, (X, Y)),
    (layout, (X, Y)),
    (products, (X, Y)),
    (creation, (X, Y)),
    (signal, (X, Y)),
    (selection, (X, IDX)),
]


@pytest.mark.parametrize(("fn", "inputs"), CASES, ids=[c[0].__name__ for c in CASES])
def test_jit_matches_pynative(fn, inputs):
    args = [Tensor(a) for a in inputs]
    eager = fn(*args).asnumpy()
    before = cache.STATS["compiles"]
    compiled = kiln.jit(fn)(*args).asnumpy()
    assert cache.STATS["compiles"] > before, f"kiln.jit({fn.__name__}) compiled nothing"
    np.testing.assert_allclose(compiled, eager, rtol=1e-5, atol=1e-5)


def test_graph_mode_cell_and_gradient():
    class Net(kiln.nn.Cell):
        def construct(self, x, y):
            return knp.sum(knp.square(knp.matmul(x, y)) + knp.var(x))

    net = Net()
    args = [Tensor(X), Tensor(Y)]
    eager_value = net(*args).asnumpy()
    eager_grads = [g.asnumpy() for g in kiln.grad(net, grad_position=(0, 1))(*args)]
    kiln.set_context(mode=kiln.GRAPH_MODE)
    try:
        before = cache.STATS["compiles"]
        graph_value = net(*args).asnumpy()
        assert cache.STATS["compiles"] > before, "the Cell call in GRAPH_MODE compiled nothing"
        before = cache.STATS["compiles"]
        graph_grads = [g.asnumpy() for g in kiln.jit(kiln.grad(net, grad_position=(0, 1)))(*args)]
        assert cache.STATS["compiles"] > before, "jit(grad(net)) compiled nothing"
    finally:
        kiln.set_context(mode=kiln.PYNATIVE_MODE)
    np.testing.assert_allclose(graph_value, eager_value, rtol=1e-5)
    for g, e in zip(graph_grads, eager_grads, strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-5)
