"""The stand-ins kiln/common/api.py offers for private names of `mindspore.common.api` that test scripts use:
`_cell_graph_executor.compile(net, *inputs)` compiles a Cell as GRAPH_MODE does without running it, and
`_no_recursive` leaves what it marks unchanged; `mindspore.ops.primitive._primexpr` is `primexpr`."""

from __future__ import annotations

import numpy as np
import pytest

import kiln as ms
from kiln import Parameter, Tensor, nn
from kiln.common.api import _cell_graph_executor, _no_recursive
from kiln.ops.primitive import _primexpr


class _Counter(nn.Cell):
    def __init__(self):
        super().__init__()
        self.count = Parameter(Tensor(np.float32(0.0)), name="count")

    def construct(self, x):
        self.count += 1
        return x * 2


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_compile_builds_the_graph_without_running_it(mode):
    ms.set_context(mode=mode)
    net = _Counter()
    assert _cell_graph_executor.compile(net, Tensor(np.ones(3, np.float32))) == "predict"
    assert float(net.count.asnumpy()) == 0.0  # nothing ran
    assert net._kiln_graph_cache.compiles == 1
    ms.set_context(mode=ms.GRAPH_MODE)
    np.testing.assert_array_equal(net(Tensor(np.ones(3, np.float32))).asnumpy(), [2, 2, 2])
    assert net._kiln_graph_cache.compiles == 1  # the call found the compiled graph
    assert float(net.count.asnumpy()) == 1.0


class _RaisesWhileCompiling(nn.Cell):
    def construct(self, x):
        if x.shape[0] > 1:
            raise ValueError(f"too long: {x.shape}")
        return x


def test_compile_raises_what_the_graph_raises_on_every_path():
    with pytest.raises(ValueError, match=r"too long: \(2,\)"):
        _cell_graph_executor.compile(_RaisesWhileCompiling(), Tensor(np.ones(2, np.float32)))


def test_no_recursive_leaves_a_cell_class_or_function_unchanged():
    ms.set_context(mode=ms.GRAPH_MODE)

    def double(x):
        return x * 2

    assert _no_recursive(double) is double
    net_cls = _no_recursive(_Counter)
    assert net_cls is _Counter
    np.testing.assert_array_equal(net_cls()(Tensor(np.ones(2, np.float32))).asnumpy(), [2, 2])
    np.testing.assert_array_equal(ms.jit(_no_recursive(double))(Tensor(np.ones(2, np.float32))).asnumpy(), [2, 2])


def test_primexpr_under_its_private_name_folds_at_compile_time():
    @_primexpr
    def count_none(seq):
        return sum(1 for e in seq if e is None)

    @ms.jit
    def f(x):
        return x + count_none((None, 1, None))

    np.testing.assert_array_equal(f(Tensor(np.zeros(2, np.float32))).asnumpy(), [2, 2])
