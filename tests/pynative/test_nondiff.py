"""Inputs that get no gradient (`PrimitiveDef.nondiff`) and ops with no derivative (a user's pyfunc), on PyNative's
tape and in GRAPH_MODE; a pyfunc's host effect kept by graph passes (issue 21).

MindSpore 2.10 (checked with its CPU build): `stop_gradient(pyfunc(x)) * x` differentiates; a gradient reaching a
pyfunc with no bprop raises RuntimeError ("bprop not defined") in both modes; Custom with a bprop uses it; a nondiff
float input (ROIAlign's rois, NextAfter's x2) gets a zero gradient and NextAfter passes the cotangent to x1; a stateful
PyFunc runs at every call in both modes.
"""

from __future__ import annotations

import numpy as np
import pytest

import kiln
from kiln import Tensor, nn, ops
from kiln._pynative import dispatch

X = np.array([1.0, -2.0, 3.0], np.float32)


def _double(a):
    return a * 2


def _custom(bprop=None):
    return ops.Custom(_double, out_shape=lambda s: s, out_dtype=lambda d: d, func_type="pyfunc", bprop=bprop)


class _Loss(nn.Cell):
    def __init__(self, kind: str) -> None:
        super().__init__()
        self.kind = kind
        self.op = _custom()

    def construct(self, x):
        if self.kind == "stop":
            return (ops.stop_gradient(self.op(x)) * x).sum()
        return (self.op(x) * x).sum()  # the line the gradient error names


PLAIN_LINE = _Loss.construct.__code__.co_firstlineno + 3


@pytest.fixture(params=["pynative", "graph"])
def mode(request):
    kiln.set_context(mode=kiln.GRAPH_MODE if request.param == "graph" else kiln.PYNATIVE_MODE)
    yield request.param
    kiln.set_context(mode=kiln.PYNATIVE_MODE)


def _finite_difference(f, x: np.ndarray, eps: float = 1e-3) -> np.ndarray:
    g = np.zeros_like(x, dtype=np.float64)
    for i in range(x.size):
        up, down = x.copy(), x.copy()
        up.flat[i] += eps
        down.flat[i] -= eps
        g.flat[i] = (f(up) - f(down)) / (2 * eps)
    return g


def test_a_stopped_pyfunc_output_is_a_constant_of_the_gradient(mode):
    grad = kiln.grad(_Loss("stop"))(Tensor(X))
    np.testing.assert_allclose(grad.asnumpy(), _double(X), rtol=1e-6)  # d/dx sum(c * x) with c = f(x) held


def test_a_gradient_through_a_pyfunc_raises_naming_the_line(mode):
    with pytest.raises(RuntimeError) as info:
        kiln.grad(_Loss("plain"))(Tensor(X)).asnumpy()
    text = str(info.value)
    assert "PyFunc" in text and "no derivative" in text
    assert f"{__file__}" in text or "test_nondiff.py" in text
    assert f"{PLAIN_LINE}" in text


def test_a_custom_pyfunc_with_a_bprop_uses_it(mode):
    def bprop(x, out, dout):
        return (dout * 3,)

    class Net(nn.Cell):
        def __init__(self) -> None:
            super().__init__()
            self.op = _custom(bprop)

        def construct(self, x):
            return (self.op(x) * x).sum()

    grad = kiln.grad(Net())(Tensor(X))
    # d/dx sum(f(x) * x) with the bprop's df = 3: f(x) + 3x
    np.testing.assert_allclose(grad.asnumpy(), _double(X) + 3 * X, rtol=1e-6)


def test_nextafter_passes_the_cotangent_to_x1_and_none_to_x2(mode):
    y = np.array([0.0, 5.0, 1.0], np.float32)

    class Net(nn.Cell):
        def construct(self, a, b):
            return (ops.nextafter(a, b) * a).sum()

    ga, gb = kiln.grad(Net(), grad_position=(0, 1))(Tensor(X), Tensor(y))
    # nextafter moves x by one ulp: its finite difference is that of the identity in x1 and zero in x2
    fd_a = _finite_difference(lambda v: float(np.sum(np.nextafter(v, y) * v)), X.astype(np.float64))
    fd_b = _finite_difference(lambda v: float(np.sum(np.nextafter(X, v.astype(np.float32)) * X)), y.astype(np.float64))
    np.testing.assert_allclose(ga.asnumpy(), fd_a, rtol=1e-3, atol=1e-3)
    np.testing.assert_allclose(gb.asnumpy(), fd_b, atol=1e-6)


