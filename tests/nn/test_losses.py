"""Loss cells against NumPy formulas, LossBase's protocol, and error messages."""

from __future__ import annotations

import numpy as np
import pytest

import kiln
from kiln import Tensor, ops
from kiln.nn.loss import (
    BCELoss,
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    KLDivLoss,
    L1Loss,
    LossBase,
    MSELoss,
    NLLLoss,
    SmoothL1Loss,
    SoftmaxCrossEntropyWithLogits,
)

RNG = np.random.default_rng(1)


def rand(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def close(a, b, tol=1e-5):
    np.testing.assert_allclose(a.asnumpy(), b, rtol=tol, atol=tol)


def log_softmax(x, axis=-1):
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


def reduce(x, reduction):
    return {"mean": np.mean, "sum": np.sum, "none": lambda v: v}[reduction](x)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_regression_losses(reduction):
    x, y = rand(3, 4), rand(3, 4)
    close(MSELoss(reduction)(Tensor(x), Tensor(y)), reduce((x - y) ** 2, reduction))
    close(L1Loss(reduction)(Tensor(x), Tensor(y)), reduce(np.abs(x - y), reduction))
    d = np.abs(x - y)
    sl1 = np.where(d < 0.5, 0.5 * d**2 / 0.5, d - 0.25)
    close(SmoothL1Loss(0.5, reduction)(Tensor(x), Tensor(y)), reduce(sl1, reduction))


def test_mse_broadcasts_and_smooth_l1_defaults():
    x, y = rand(3, 4), rand(1, 4)
    close(MSELoss("none")(Tensor(x), Tensor(y)), (x - y) ** 2)
    d = np.abs(x - rand(3, 4))
    assert SmoothL1Loss()(Tensor(x), Tensor(x)).shape == (3, 4)  # reduction 'none' by default
    close(SmoothL1Loss(0.0, "sum")(Tensor(d), Tensor(np.zeros_like(d))), d.sum())  # beta 0: L1


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_loss_with_weight_ignore_and_smoothing(reduction):
    n, c, eps = 6, 4, 0.2
    x = rand(n, c)
    t = np.array([0, 3, -100, 1, 2, 3])
    w = np.array([0.5, 1.0, 2.0, 1.5], np.float32)
    loss = CrossEntropyLoss(Tensor(w), reduction=reduction, label_smoothing=eps)(Tensor(x), Tensor(t))
    lp = log_softmax(x.astype(np.float64))
    valid = t != -100
    tc = np.where(valid, t, 0)
    nll = -lp[np.arange(n), tc] * w[tc] * valid
    smooth = -(lp * w).sum(1) / c * valid
    per = (1 - eps) * nll + eps * smooth
    expected = {"none": per, "sum": per.sum(), "mean": per.sum() / (w[tc] * valid).sum()}[reduction]
    close(loss, expected)


def test_cross_entropy_probability_targets_and_spatial_inputs():
    x = rand(3, 4)
    p = RNG.random((3, 4)).astype(np.float32)
    p /= p.sum(1, keepdims=True)
    close(CrossEntropyLoss()(Tensor(x), Tensor(p)), -(log_softmax(x) * p).sum(1).mean())
    x3, t3 = rand(2, 4, 3), RNG.integers(0, 4, (2, 3))
    ref = -np.take_along_axis(log_softmax(x3, 1), t3[:, None], 1).mean()
    close(CrossEntropyLoss()(Tensor(x3), Tensor(t3)), ref)


def test_cross_entropy_gradient_is_softmax_minus_onehot():
    x, t = rand(4, 3), np.array([0, 2, 1, 1])
    g = kiln.grad(lambda x: CrossEntropyLoss()(x, Tensor(t)))(Tensor(x))
    close(g, (np.exp(log_softmax(x)) - np.eye(3)[t]) / 4)


def test_nll_loss():
    lp = log_softmax(rand(5, 3))
    t = np.array([0, 1, 2, 1, 0])
    w = np.array([1.0, 2.0, 0.5], np.float32)
    close(NLLLoss(Tensor(w))(Tensor(lp), Tensor(t)), (-lp[np.arange(5), t] * w[t]).sum() / w[t].sum())
    close(NLLLoss(reduction="none", ignore_index=1)(Tensor(lp), Tensor(t)), -lp[np.arange(5), t] * (t != 1))
    loss, total = ops.NLLLoss()(Tensor(lp), Tensor(t), Tensor(w))
    close(total, w[t].sum())


@pytest.mark.parametrize(("sparse", "reduction"), [(False, "none"), (True, "none"), (True, "mean"), (False, "sum")])
def test_softmax_cross_entropy_with_logits(sparse, reduction):
    x = rand(4, 5)
    t = np.array([1, 0, 4, 2])
    labels = Tensor(t.astype(np.int32)) if sparse else Tensor(np.eye(5, dtype=np.float32)[t])
    per = -log_softmax(x)[np.arange(4), t]
    close(SoftmaxCrossEntropyWithLogits(sparse, reduction)(Tensor(x), labels), reduce(per, reduction))


def test_binary_cross_entropy_losses():
    x, y = rand(3, 4), (RNG.random((3, 4)) > 0.5).astype(np.float32)
    w, pw = RNG.random((3, 4)).astype(np.float32), RNG.random(4).astype(np.float32) + 0.5
    p = 1 / (1 + np.exp(-x.astype(np.float64)))
    bce = -(y * np.log(p) + (1 - y) * np.log(1 - p))
    close(BCELoss()(Tensor(p.astype(np.float32)), Tensor(y)), bce.mean(), 1e-5)
    close(BCELoss(Tensor(w), "sum")(Tensor(p.astype(np.float32)), Tensor(y)), (bce * w).sum(), 1e-4)
    weighted = -(pw * y * np.log(p) + (1 - y) * np.log(1 - p)) * w
    close(BCEWithLogitsLoss("mean", Tensor(w), Tensor(pw))(Tensor(x), Tensor(y)), weighted.mean(), 1e-5)
    close(BCEWithLogitsLoss("none")(Tensor(x), Tensor(y)), bce, 1e-5)
    # probabilities of exactly 0 and 1 give finite losses (the log is clamped)
    edge = BCELoss(reduction="none")(Tensor(np.array([0.0, 1.0], np.float32)), Tensor(np.array([1.0, 0.0], np.float32)))
    close(edge, [-np.log(1e-12)] * 2, 1e-4)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none", "batchmean"])
def test_kl_div_loss(reduction):
    x = log_softmax(rand(3, 4))
    y = RNG.random((3, 4)).astype(np.float32)
    y[0, 0] = 0.0  # zero targets contribute zero, not nan
    terms = np.where(y > 0, y * (np.log(np.where(y > 0, y, 1)) - x), -y * x)
    expected = terms.sum() / 3 if reduction == "batchmean" else reduce(terms, reduction)
    close(KLDivLoss(reduction)(Tensor(x), Tensor(y)), expected)


def test_loss_base_get_loss_and_subclass():
    x = np.abs(rand(2, 3))
    base = LossBase()
    assert base.get_axis(Tensor(x)) == (0, 1)
    close(base.get_loss(Tensor(x), Tensor(np.array([[1.0, 2.0, 3.0]], np.float32))), (x * [1, 2, 3]).mean())
    assert LossBase("none").get_loss(Tensor(x)).shape == (2, 3)
    close(LossBase("sum").get_loss(Tensor(x)), x.sum())

    class MAE(LossBase):
        def construct(self, logits, labels):
            return self.get_loss(ops.abs(logits - labels))

    y = rand(2, 3)
    close(MAE()(Tensor(x), Tensor(y)), np.abs(x - y).mean())


def test_loss_errors():
    with pytest.raises(ValueError, match=r"For 'MSELoss'.*'reduction'.*'foo'"):
        MSELoss("foo")
    with pytest.raises(ValueError, match=r"For 'KLDivLoss'.*'reduction'"):
        KLDivLoss("avg")
    with pytest.raises(ValueError, match=r"For 'CrossEntropy'.*target.*\[5\].*\[3\]"):
        CrossEntropyLoss()(Tensor(rand(5, 4)), Tensor(np.array([0, 1, 2])))
    with pytest.raises(ValueError, match=r"For 'MSELoss'.*\[5, 4\].*\[2, 4\]"):
        MSELoss()(Tensor(rand(5, 4)), Tensor(rand(2, 4)))
    with pytest.raises(ValueError, match=r"For 'CrossEntropy'.*'weight'.*\[4\]"):
        CrossEntropyLoss(Tensor(np.ones(3, np.float32)))(Tensor(rand(5, 4)), Tensor(np.zeros(5, np.int64)))
    with pytest.raises(TypeError, match=r"For 'BCEWithLogitsLoss'.*'weight'"):
        BCEWithLogitsLoss(weight=[1.0, 2.0])
    with pytest.raises(ValueError, match=r"For 'SmoothL1Loss'.*same shape"):
        SmoothL1Loss()(Tensor(rand(3, 4)), Tensor(rand(1, 4)))


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_gaussian_nll_loss_full_must_be_a_bool(mode):
    # MindSpore 2.10's ops.gaussian_nll_loss refuses full=1 (TypeError, its own tests assert it in both modes);
    # Kiln read it as True. full=True still adds 0.5 log(2 pi) to the NumPy value.
    x, t, v = rand(4, 2), rand(4, 2), np.ones((4, 1), np.float32)
    kiln.set_context(mode=kiln.GRAPH_MODE if mode == "graph" else kiln.PYNATIVE_MODE)
    try:
        with pytest.raises(TypeError, match="'full' must be a bool"):
            ops.gaussian_nll_loss(Tensor(x), Tensor(t), Tensor(v), full=1)
        want = (0.5 * (np.log(v) + (x - t) ** 2 / v) + 0.5 * np.log(2 * np.pi)).mean()
        close(ops.gaussian_nll_loss(Tensor(x), Tensor(t), Tensor(v), full=True), want)
    finally:
        kiln.set_context(mode=kiln.PYNATIVE_MODE)


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_softmax_cross_entropy_with_logits_gradient_is_mindspores_backprop(mode):
    # MindSpore's rule: d/dlogits = (softmax - labels) * dloss, d/dlabels = 0; the true gradient only where a row's
    # labels sum to 1. The zoo's VIT (CrossEntropySmoothMixup) feeds rows summing to 1.033: the old autodiff gave
    # softmax * sum(labels) - labels and trained 1e-3 off MindSpore after one step.
    x = rand(3, 5)
    y = np.abs(rand(3, 5))  # rows summing to anything but 1
    loss = SoftmaxCrossEntropyWithLogits(sparse=False, reduction="mean")
    grad = kiln.grad(lambda a, b: loss(a, b), grad_position=(0, 1))
    if mode == "graph":
        grad = kiln.jit(grad)
    gx, gy = grad(Tensor(x), Tensor(y))
    softmax = np.exp(log_softmax(x))
    close(gx, (softmax - y) / 3)
    close(gy, np.zeros_like(y))
    # rows summing to 1: the rule is the true gradient (central differences of the NumPy loss)
    p = y / y.sum(1, keepdims=True)
    g = grad(Tensor(x), Tensor(p.astype(np.float32)))[0].asnumpy()
    eps, fd = 1e-3, np.zeros_like(x, np.float64)
    for i in np.ndindex(x.shape):
        hi, lo = x.astype(np.float64), x.astype(np.float64)
        hi[i] += eps
        lo[i] -= eps
        fd[i] = (-(p * log_softmax(hi)).sum(1).mean() + (p * log_softmax(lo)).sum(1).mean()) / (2 * eps)
    np.testing.assert_allclose(g, fd, rtol=1e-3, atol=1e-5)


class _ShardedCrossEntropy(kiln.nn.Cell):
    """The zoo's FCN8s/DeepLab loss pattern: it keeps nn.SoftmaxCrossEntropyWithLogits and sets shard strategies on
    its primitives through MindSpore's attribute names, then calls the cell."""

    def __init__(self, sparse):
        super().__init__()
        self.ce = SoftmaxCrossEntropyWithLogits(sparse=sparse, reduction="mean" if sparse else "none")
        self.ce.softmax_cross_entropy.shard(((1, 1), (1, 1)))
        self.ce.sparse_softmax_cross_entropy.shard(((1, 1), (1,)))

    def construct(self, logits, labels):
        return self.ce(logits, labels)


@pytest.mark.parametrize("mode", [kiln.PYNATIVE_MODE, kiln.GRAPH_MODE])
@pytest.mark.parametrize("sparse", [False, True])
def test_softmax_cross_entropy_keeps_its_primitives_under_mindspores_names(mode, sparse):
    # Kiln named them `_sce` and `_sparse_mean`: the zoo's FCN8s loss raised AttributeError in both modes
    kiln.set_context(mode=mode)
    try:
        x = rand(6, 5)
        classes = RNG.integers(0, 5, 6)
        labels = Tensor(classes.astype(np.int32)) if sparse else Tensor(np.eye(5, dtype=np.float32)[classes])
        per = -log_softmax(x)[np.arange(6), classes]
        close(_ShardedCrossEntropy(sparse)(Tensor(x), labels), per.mean() if sparse else per)
    finally:
        kiln.set_context(mode=kiln.PYNATIVE_MODE)
