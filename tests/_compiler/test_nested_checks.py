"""Index checks inside nested graphs: a recomputed Cell (`remat`) and a Cell with its own `bprop`
(`custom_vjp`). An out-of-range index raises in graph mode, forward and under `grad`, as in PyNative,
instead of a silently clamped (wrong) result."""

from __future__ import annotations

import numpy as np
import pytest

import kiln as ms
from kiln import Tensor, nn, ops


class Pick(nn.Cell):
    def construct(self, x, i):
        return ops.gather(x, i, 0) * 2


class PickWithBprop(Pick):
    def bprop(self, x, i, out, dout):
        return (ops.ones_like(x) * dout.sum(), ops.zeros_like(i))


class Total(nn.Cell):
    def __init__(self, inner: nn.Cell):
        super().__init__()
        self.inner = inner

    def construct(self, x, i):
        return self.inner(x, i).sum()


INNER = {"remat": lambda: Pick().recompute(), "custom_bprop": PickWithBprop}
X = Tensor(np.arange(4.0).astype(np.float32))


def _idx(*values):
    return Tensor(np.array(values, np.int32))


@pytest.mark.parametrize("kind", list(INNER))
def test_in_range_indices_match_pynative(kind):
    eager = Total(INNER[kind]())
    expected_value = eager(X, _idx(1, 3)).asnumpy()
    expected_grad = ms.grad(eager)(X, _idx(1, 3)).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    net = Total(INNER[kind]())
    np.testing.assert_allclose(net(X, _idx(1, 3)).asnumpy(), expected_value)
    np.testing.assert_allclose(ms.jit(ms.grad(net))(X, _idx(1, 3)).asnumpy(), expected_grad)


@pytest.mark.parametrize("kind", list(INNER))
def test_out_of_range_index_raises_in_graph_mode(kind):
    with pytest.raises(IndexError, match="out of range"):
        Total(INNER[kind]())(X, _idx(1, 9))  # PyNative: the reference behaviour
    ms.set_context(mode=ms.GRAPH_MODE)
    net = Total(INNER[kind]())
    with pytest.raises(IndexError, match="out of range"):
        net(X, _idx(1, 9))
    with pytest.raises(IndexError, match="out of range"):
        ms.jit(ms.grad(net))(X, _idx(1, 9))