def test_roialign_gives_rois_no_gradient_in_both_modes():
    image = Tensor(np.random.RandomState(0).rand(1, 1, 4, 4).astype(np.float32))
    rois = Tensor(np.array([[0, 0.2, 0.2, 2.5, 2.5]], np.float32))
    op = ops.ROIAlign(2, 2, 1.0, 2)

    class Net(nn.Cell):
        def construct(self, a, r):
            return op(a, r).sum()

    results = []
    for m in (kiln.PYNATIVE_MODE, kiln.GRAPH_MODE):
        kiln.set_context(mode=m)
        results.append([g.asnumpy() for g in kiln.grad(Net(), grad_position=(0, 1))(image, rois)])
    kiln.set_context(mode=kiln.PYNATIVE_MODE)
    (img_py, rois_py), (img_graph, rois_graph) = results
    np.testing.assert_allclose(img_graph, img_py, rtol=1e-6)
    assert np.abs(img_py).sum() > 0
    np.testing.assert_array_equal(rois_py, np.zeros_like(rois_py))  # MindSpore 2.10's bprop: zeros for rois
    np.testing.assert_array_equal(rois_graph, np.zeros_like(rois_graph))


# -- a pyfunc's host effect -------------------------------------------------------------------------


def _counting():
    seen: list[float] = []

    def fn(a):
        seen.append(float(a.sum()))
        return a * 2

    return seen, ops.PyFunc(fn, [kiln.float32], [(3,)], [kiln.float32], [(3,)])


class _Calls(nn.Cell):
    def __init__(self, op) -> None:
        super().__init__()
        self.op = op

    def construct(self, x):
        a = self.op(x)[0]
        b = self.op(x)[0]  # the same input again: not merged with the call above
        self.op(x + 1)  # its result unused: still runs
        return a + b


@pytest.mark.parametrize("how", ["lazy", "op by op", "graph", "jit"])
def test_a_pyfunc_runs_at_each_call_in_order(how, monkeypatch):
    seen, op = _counting()
    monkeypatch.setattr(dispatch, "LAZY", how == "lazy")
    if how == "graph":
        kiln.set_context(mode=kiln.GRAPH_MODE)
    run = kiln.jit(_Calls(op).construct) if how == "jit" else _Calls(op)
    try:
        for _ in range(2):
            out = run(Tensor(X)).asnumpy()
    finally:
        kiln.set_context(mode=kiln.PYNATIVE_MODE)
    np.testing.assert_allclose(out, 4 * X)
    # PyNative's count and order (and MindSpore 2.10's in both modes): three calls per step, in program order
    assert seen == [float(X.sum()), float(X.sum()), float(X.sum() + 3)] * 2


def test_a_pyfunc_under_vmap_in_a_graph_runs_once_per_row_in_order():
    seen: list[list[float]] = []

    def fn(a):
        seen.append(a.tolist())
        return a * 2

    op = ops.Custom(fn, out_shape=lambda s: s, out_dtype=lambda d: d, func_type="pyfunc")
    rows = np.arange(6, dtype=np.float32).reshape(2, 3)
    out = kiln.jit(lambda x: ops.vmap(lambda r: op(r))(x))(Tensor(rows))
    np.testing.assert_allclose(out.asnumpy(), rows * 2)
    assert seen == rows.tolist()


def test_batch_norm_running_statistics_get_zero_gradients_and_class_weights_do_not(mode):
    """MindSpore 2.10: BatchNorm's bprop gives zeros for the running mean and variance (declared nondiff), while a
    class-weighted cross-entropy differentiates its weight (it is not nondiff): checked with its CPU build."""
    rng = np.random.RandomState(0)
    x = Tensor(rng.randn(3, 2, 2, 2).astype(np.float32))
    w, b = Tensor(np.array([1.2, 0.8], np.float32)), Tensor(np.array([0.1, 0.3], np.float32))
    stats = (np.array([0.1, -0.2], np.float32), np.array([1.5, 0.7], np.float32))

    def bn(m, v):
        return (ops.batch_norm(x, m, v, w, b, training=False) ** 2).sum()

    for g in kiln.grad(bn, grad_position=(0, 1))(*(Tensor(s) for s in stats)):
        np.testing.assert_array_equal(g.asnumpy(), np.zeros(2, np.float32))

    logits = rng.randn(3, 4).astype(np.float32)
    target = rng.rand(3, 4).astype(np.float32)
    weight = np.array([0.5, 1.0, 1.5, 2.0], np.float32)

    def ce(cw):
        return ops.cross_entropy(Tensor(logits), Tensor(target), cw, label_smoothing=0.3)

    def ce_numpy(cw: np.ndarray) -> float:
        logp = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
        smoothed = target * 0.7 + 0.3 / 4
        return float(-(smoothed * logp * cw).sum(-1).mean())

    grad = kiln.grad(ce)(Tensor(weight)).asnumpy()
    fd = _finite_difference(ce_numpy, weight.astype(np.float64))
    assert np.abs(fd).sum() > 0
    np.testing.assert_allclose(grad, fd, rtol=1e-3, atol=1e-4)
