"""State ops: assign semantics and errors; the fused optimizer primitives against NumPy formulas."""

import json
import os

import numpy as np
import pytest

import kiln as ms
from kiln import Parameter, Tensor, ops
from kiln._prims import state as S
from kiln._pynative import dispatch
from tests.ops.sgd_stat_cases import CASES as SGD_STAT_CASES
from tests.ops.sgd_stat_cases import run as run_sgd_stat_case


def _param(values, name="p", dtype=np.float32):
    return Parameter(Tensor(np.asarray(values, dtype)), name=name)


def test_assign_replaces_in_place_with_cast_and_broadcast():
    p = _param([1.0, 2.0, 3.0])
    out = ops.assign(p, Tensor(np.array([4, 5, 6], np.int32)))
    assert p.dtype == ms.float32
    np.testing.assert_array_equal(p.asnumpy(), [4, 5, 6])
    np.testing.assert_array_equal(out.asnumpy(), [4, 5, 6])
    ops.assign(p, 7.0)
    np.testing.assert_array_equal(p.asnumpy(), [7, 7, 7])
    q = _param(np.zeros((2, 3)))
    ops.Assign()(q, Tensor(np.arange(3, dtype=np.float32)))
    np.testing.assert_array_equal(q.asnumpy(), np.broadcast_to(np.arange(3), (2, 3)))


@pytest.mark.parametrize("lazy", [True, False])
def test_assign_of_a_value_of_the_targets_shape_and_dtype_compiles_no_kernel(monkeypatch, lazy):
    # PyNative stores such a value's array as it is (the kernel only broadcasts and casts; each shape compiled one:
    # the zoo's WGAN clips its weights through ops.assign); a gradient through the write and a cast or broadcast
    # value still take the kernel
    monkeypatch.setattr(dispatch, "LAZY", lazy)
    monkeypatch.setattr(dispatch, "_compiled", {})
    p = _param(np.zeros((3, 2)))
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    value = ops.clip_by_value(Tensor(x) - 2.0, Tensor(np.float32(-1.0)), Tensor(np.float32(1.5)))
    out = ops.assign(p, value)
    assert not [k for k in dispatch._compiled if k[0] is S.Assign]
    expected = np.clip(x - 2.0, -1.0, 1.5)
    np.testing.assert_array_equal(p.asnumpy(), expected)
    np.testing.assert_array_equal(out.asnumpy(), expected)
    np.testing.assert_array_equal((p * 2.0).asnumpy(), expected * 2.0)  # later ops read the new value
    ops.assign(p, Tensor(np.ones(2, np.float32)))  # broadcast: the kernel
    np.testing.assert_array_equal(p.asnumpy(), np.ones((3, 2)))
    assert [k for k in dispatch._compiled if k[0] is S.Assign]
    monkeypatch.setattr(dispatch, "_compiled", {})
    w = _param([1.0, 2.0], "w")

    def f(t):
        ops.assign(w, t * 3.0)  # recorded on the tape: the kernel
        return (w * t).sum()

    ms.grad(f)(Tensor(np.array([1.0, 2.0], np.float32)))
    np.testing.assert_array_equal(w.asnumpy(), [3.0, 6.0])
    assert [k for k in dispatch._compiled if k[0] is S.Assign]


