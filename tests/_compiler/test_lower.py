"""Lowering: equations a graph repeats (the same primitive, attributes and input types: a Cell applied N times)
go through one shared backend function, traced once, with the values and gradients PyNative gives."""

from __future__ import annotations

import numpy as np
import pytest

import kiln as ms
from kiln import Tensor, nn, ops
from kiln._core.primitive import REGISTRY


class Tower(nn.Cell):
    """Four Dense + LayerNorm blocks of the same width: each block's equations repeat three times."""

    def __init__(self, width: int = 7) -> None:
        super().__init__()
        self.blocks = nn.CellList([nn.Dense(width, width) for _ in range(4)])
        self.norm = nn.LayerNorm((width,))

    def construct(self, x):
        for block in self.blocks:
            x = self.norm(ops.tanh(block(x)) + x)
        return (ops.tanh(x) * x[:, :1]).sum()  # not invariant under the norm: no gradient cancels to ~0


def _data(width: int = 7):
    rng = np.random.default_rng(0)
    return Tensor(rng.standard_normal((3, width)).astype(np.float32))


def _value_and_grads(net, x):
    step = ops.value_and_grad(net, grad_position=0, weights=net.trainable_params())
    loss, (dx, dw) = step(x)
    return [loss.asnumpy(), dx.asnumpy(), *(g.asnumpy() for g in dw)]


def test_repeated_blocks_match_pynative():
    ms.set_seed(0)
    net = Tower()
    x = _data()
    eager = _value_and_grads(net, x)
    graph = ms.jit(lambda x: _value_and_grads_graph(net, x))(x)
    for a, b in zip(eager, [g.asnumpy() for g in graph], strict=True):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)


def _value_and_grads_graph(net, x):
    loss, (dx, dw) = ops.value_and_grad(net, grad_position=0, weights=net.trainable_params())(x)
    return (loss, dx, *dw)


@pytest.mark.parametrize(("name", "width"), [("Dense", 11), ("LayerNorm", 13)])
def test_repeated_equations_trace_their_primitive_once(monkeypatch, name, width):
    prim = REGISTRY[name]
    calls = []
    impl = prim.impl

    def counted(*args, **kw):
        calls.append(1)
        return impl(*args, **kw)

    monkeypatch.setattr(prim, "impl", counted)
    ms.set_seed(0)
    net = Tower(width)  # a width no other test uses: nothing of it is cached yet
    ms.jit(lambda x: _value_and_grads_graph(net, x))(_data(width))
    # one abstract evaluation and one trace for the program (each of the four blocks traced it before)
    assert 1 <= len(calls) <= 2
