"""`jit`'s forms and switches: `@jit` on a Cell class (its `construct` compiled, as MindSpore does), and
MindSpore's MS_DEV_PRECOMPILE_ONLY=1 (a graph call, `@jit` or a GRAPH_MODE Cell, compiles and returns None without
running, so nothing is written; PyNative ops still run, and unsetting it runs graphs again), and the syntax level
(only LAX runs host steps; MindSpore's MS_DEV_JIT_SYNTAX_LEVEL overrides every other setting)."""

from __future__ import annotations

import numpy as np
import pytest

import kiln as ms
from kiln import Parameter, Tensor, nn, ops
from kiln._compiler.errors import GraphCompileError


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


class _HostReader:
    """A plain Python object whose method reads a Tensor's value on the host."""

    def __init__(self):
        self.number = 2

    def twice(self, x):
        return self.number * x.asnumpy()


class _ReadsOnHost(nn.Cell):
    def __init__(self):
        super().__init__()
        self.reader = _HostReader()

    def construct(self, x):
        return self.reader.twice(x)


def _reads_on_host(x):
    return _HostReader().twice(x)


def _compiled_reader(kind: str, level: str | None):
    config = ms.JitConfig(jit_syntax_level=level) if level else None
    if kind == "jit":
        return ms.jit(_reads_on_host, jit_config=config)
    ms.set_context(mode=ms.GRAPH_MODE)
    net = _ReadsOnHost()
    if config is not None:
        net.set_jit_config(config)
    return net


@pytest.mark.parametrize("kind", ["jit", "graph"])
@pytest.mark.parametrize("level", ["STRICT", "COMPATIBLE"])
def test_only_lax_reads_a_tensor_on_the_host(monkeypatch, kind, level):
    monkeypatch.delenv("MS_DEV_JIT_SYNTAX_LEVEL", raising=False)
    assert _compiled_reader(kind, "LAX")(Tensor(2)) == 4
    # the graph's Tensors have no host-reading methods at the stricter levels: an AttributeError, at the user's line
    with pytest.raises(AttributeError, match="jit_syntax_level") as info:
        _compiled_reader(kind, level)(Tensor(2))
    assert isinstance(info.value, GraphCompileError)
    assert "x.asnumpy()" in str(info.value)


@pytest.mark.parametrize("kind", ["jit", "graph"])
def test_ms_dev_jit_syntax_level_overrides_every_setting(monkeypatch, kind):
    monkeypatch.setenv("MS_DEV_JIT_SYNTAX_LEVEL", "0")
    with pytest.raises(AttributeError, match="STRICT"):
        _compiled_reader(kind, "LAX")(Tensor(2))
    monkeypatch.setenv("MS_DEV_JIT_SYNTAX_LEVEL", "LAX")
    assert _compiled_reader(kind, "STRICT")(Tensor(2)) == 4
    monkeypatch.setenv("MS_DEV_JIT_SYNTAX_LEVEL", "2")
    assert ms.jit(_reads_on_host, fullgraph=True)(Tensor(3)) == 6  # fullgraph=True alone would be STRICT