def test_assign_add_sub():
    p = _param([1.0, 2.0])
    ops.assign_add(p, Tensor(np.array([0.5, 0.5], np.float32)))
    np.testing.assert_allclose(p.asnumpy(), [1.5, 2.5])
    ops.AssignSub()(p, 1.0)
    np.testing.assert_allclose(p.asnumpy(), [0.5, 1.5])
    ops.AssignAdd()(p, Tensor(np.float32(2)))
    np.testing.assert_allclose(p.asnumpy(), [2.5, 3.5])
    step = Parameter(Tensor(np.array([0], np.int32)), name="global_step")
    for _ in range(3):
        ops.assign_add(step, Tensor(np.array([1], np.int32)))
    assert step.dtype == ms.int32 and step.asnumpy().tolist() == [3]


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_assignments_and_inplace_ext_write_a_plain_tensor(mode):
    # MindSpore 2.10 writes a plain Tensor in place in both modes (checked with its CPU build): the value the
    # Cell returns is the written one.
    class Net(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.zeros_like = ops.ZerosLike()
            self.inplace_add = ops.InplaceAddExt()

        def construct(self, x, y):
            ops.AssignAdd()(x, y)
            z = self.zeros_like(x)
            self.inplace_add(z, x + 2, alpha=2)
            ops.InplaceSubExt()(z, y)
            return x, z

    ms.set_context(mode=mode)
    try:
        x, z = Net()(Tensor(np.float32([1, 2])), Tensor(np.float32([3, 4])))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_array_equal(x.asnumpy(), [4, 6])
    np.testing.assert_array_equal(z.asnumpy(), [2 * 6 - 3, 2 * 8 - 4])
    t = Tensor(np.ones(2, np.float32))
    out = ops.assign(t, 5.0)
    np.testing.assert_array_equal(t.asnumpy(), [5, 5])
    np.testing.assert_array_equal(out.asnumpy(), [5, 5])


def test_assign_errors():
    with pytest.raises(TypeError, match="For 'AssignAdd'.*Parameter or a Tensor"):
        ops.assign_add(np.ones(2), 1.0)
    with pytest.raises(ValueError, match=r"For 'AssignSub'.*\[3\].*\[2\]"):
        ops.assign_sub(_param([1.0, 2.0]), Tensor(np.ones(3, np.float32)))
    with pytest.raises(TypeError, match="value"):
        ops.assign(_param([1.0]), "x")


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
@pytest.mark.parametrize("face", [ops.assign, ops.assign_add, ops.assign_sub])
def test_a_value_that_would_widen_the_target_is_refused(mode, face):
    # MindSpore 2.10 (both modes, checked with its CPU build) refuses a Tensor value whose dtype promotes the
    # target's to another (float16 <- float32, int8 <- uint8 or int16, int32 <- float32); Kiln cast it into the
    # target, so an int16 300 became an int8 44 without a word. A value the target's dtype holds still casts.
    class Net(ms.nn.Cell):
        def __init__(self, p):
            super().__init__()
            self.p = p

        def construct(self, v):
            return face(self.p, v)

    ms.set_context(mode=mode)
    try:
        for target, value in (
            (np.float16, np.float32),
            (np.int8, np.uint8),
            (np.int8, np.int16),
            (np.int32, np.float32),
        ):
            p = _param([1, 2], dtype=target)
            with pytest.raises(TypeError, match="cast 'value' first"):
                Net(p)(Tensor(np.array([3, 300]).astype(value)))
            np.testing.assert_array_equal(p.asnumpy(), [1, 2])
        p = _param([1, 2], dtype=np.float32)
        Net(p)(Tensor(np.array([3, 4], np.int32)))
        sign = {"assign": None, "assign_add": 1, "assign_sub": -1}[face.__name__]
        want = np.array([3, 4], np.float32) if sign is None else np.array([1, 2], np.float32) + sign * np.array([3, 4])
        np.testing.assert_array_equal(p.asnumpy(), want)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    with pytest.raises(TypeError, match="cast 'value' first"):  # a plain Tensor written in place too
        face(Tensor(np.ones(2, np.int8)), Tensor(np.ones(2, np.uint8)))


_SCATTERS = {  # class -> NumPy's rule on the indexed rows
    "ScatterAdd": lambda row, u: row + u,
    "ScatterSub": lambda row, u: row - u,
    "ScatterMul": lambda row, u: row * u,
    "ScatterDiv": lambda row, u: row / u,
    "ScatterMax": np.maximum,
    "ScatterMin": np.minimum,
    "ScatterUpdate": lambda row, u: u,
    "ScatterNdAdd": lambda row, u: row + u,
    "ScatterNdSub": lambda row, u: row - u,
    "ScatterNdUpdate": lambda row, u: u,
}


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
@pytest.mark.parametrize("name", list(_SCATTERS))
def test_scatter_into_a_parameter_refuses_updates_that_would_widen_it(mode, name):
    # MindSpore 2.10 (both modes, its CPU build) raises TypeError when the updates' dtype promotes the Parameter's
    # (int32 <- float32, float16 <- float32, int8 <- int32) and casts narrower updates up (float32 <- float16);
    # Kiln cast the updates down, so ScatterDiv of an int8 row by 2.0 wrote 0 without a word.
    class Net(ms.nn.Cell):
        def __init__(self, p):
            super().__init__()
            self.p, self.op = p, getattr(ops.operations, name)()

        def construct(self, idx, u):
            return self.op(self.p, idx, u)

    idx = Tensor(np.array([[1]] if "Nd" in name else [1], np.int32))
    ms.set_context(mode=mode)
    try:
        for target, value in ((np.int32, np.float32), (np.float16, np.float32), (np.int8, np.int32)):
            p = _param(np.ones((3, 2)), dtype=target)
            with pytest.raises(TypeError, match="cast 'value' first"):
                Net(p)(idx, Tensor(np.full((1, 2), 2).astype(value)))
            np.testing.assert_array_equal(p.asnumpy(), np.ones((3, 2)))
        start = np.arange(6, dtype=np.float32).reshape(3, 2) + 1
        p = _param(start, dtype=np.float32)
        u = np.array([[0.5, 4.0]], np.float16)
        Net(p)(idx, Tensor(u))
        want = start.copy()
        want[1] = _SCATTERS[name](start[1], u[0].astype(np.float32))
        np.testing.assert_allclose(p.asnumpy(), want, rtol=1e-6)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.mark.parametrize("nesterov", [False, True])
def test_apply_momentum(nesterov):
    rng = np.random.default_rng(0)
    var0, acc0, grad = rng.normal(size=(3, 4)), rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    lr, mom = 0.1, 0.9
    v, a = _param(var0, "v"), _param(acc0, "a")
    out = ops.ApplyMomentum(use_nesterov=nesterov)(v, a, Tensor(np.float32(lr)), Tensor(grad.astype(np.float32)), mom)
    acc = acc0 * mom + grad
    want = var0 - (grad * lr + acc * mom * lr if nesterov else lr * acc)
    np.testing.assert_allclose(a.asnumpy(), acc, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(v.asnumpy(), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="ApplyMomentum"):
        ops.ApplyMomentum()(v, a, 0.1, Tensor(np.ones((2,), np.float32)), 0.9)
    with pytest.raises(TypeError, match="Parameter"):
        ops.ApplyMomentum()(v, Tensor(acc0.astype(np.float32)), 0.1, Tensor(grad.astype(np.float32)), 0.9)


@pytest.mark.parametrize("nesterov", [False, True])
def test_adam_primitive(nesterov):
    rng = np.random.default_rng(1)
    var0, grad = rng.normal(size=(5,)), rng.normal(size=(5,))
    m0, v0 = rng.normal(size=(5,)), rng.uniform(0.1, 1, size=(5,))
    b1, b2, eps, lr, b1p, b2p = 0.9, 0.999, 1e-8, 0.01, 0.9**3, 0.999**3
    var, m, v = _param(var0, "var"), _param(m0, "m"), _param(v0, "v")
    ops.Adam(use_nesterov=nesterov)(var, m, v, b1p, b2p, lr, b1, b2, eps, Tensor(grad.astype(np.float32)))
    m1 = b1 * m0 + (1 - b1) * grad
    v1 = b2 * v0 + (1 - b2) * grad**2
    alpha = lr * np.sqrt(1 - b2p) / (1 - b1p)
    d = (b1 * m1 + (1 - b1) * grad) if nesterov else m1
    np.testing.assert_allclose(m.asnumpy(), m1, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(v.asnumpy(), v1, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(var.asnumpy(), var0 - alpha * d / (np.sqrt(v1) + eps), rtol=1e-5, atol=1e-6)


def test_sgd_primitive_first_step_then_momentum():
    rng = np.random.default_rng(2)
    p0, g1, g2 = rng.normal(size=(4,)), rng.normal(size=(4,)), rng.normal(size=(4,))
    lr, mom, damp, wd = 0.1, 0.9, 0.2, 0.01
    p, acc, stat = _param(p0, "p"), _param(np.zeros(4), "acc"), _param(np.ones(4), "stat")
    sgd = ops.SGD(dampening=damp, weight_decay=wd)
    sgd(p, Tensor(g1.astype(np.float32)), lr, acc, mom, stat)
    sgd(p, Tensor(g2.astype(np.float32)), lr, acc, mom, stat)
    # reference: PyTorch-style SGD (first step buffer = gradient)
    w = p0.copy()
    d = g1 + wd * w
    buf = d
    w = w - lr * buf
    d = g2 + wd * w
    buf = mom * buf + (1 - damp) * d
    w = w - lr * buf
    np.testing.assert_allclose(p.asnumpy(), w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(acc.asnumpy(), buf, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(stat.asnumpy(), np.zeros(4))
    with pytest.raises(ValueError, match="nesterov"):
        ops.SGD(dampening=0.5, nesterov=True)


@pytest.mark.parametrize("case", sorted(SGD_STAT_CASES))
def test_sgd_clears_only_a_positive_stat_under_a_positive_momentum_as_mindspore(case):
    # Found on the zoo's DLRM (issue 21): MindSpore's SGD kernel clears `stat` only where it is > 0 (and the momentum
    # > 0); Kiln cleared every element under a positive momentum, rewriting a stat of 0 or below. Goldens:
    # make_sgd_stat_goldens_mindspore.py (the primitive and nn.SGD, momenta 0.3, 0 and -0.3, plain and Nesterov).
    momentum, nesterov, through = SGD_STAT_CASES[case]
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "sgd_stat_goldens_mindspore.json")) as f:
        want = json.load(f)["cases"][case]
    got = run_sgd_stat_case(ms, momentum, nesterov, through)
    np.testing.assert_array_equal(np.asarray(got["stat"], np.float32), np.asarray(want["stat"], np.float32))
    np.testing.assert_allclose(got["accum"], want["accum"], rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(got["param"], want["param"], rtol=1e-6, atol=1e-7)
