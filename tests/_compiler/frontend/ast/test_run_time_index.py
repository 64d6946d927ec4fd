"""Indexing a tuple, list or CellList with an integer Tensor known only when the graph runs (MindSpore's
switch_layer), as a user sees it in PyNative, GRAPH_MODE, `@jit` and bytecode capture (issue 18, point 12):
the item (a Tensor, or a Cell that is then called) is chosen when the graph runs, with its gradient."""

from __future__ import annotations

import numpy as np
import pytest

import kiln as ms
from kiln import Tensor, nn

MODES = ("pynative", "graph", "jit", "bytecode")


class _Scale(nn.Cell):
    def __init__(self, k):
        super().__init__()
        self.k = k

    def construct(self, x):
        return x * self.k


class _Layers(nn.Cell):
    def __init__(self):
        super().__init__()
        self.layers = (_Scale(2.0), nn.ReLU(), _Scale(-1.0))
        self.blocks = nn.CellList([_Scale(3.0), _Scale(4.0)])

    def construct(self, x, i, j):
        y = self.layers[i](x)
        return self.blocks[j](y)


def _call(mode, net, *args):
    if mode == "graph":
        ms.set_context(mode=ms.GRAPH_MODE)
    elif mode in ("jit", "bytecode") and "construct" not in net.__dict__:
        net.construct = ms.jit(net.construct, capture_mode="bytecode" if mode == "bytecode" else "ast")
    return net(*args)


@pytest.mark.parametrize("mode", MODES)
def test_a_cell_chosen_by_a_run_time_index(mode):
    net = _Layers()
    x = Tensor(np.array([-1.0, 2.0], np.float32))
    for i, j, want in ((0, 0, [-6, 12]), (1, 1, [0, 8]), (2, 0, [3, -6])):
        got = _call(mode, net, x, Tensor(i, ms.int32), Tensor(j, ms.int32))
        np.testing.assert_allclose(got.asnumpy(), want)


def _pick(x, i):
    items = (x, x * 2, x * 3)
    return items[i] + 1


@pytest.mark.parametrize("mode", MODES)
def test_a_tensor_chosen_from_a_tuple_by_a_run_time_index_with_its_gradient(mode):
    x = Tensor(np.array([1.0, 2.0], np.float32))
    grad = ms.grad(lambda x, i: _pick(x, i).sum())
    for i in range(3):
        fn = _pick if mode == "pynative" else ms.jit(_pick, capture_mode="bytecode" if mode == "bytecode" else "ast")
        np.testing.assert_allclose(fn(x, Tensor(i, ms.int32)).asnumpy(), [1 + (i + 1), 1 + 2 * (i + 1)])
        g = grad if mode == "pynative" else ms.jit(grad)
        np.testing.assert_allclose(g(x, Tensor(i, ms.int32)).asnumpy(), [i + 1.0, i + 1.0])
