"""Attribute writes in `construct` (`self.x = ...` for a value that is not a Parameter), as a user sees them in
PyNative, GRAPH_MODE, `@jit` and bytecode capture: later code of the same call reads the new value, and the
object holds it after the call (issue 18, points 8 and 10; MindSpore 2.10 compiles them the same way)."""

from __future__ import annotations

import numpy as np
import pytest

import kiln as ms
from kiln import Tensor, nn

MODES = ("pynative", "graph", "jit", "bytecode")


def _call(mode: str, net: nn.Cell, *args):
    """`net(*args)` in one of the four modes (GRAPH_MODE stays set until the test's end)."""
    if mode == "graph":
        ms.set_context(mode=ms.GRAPH_MODE)
    elif mode in ("jit", "bytecode") and "construct" not in net.__dict__:
        capture = "bytecode" if mode == "bytecode" else "ast"
        net.construct = ms.jit(net.construct, capture_mode=capture)
    return net(*args)


class _Counter(nn.Cell):
    def __init__(self):
        super().__init__()
        self.count = 0

    def construct(self, x):
        self.count = self.count + 1
        return x + self.count


@pytest.mark.parametrize("mode", MODES)
def test_an_int_attribute_incremented_in_construct_counts_calls(mode):
    net = _Counter()
    x = Tensor(np.ones(2, np.float32))
    np.testing.assert_array_equal(_call(mode, net, x).asnumpy(), [2, 2])
    np.testing.assert_array_equal(_call(mode, net, x).asnumpy(), [3, 3])
    assert net.count == 2 and type(net.count) is int


class _Recorder(nn.Cell):
    def __init__(self):
        super().__init__()
        self.last = Tensor(np.zeros(2, np.float32))
        self.seen = False
        self.sizes = []

    def construct(self, x):
        self.last = x * 2
        y = self.last + 1  # reads the value written just before
        self.seen = True
        self.sizes = [1, 2]
        return y


@pytest.mark.parametrize("mode", MODES)
def test_tensor_flag_and_list_attributes_are_visible_later_in_the_call_and_after_it(mode):
    net = _Recorder()
    np.testing.assert_array_equal(_call(mode, net, Tensor(np.array([1.0, 2.0], np.float32))).asnumpy(), [3, 5])
    assert type(net.last) is Tensor and net.seen is True and net.sizes == [1, 2]
    np.testing.assert_array_equal(net.last.asnumpy(), [2, 4])
    net.seen, net.sizes = False, []  # reset outside: the next (cached) call writes them again
    np.testing.assert_array_equal(_call(mode, net, Tensor(np.array([3.0, 4.0], np.float32))).asnumpy(), [7, 9])
    np.testing.assert_array_equal(net.last.asnumpy(), [6, 8])
    assert net.seen is True and net.sizes == [1, 2]


class _Accumulator(nn.Cell):
    def __init__(self):
        super().__init__()
        self.total = Tensor(np.zeros(2, np.float32))

    def construct(self, x):
        if x.sum() > 0:  # a Tensor condition: the write happens on one path only
            self.total = self.total + x
        return self.total * 1


@pytest.mark.parametrize("mode", MODES)
def test_a_tensor_attribute_written_under_a_tensor_condition(mode):
    net = _Accumulator()
    pos, neg = Tensor(np.array([1.0, 2.0], np.float32)), Tensor(np.array([-5.0, 1.0], np.float32))
    np.testing.assert_array_equal(_call(mode, net, pos).asnumpy(), [1, 2])
    np.testing.assert_array_equal(_call(mode, net, neg).asnumpy(), [1, 2])
    np.testing.assert_array_equal(_call(mode, net, pos).asnumpy(), [2, 4])
    np.testing.assert_array_equal(net.total.asnumpy(), [2, 4])


class _Inner(nn.Cell):
    def __init__(self):
        super().__init__()
        self.scale = 1

    def construct(self, x):
        return x * self.scale


class _Outer(nn.Cell):
    def __init__(self):
        super().__init__()
        self.inner = _Inner()

    def construct(self, x):
        self.inner.scale = 3
        return self.inner(x)


@pytest.mark.parametrize("mode", MODES)
def test_an_attribute_of_a_nested_cell_set_before_calling_it(mode):
    net = _Outer()
    np.testing.assert_array_equal(_call(mode, net, Tensor(np.array([1.0, 2.0], np.float32))).asnumpy(), [3, 6])
    assert net.inner.scale == 3


class _FailsAfterWrite(nn.Cell):
    def __init__(self):
        super().__init__()
        self.count = 0

    def construct(self, x):
        self.count = 5
        return x + undefined_name  # noqa: F821  (a compile error after the write)


def test_a_failed_compile_leaves_python_attributes_as_they_were():
    ms.set_context(mode=ms.GRAPH_MODE)
    net = _FailsAfterWrite()
    with pytest.raises(NameError):
        net(Tensor(np.ones(2, np.float32)))
    assert net.count == 0
