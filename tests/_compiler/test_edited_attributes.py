"""A compiled program over Cells compiles again when an attribute its run reads is changed in place after the compile.

Two kinds of change were silent wrong results against PyNative (a GRAPH_MODE Cell, an @jit function in either capture
mode and a TrainOneStepCell step kept running the first program):

- a plain attribute of a library Cell (`act.alpha`, `dense.has_bias`, `dropout.p`, a loss's `reduction`...): the layer
  runs as Python inside the trace, so its reads were not guarded. A change to a library Cell that a program read now
  bumps the Cell's own count of edits (kiln/_compiler/guards.py `cell_reads`), which each program that read it guards;
- an attribute of a primitive (`matmul.transpose_b = False`, `add_prim_attr`): a program guards the count of each
  primitive a layer of it holds or it called, which a change bumps (kiln/ops/primitive.py).

A change compiles again only the programs that read the changed object.

Each case compares the output after the change with PyNative's for the same network after the same change; setting
an attribute to the value it holds, or one that only names the op (`set_prim_instance_name`), compiles nothing.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import kiln as ms
from kiln import nn, ops

X = ms.Tensor(np.array([[1.0, -2.0, 0.5], [0.3, 0.7, 1.1], [-1.5, 0.2, 0.9], [0.4, -0.8, -0.3]], np.float32))
Y = ms.Tensor(np.array([[0.2, -0.4, 0.1], [1.0, 0.5, -0.3], [0.0, 0.3, 0.7], [-0.6, 0.2, 0.4]], np.float32))
W = ms.Tensor(np.array([[0.5, -1.0, 0.2], [0.3, 0.8, -0.6], [-0.4, 0.1, 0.9]], np.float32))  # not symmetric


class _Net(nn.Cell):
    """Library layers (whose code reads their attributes as Python) around a user's MatMul primitive."""

    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(3, 3, weight_init=W, bias_init="ones")
        self.bn = nn.BatchNorm1d(3)
        self.act = nn.LeakyReLU(0.2)
        self.gelu = nn.GELU()
        self.mm = ops.MatMul()
        self.w = ms.Parameter(W, name="w")

    def construct(self, x):
        return self.gelu(self.mm(self.act(self.bn(self.dense(x))), self.w))


def _dense_activation(net):
    net.dense.activation = nn.Tanh()  # MindSpore's Dense applies it while `activation_flag` says so
    net.dense.activation_flag = True


CHANGES = {
    "LeakyReLU alpha": lambda net: setattr(net.act, "alpha", 0.7),
    "GELU approximate": lambda net: setattr(net.gelu, "approximate", False),
    "Dense has_bias": lambda net: setattr(net.dense, "has_bias", False),
    "Dense activation_flag": _dense_activation,
    "held MatMul transpose_b": lambda net: setattr(net.dense.matmul, "transpose_b", False),
    "held MatMul add_prim_attr": lambda net: net.dense.matmul.add_prim_attr("transpose_b", False),
    "user's MatMul transpose_b": lambda net: setattr(net.mm, "transpose_b", True),
    "user's MatMul add_prim_attr": lambda net: net.mm.add_prim_attr("transpose_b", True),
}


def _pynative(change) -> np.ndarray:
    net = _Net()
    net.set_train(False)
    change(net)
    return net(X).asnumpy()


def _runner(net, how: str):
    return net if how == "graph" else ms.jit(lambda x: net(x), capture_mode=how)


@pytest.mark.parametrize("how", ["graph", "ast", "bytecode"])
@pytest.mark.parametrize("change", list(CHANGES))
def test_an_attribute_changed_after_the_compile_runs_what_pynative_runs(change, how):
    expected = _pynative(CHANGES[change])
    if how == "graph":
        ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = _Net()
        net.set_train(False)
        run = _runner(net, how)
        before = run(X).asnumpy()
        CHANGES[change](net)
        after = run(X).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert not np.allclose(before, expected)  # the change changes the output
    np.testing.assert_allclose(after, expected, rtol=1e-6, atol=1e-6)


