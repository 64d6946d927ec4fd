"""A compiled call reads its state (Parameters, the random key) from their slots and writes the new values back
through two functions generated per executable (build._slot_access): checked against the `_data` path, and a
step that writes Parameters and draws random numbers against PyNative."""

from __future__ import annotations

import numpy as np

import kiln as ms
from kiln import Parameter, Tensor, nn, ops
from kiln._backend import jnp
from kiln._compiler import build
from kiln._compiler.ir import graph as G
from kiln._core import random_state


def test_read_and_write_follow_the_state_order():
    p0 = Parameter(Tensor(np.arange(3, dtype=np.float32)), name="p0")
    p1 = Parameter(Tensor(np.ones(2, np.float32)), name="p1")
    read, write = build._slot_access([p0, G.RNG, p1], [p1, G.RNG], n_out=1)
    expected = [p0._data, random_state.current_key(), p1._data]  # the property path
    assert all(a is b for a, b in zip(read(), expected, strict=True))
    old_key = random_state.current_key()
    outs = [jnp.zeros(()), jnp.full((2,), 5.0, jnp.float32), jnp.asarray(np.asarray(old_key) + 1)]
    try:
        write(outs)
        assert p1._data is outs[1] and random_state.current_key() is outs[2]
        assert p0._data is expected[0]  # not written
    finally:
        random_state.swap_key(old_key)


class Noisy(nn.Cell):
    """Writes two Parameters and draws random numbers each call."""

    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.linspace(0.5, 1.5, 6, dtype=np.float32)), name="w")
        self.calls = Parameter(Tensor(np.zeros((), np.float32)), name="calls")

    def construct(self, x):
        noise = ops.uniform((6,), Tensor(0.0, ms.float32), Tensor(1.0, ms.float32))
        y = x * self.w + noise
        ops.assign(self.w, self.w * 0.5 + y.mean())
        ops.assign_add(self.calls, Tensor(1.0, ms.float32))
        return y


def _run(mode: str, steps: int = 4):
    ms.set_context(mode=mode)
    ms.set_seed(3)
    net = Noisy()
    x = Tensor(np.arange(6, dtype=np.float32))
    outs, ws = [], []
    for _ in range(steps):
        outs.append(net(x).asnumpy())
        ws.append(net.w.asnumpy().copy())  # the new value, read between calls
    return outs, ws, float(net.calls.asnumpy())


def test_graph_mode_writes_parameters_and_the_key_as_pynative():
    graph_outs, graph_ws, graph_calls = _run(ms.GRAPH_MODE)
    py_outs, py_ws, py_calls = _run(ms.PYNATIVE_MODE)
    assert graph_calls == py_calls == 4
    for g, p in zip([*graph_outs, *graph_ws], [*py_outs, *py_ws], strict=True):
        np.testing.assert_allclose(g, p, rtol=1e-6)
    assert not np.allclose(graph_outs[0] - graph_outs[1], graph_outs[1] - graph_outs[2])  # new noise each call
