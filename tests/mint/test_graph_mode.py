"""`mint` under `ms.jit` (AST capture) and GRAPH_MODE gives PyNative's numbers; each compiled call did compile (the
compile counter moved), so no comparison is PyNative against itself."""

from __future__ import annotations

import numpy as np
import pytest

import kiln as ms
from kiln import mint
from kiln._compiler.cache import memory as cache
from tests.mint.cases import CASES, make_inputs

_CASES = {c[0]: c for c in CASES}

# Static-shape cases (no data-dependent output sizes, no randomness) spread over the modules.
GRAPH_CASES = [
    "add_alpha", "div_floor", "sum_dims", "max_dim", "median_dim", "std_mean", "cumsum_int", "topk", "kthvalue",
    "squeeze_dims", "select_neg", "index_add", "diag_1d_offset", "triangular_solve", "conv_tbc",
    "batch_norm_gather_stats_with_counts", "F_softmax_none", "F_conv_transpose2d", "F_unfold", "F_fold_stride",
    "F_max_pool2d_idx", "F_one_hot", "F_grid_sample_out", "F_cross_entropy_smooth", "F_kl_div_log_target",
]  # fmt: skip


def _as_list(v):
    return list(v) if isinstance(v, (tuple, list)) else [v]


@pytest.mark.parametrize("name", GRAPH_CASES)
def test_jit_matches_pynative(name):
    _, call, specs = _CASES[name]
    xs = [ms.Tensor(a) for a in make_inputs(name, specs)]
    eager = _as_list(call(mint, *xs))
    before = cache.STATS["compiles"]
    compiled = _as_list(ms.jit(lambda *a: call(mint, *a))(*xs))
    assert cache.STATS["compiles"] > before, f"{name}: ms.jit compiled nothing"
    assert len(compiled) == len(eager)
    for k, (g, e) in enumerate(zip(compiled, eager)):
        g, e = g.asnumpy(), e.asnumpy()
        assert g.dtype == e.dtype and g.shape == e.shape, f"{name} output {k}"
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6, err_msg=f"{name} output {k}")


class _Net(ms.nn.Cell):
    """A small network made of mint layers and functions only."""

    def __init__(self):
        super().__init__()
        self.conv = mint.nn.Conv2d(2, 4, 3, padding=1, bias=False, padding_mode="reflect")  # BN follows
        self.bn = mint.nn.BatchNorm2d(4)
        self.act = mint.nn.GELU(approximate="tanh")
        self.pool = mint.nn.AdaptiveAvgPool2d((2, 2))
        self.flat = mint.nn.Flatten()
        self.fc = mint.nn.Linear(16, 3)
        self.loss = mint.nn.CrossEntropyLoss(label_smoothing=0.1)

    def construct(self, x, y):
        h = self.pool(self.act(self.bn(self.conv(x))))
        logits = self.fc(self.flat(h))
        return self.loss(logits, y) + mint.mean(mint.nn.functional.relu(logits)) * 0.1


def _train(mode, steps=2):
    ms.set_seed(0)
    net = _Net()
    net.set_train(True)
    opt = mint.optim.AdamW(net.trainable_params(), lr=0.01)
    grad_fn = ms.value_and_grad(net, None, opt.parameters)
    if mode == "graph":
        grad_fn = ms.jit(grad_fn)
    rng = np.random.default_rng(1)
    x = ms.Tensor(rng.standard_normal((4, 2, 5, 5)).astype(np.float32))
    y = ms.Tensor(rng.integers(0, 3, 4).astype(np.int64))
    losses = []
    before = cache.STATS["compiles"]
    for _ in range(steps):
        loss, grads = grad_fn(x, y)
        opt(grads)
        losses.append(float(loss.asnumpy()))
    compiles = cache.STATS["compiles"] - before
    assert compiles == 0 if mode == "pynative" else compiles >= 1, f"{mode}: {compiles} compiles"
    return losses, {p.name: p.asnumpy() for p in net.get_parameters()}


def test_training_graph_equals_pynative():
    eager_losses, eager_params = _train("pynative")
    graph_losses, graph_params = _train("graph")
    np.testing.assert_allclose(graph_losses, eager_losses, rtol=1e-5, atol=1e-6)
    assert eager_losses[-1] < eager_losses[0]
    assert eager_params.keys() == graph_params.keys()
    for k in eager_params:
        np.testing.assert_allclose(graph_params[k], eager_params[k], rtol=1e-4, atol=1e-5, err_msg=k)
    # the running statistics were updated in both modes
    assert not np.allclose(eager_params["bn.running_mean"], 0)


def test_graph_mode_context():
    net = _Net()
    net.set_train(False)
    rng = np.random.default_rng(2)
    x = ms.Tensor(rng.standard_normal((2, 2, 5, 5)).astype(np.float32))
    y = ms.Tensor(np.array([0, 2], np.int64))
    eager = net(x, y).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        before = cache.STATS["compiles"]
        graph = net(x, y).asnumpy()
        assert cache.STATS["compiles"] > before, "the Cell call in GRAPH_MODE compiled nothing"
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(graph, eager, rtol=1e-5, atol=1e-6)