def test_a_held_primitive_changed_in_place_runs_in_pynative():
    """Dense computes with one fused primitive while its held MatMul is untouched; an attribute set on the held one
    makes it run MindSpore's sequence, as MindSpore's Dense runs its MatMul (there `x @ W`, not `x @ W.T`)."""
    net = nn.Dense(3, 3, weight_init=W, bias_init="zeros")
    np.testing.assert_allclose(net(X).asnumpy(), X.asnumpy() @ W.asnumpy().T, rtol=1e-6)
    net.matmul.transpose_b = False
    np.testing.assert_allclose(net(X).asnumpy(), X.asnumpy() @ W.asnumpy(), rtol=1e-6)


def test_has_bias_false_drops_the_bias_in_pynative():
    """MindSpore's Dense and Conv2d add their bias while `has_bias` says so (set after construction too)."""
    dense = nn.Dense(3, 3, weight_init=W, bias_init="ones")
    dense.has_bias = False
    np.testing.assert_allclose(dense(X).asnumpy(), X.asnumpy() @ W.asnumpy().T, rtol=1e-6)
    conv = nn.Conv2d(1, 1, 1, has_bias=True, weight_init="ones", bias_init="ones")
    x = ms.Tensor(np.arange(4, dtype=np.float32).reshape(1, 1, 2, 2))
    conv.has_bias = False
    np.testing.assert_allclose(conv(x).asnumpy(), x.asnumpy(), rtol=1e-6)


@pytest.mark.parametrize("how", ["graph", "ast", "bytecode"])
def test_dropout_p_changed_after_the_compile(how):
    """`dropout.p = 0.0` after a compile at p=0.5: the training-mode Dropout then passes its input through."""
    if how == "graph":
        ms.set_context(mode=ms.GRAPH_MODE)
    try:
        drop = nn.Dropout(p=0.5)
        drop.set_train(True)
        run = _runner(drop, how)
        before = run(X).asnumpy()
        drop.p = 0.0
        after = run(X).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert not np.allclose(before, X.asnumpy())
    np.testing.assert_array_equal(after, X.asnumpy())


@pytest.mark.parametrize("how", ["ast", "bytecode"])
def test_a_global_primitive_changed_after_the_compile(how):
    """A primitive an @jit function reads from its module's globals (no Cell around it)."""
    global _GLOBAL_MM
    _GLOBAL_MM = ops.MatMul()
    run = ms.jit(lambda a: _GLOBAL_MM(a, W), capture_mode=how)
    np.testing.assert_allclose(run(X).asnumpy(), X.asnumpy() @ W.asnumpy(), rtol=1e-6)
    _GLOBAL_MM.transpose_b = True
    np.testing.assert_allclose(run(X).asnumpy(), X.asnumpy() @ W.asnumpy().T, rtol=1e-6)
    assert run.compile_count == 2


_GLOBAL_MM = None


def _train(change, mode: int) -> tuple[list[float], list[np.ndarray]]:
    ms.set_context(mode=mode)
    try:
        net = _Net()
        loss = nn.MSELoss()
        step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.SGD(net.trainable_params(), 0.05))
        losses = [float(step(X, Y).asnumpy())]
        change(net, loss)
        losses += [float(step(X, Y).asnumpy()) for _ in range(2)]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    return losses, [p.asnumpy() for p in net.get_parameters()]


TRAIN_CHANGES = {
    "LeakyReLU alpha": lambda net, loss: CHANGES["LeakyReLU alpha"](net),
    "Dense has_bias": lambda net, loss: CHANGES["Dense has_bias"](net),
    "held MatMul transpose_b": lambda net, loss: CHANGES["held MatMul transpose_b"](net),
    "user's MatMul transpose_b": lambda net, loss: CHANGES["user's MatMul transpose_b"](net),
    "loss reduction": lambda net, loss: setattr(loss, "reduction", "sum"),  # Kiln's losses read it as they run
}


