"""`jit`'s forms and switches: `@jit` on a Cell class (its `construct` compiled, as MindSpore does), and
MindSpore's MS_DEV_PRECOMPILE_ONLY=1 (a graph call, `@jit` or a GRAPH_MODE Cell, compiles and returns None without
running, so nothing is written; PyNative ops still run, and unsetting it runs graphs again)."""

from __future__ import annotations

import numpy as np
import pytest

import kiln as ms
from kiln import Parameter, Tensor, nn, ops


@pytest.fixture
def precompile_only(monkeypatch):
    monkeypatch.setenv("MS_DEV_PRECOMPILE_ONLY", "1")


class _Counter(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(Tensor(np.float32(1.0)), name="p")

    def construct(self, x):
        self.p += 1
        return x * 2


def test_jit_compiles_and_returns_none(precompile_only, monkeypatch):
    @ms.jit
    def f(x):
        return x + 1

    def endless(i):
        while i < 3:  # never runs: only compiled (the counter is never advanced)
            i = i * 1
        return i

    assert f(Tensor(np.float32([1.0]))) is None
    assert f(Tensor(np.float32([1.0]))) is None  # a second call with the same inputs does not run either
    assert f.compile_count == 1
    assert ms.jit(endless)(Tensor(np.int32(0))) is None
    assert ops.add(Tensor(np.float32([1.0])), 1).asnumpy().tolist() == [2.0]  # PyNative still runs
    monkeypatch.delenv("MS_DEV_PRECOMPILE_ONLY")
    assert f(Tensor(np.float32([1.0]))).asnumpy().tolist() == [2.0]
    assert f.compile_count == 1  # the program compiled before runs now


@pytest.mark.parametrize("mode", ("graph", "jit"))
def test_a_cell_is_not_run_and_writes_nothing(precompile_only, monkeypatch, mode):
    net = _Counter()
    if mode == "graph":
        ms.set_context(mode=ms.GRAPH_MODE)
        run = net
    else:
        run = ms.jit(net.construct)
    try:
        assert run(Tensor(np.float32([1.0]))) is None
        assert float(net.p.asnumpy()) == 1.0
        monkeypatch.delenv("MS_DEV_PRECOMPILE_ONLY")
        assert run(Tensor(np.float32([1.0]))).asnumpy().tolist() == [2.0]
        assert float(net.p.asnumpy()) == 2.0
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.mark.parametrize("capture_mode", ("ast", "bytecode"))
def test_jit_on_a_cell_class_compiles_its_construct(capture_mode):
    class Plain(nn.Cell):
        def __init__(self, scale):
            super().__init__()
            self.scale = scale

        def construct(self, x, y):
            return self.scale * x + y

    @ms.jit(capture_mode=capture_mode)
    class Compiled(Plain):
        def __init__(self, scale):
            super(Compiled, self).__init__(scale)  # noqa: UP008  (the name must still be the class)

        def construct(self, x, y):
            return self.scale * x + y

    assert isinstance(Compiled, type) and issubclass(Compiled, nn.Cell)
    x, y = Tensor(np.float32([1.0, 2.0])), Tensor(np.float32([3.0, 4.0]))
    net = Compiled(3.0)
    np.testing.assert_allclose(net(x, y).asnumpy(), Plain(3.0)(x, y).asnumpy())
    np.testing.assert_allclose(net(y, x).asnumpy(), Plain(3.0)(y, x).asnumpy())
    assert isinstance(Compiled.__dict__["construct"], ms.jit(lambda v: v).__class__)  # compiled, not plain Python