@pytest.mark.parametrize("change", list(TRAIN_CHANGES))
def test_a_train_step_compiled_before_a_change_trains_as_pynative(change):
    expected = _train(TRAIN_CHANGES[change], ms.PYNATIVE_MODE)
    unchanged = _train(lambda net, loss: None, ms.PYNATIVE_MODE)
    assert not all(np.allclose(a, b) for a, b in zip(expected[1], unchanged[1], strict=True))  # the change tells
    losses, params = _train(TRAIN_CHANGES[change], ms.GRAPH_MODE)
    np.testing.assert_allclose(losses, expected[0], rtol=1e-5, atol=1e-6)
    for got, want in zip(params, expected[1], strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_setting_what_an_attribute_holds_or_naming_a_primitive_compiles_nothing():
    """The guards hold while nothing a run reads changes: the same value set again, a primitive's instance name,
    MindSpore's per-primitive recompute flag (recorded, with a warning that XLA decides what is kept)."""
    net = _Net()
    net.set_train(False)
    run = ms.jit(lambda x: net(x))
    first = run(X).asnumpy()
    net.act.alpha = 0.2
    net.dense.has_bias = True
    net.dense.matmul.transpose_b = True
    net.mm.set_prim_instance_name("user_mm")
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        assert net.mm.recompute() is net.mm
    with pytest.raises(TypeError, match="bool"):
        net.mm.recompute(1)  # MindSpore refuses a mode that is not a bool too
    np.testing.assert_array_equal(run(X).asnumpy(), first)
    assert run.compile_count == 1
    assert net.mm.instance_name == "user_mm"


@pytest.mark.parametrize("how", ["graph", "ast", "bytecode"])
def test_a_change_compiles_again_only_the_programs_that_read_it(how):
    """Two programs over two networks: changing a layer or a primitive of one compiles that one again, not the other
    (the counts of edits were global, and each change compiled every program again: a train step and its eval net
    each took seconds when a script changed an unrelated layer between steps)."""
    if how == "graph":
        ms.set_context(mode=ms.GRAPH_MODE)
    nets = [_Net(), _Net()]
    for net in nets:
        net.set_train(False)
    runs = [_runner(net, how) for net in nets]

    def counts():
        return [run._kiln_graph_cache.compiles if how == "graph" else run.compile_count for run in runs]

    before = [run(X).asnumpy() for run in runs]
    start = counts()
    for change in ("LeakyReLU alpha", "held MatMul transpose_b", "user's MatMul add_prim_attr"):
        CHANGES[change](nets[0])
        np.testing.assert_allclose(runs[0](X).asnumpy(), _pynative_after(change), rtol=1e-5, atol=1e-6)
        np.testing.assert_array_equal(runs[1](X).asnumpy(), before[1])
    assert [c - s for c, s in zip(counts(), start, strict=True)] == [3, 0]


def _pynative_after(last: str) -> np.ndarray:
    """PyNative's output after the changes of the test above up to `last`, in order."""
    net = _Net()
    net.set_train(False)
    for change in ("LeakyReLU alpha", "held MatMul transpose_b", "user's MatMul add_prim_attr"):
        CHANGES[change](net)
        if change == last:
            break
    return net(X).asnumpy()


class _FlaggedSequence(nn.SequentialCell):
    """A user's subclass of a library Cell whose construct writes a plain attribute of its own."""

    def __init__(self):
        super().__init__(nn.Dense(3, 3, weight_init=W, bias_init="zeros"), nn.ReLU())
        self.flag = False

    def construct(self, x):
        self.flag = True
        return self[1](self[0](x))


@pytest.mark.parametrize("how", ["ast", "bytecode"])
def test_a_program_writing_a_library_cells_attribute_compiles_once(how):
    """The trace's own write (replayed by each run) does not make its program stale: the edit count is taken after
    the trace."""
    net = _FlaggedSequence()
    run = ms.jit(lambda x: net(x), capture_mode=how)
    for _ in range(3):
        out = run(X)
    np.testing.assert_allclose(out.asnumpy(), np.maximum(X.asnumpy() @ W.asnumpy().T, 0), rtol=1e-6)
    assert net.flag is True
    assert run.compile_count == 1


def test_a_hint_added_to_a_held_primitive_keeps_the_fused_layer_and_the_program():
    """`add_prim_attr` of a name the primitive did not hold (the zoo's `matmul.add_prim_attr("field_size", 39)`) is a
    hint for MindSpore's passes that no call reads: the layer keeps its fused primitive, no program compiles again."""
    net = _Net()
    net.set_train(False)
    run = ms.jit(lambda x: net(x))
    first = run(X).asnumpy()
    net.dense.matmul.add_prim_attr("field_size", 39)
    net.mm.add_prim_attr("cross_batch", True)
    np.testing.assert_array_equal(run(X).asnumpy(), first)
    assert run.compile_count == 1
    assert not net.dense._held_touched
