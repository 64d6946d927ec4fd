"""`mint.nn` layers against NumPy forwards written from their definitions, and their constructor arguments."""

from __future__ import annotations

import numpy as np
import pytest

import kiln as ms
from kiln import mint
from kiln.mint import nn
from tests.mint.test_mint_table import _adaptive, _conv, _conv_transpose2d, _fold, _pool, _unfold

RNG = np.random.default_rng(7)


def _t(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def _close(got, want, tol=1e-5):
    np.testing.assert_allclose(got.asnumpy(), want, rtol=tol, atol=tol)


def test_linear():
    layer = nn.Linear(3, 4)
    x = _t(2, 5, 3)
    assert tuple(layer.weight.shape) == (4, 3) and tuple(layer.bias.shape) == (4,)
    _close(layer(ms.Tensor(x)), x @ layer.weight.asnumpy().T + layer.bias.asnumpy())
    assert nn.Linear(3, 4, bias=False).bias is None


@pytest.mark.parametrize(
    ("cls", "shape", "kwargs"),
    [
        (nn.Conv1d, (2, 3, 9), {"stride": 2, "padding": 1}),
        (nn.Conv2d, (2, 4, 6, 5), {"padding": (1, 2), "dilation": 1, "groups": 2}),
        (nn.Conv2d, (1, 4, 6, 6), {"padding": "same", "dilation": 2}),
        (nn.Conv3d, (1, 2, 4, 5, 4), {"padding": 1, "stride": (1, 2, 1)}),
    ],
)
def test_conv(cls, shape, kwargs):
    layer = cls(shape[1], 6, 3, **kwargs)
    fan_in = shape[1] // kwargs.get("groups", 1) * 3 ** (len(shape) - 2)
    w, b = layer.weight.asnumpy(), layer.bias.asnumpy()
    assert w.shape == (6, shape[1] // kwargs.get("groups", 1)) + (3,) * (len(shape) - 2)
    assert np.abs(w).max() <= 1 / np.sqrt(fan_in) + 1e-6  # kaiming_uniform(a=sqrt(5)) bound
    x = _t(*shape)
    want = _conv(x, w, b, kwargs.get("stride", 1), kwargs.get("padding", 0), kwargs.get("dilation", 1),
                 kwargs.get("groups", 1))  # fmt: skip
    _close(layer(ms.Tensor(x)), want, 1e-4)


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_conv2d_padding_mode(mode):
    layer = nn.Conv2d(2, 3, 3, padding=1, padding_mode=mode)
    x = _t(1, 2, 5, 4)
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), mode={"reflect": "reflect", "replicate": "edge",
                                                          "circular": "wrap"}[mode])  # fmt: skip
    _close(layer(ms.Tensor(x)), _conv(xp, layer.weight.asnumpy(), layer.bias.asnumpy()), 1e-4)


def test_conv_transpose2d():
    layer = nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1, output_padding=1)
    assert tuple(layer.weight.shape) == (2, 3, 3, 3)
    x = _t(2, 2, 3, 4)
    want = _conv_transpose2d(x, layer.weight.asnumpy(), layer.bias.asnumpy(), 2, 1, 1)
    _close(layer(ms.Tensor(x)), want, 1e-4)


def test_batchnorm_train_and_eval():
    bn = nn.BatchNorm2d(3, momentum=0.2)
    bn.set_train(True)
    x = _t(4, 3, 2, 2) * 2 + 1
    out = bn(ms.Tensor(x))
    mean, var = x.mean((0, 2, 3)), x.var((0, 2, 3))
    _close(out, (x - mean[None, :, None, None]) / np.sqrt(var[None, :, None, None] + 1e-5), 1e-4)
    n = x.size / 3
    _close(bn.running_mean, 0.2 * mean, 1e-5)
    _close(bn.running_var, 0.8 + 0.2 * var * n / (n - 1), 1e-5)
    bn.set_train(False)
    rm, rv = bn.running_mean.asnumpy(), bn.running_var.asnumpy()
    _close(bn(ms.Tensor(x)), (x - rm[None, :, None, None]) / np.sqrt(rv[None, :, None, None] + 1e-5), 1e-4)
    with pytest.raises(ValueError):
        bn(ms.Tensor(_t(4, 3)))
    assert nn.BatchNorm1d(3, affine=False).weight is None
    bn1 = nn.BatchNorm1d(5, track_running_stats=False)
    bn1.set_train(False)
    y = _t(6, 5)
    _close(bn1(ms.Tensor(y)), (y - y.mean(0)) / np.sqrt(y.var(0) + 1e-5), 1e-4)


def test_group_and_layer_norm():
    x = _t(2, 4, 3)
    gn = nn.GroupNorm(2, 4)
    g = x.reshape(2, 2, -1)
    want = ((g - g.mean(-1, keepdims=True)) / np.sqrt(g.var(-1, keepdims=True) + 1e-5)).reshape(x.shape)
    _close(gn(ms.Tensor(x)), want, 1e-4)
    ln = nn.LayerNorm((4, 3), eps=1e-6)
    m = x.mean((1, 2), keepdims=True)
    _close(ln(ms.Tensor(x)), (x - m) / np.sqrt(x.var((1, 2), keepdims=True) + 1e-6), 1e-4)
    with pytest.raises(ValueError):
        nn.GroupNorm(3, 4)


def test_embedding_prelu_identity():
    emb = nn.Embedding(5, 3, padding_idx=1)
    assert np.all(emb.weight.asnumpy()[1] == 0)
    idx = np.array([[0, 1], [4, 2]])
    _close(emb(ms.Tensor(idx)), emb.weight.asnumpy()[idx])
    pr = nn.PReLU(3, init=0.1)
    x = _t(2, 3, 4)
    _close(pr(ms.Tensor(x)), np.where(x >= 0, x, 0.1 * x))
    assert nn.Identity(1, k=2)(ms.Tensor(x)).shape == x.shape


ACTIVATIONS = [
    (nn.ReLU(), lambda x: np.maximum(x, 0)),
    (nn.ReLU6(), lambda x: np.clip(x, 0, 6)),
    (nn.Sigmoid(), lambda x: 1 / (1 + np.exp(-x))),
    (nn.Tanh(), np.tanh),
    (nn.SiLU(), lambda x: x / (1 + np.exp(-x))),
    (nn.ELU(alpha=0.5), lambda x: np.where(x > 0, x, 0.5 * np.expm1(x))),
    (nn.Hardshrink(0.3), lambda x: np.where(np.abs(x) > 0.3, x, 0)),
    (nn.Softshrink(), lambda x: np.sign(x) * np.maximum(np.abs(x) - 0.5, 0)),
    (nn.Hardsigmoid(), lambda x: np.clip(x / 6 + 0.5, 0, 1)),
    (nn.Hardswish(), lambda x: x * np.clip(x + 3, 0, 6) / 6),
    (nn.Hardtanh(-0.5, 0.7), lambda x: np.clip(x, -0.5, 0.7)),
    (nn.LogSigmoid(), lambda x: -np.logaddexp(0, -x)),
    (nn.Mish(), lambda x: x * np.tanh(np.log1p(np.exp(x)))),
    (nn.SELU(), lambda x: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * np.expm1(x))),
    (nn.Softmax(dim=1), lambda x: np.exp(x) / np.exp(x).sum(1, keepdims=True)),
    (nn.LogSoftmax(dim=0), lambda x: x - np.log(np.exp(x).sum(0, keepdims=True))),
    (nn.Threshold(0.2, -1.0), lambda x: np.where(x > 0.2, x, -1.0)),
    (nn.GLU(dim=1), lambda x: x[:, :2] / (1 + np.exp(-x[:, 2:]))),
    (nn.GELU(), lambda x: x * 0.5 * (1 + np.vectorize(__import__("math").erf)(x / np.sqrt(2)))),
]


@pytest.mark.parametrize(("layer", "ref"), ACTIVATIONS, ids=[type(a[0]).__name__ for a in ACTIVATIONS])
def test_activation(layer, ref):
    x = _t(3, 4)
    _close(layer(ms.Tensor(x)), ref(x.astype(np.float64)), 1e-5)


def test_pooling_and_shape_layers():
    x = _t(2, 3, 6, 7)
    _close(nn.AvgPool2d(2)(ms.Tensor(x)), _pool(x, 2, 2, 0, "avg"))
    _close(nn.AvgPool2d(3, 2, 1, count_include_pad=False)(ms.Tensor(x)), _pool(x, 3, 2, 1, "avg", False))
    _close(nn.MaxPool2d(3, 2, 1)(ms.Tensor(x)), _pool(x, 3, 2, 1, "max"))
    _close(nn.AvgPool1d(2)(ms.Tensor(x[0])), _pool(x[0], 2, 2, 0, "avg"))
    _close(nn.AvgPool3d(2)(ms.Tensor(x[None, :, :, :6, :6])), _pool(x[None, :, :, :6, :6], 2, 2, 0, "avg"))
    _close(nn.AdaptiveAvgPool2d((2, 3))(ms.Tensor(x)), _adaptive(x, (2, 3), "avg"))
    _close(nn.AdaptiveMaxPool2d(3)(ms.Tensor(x)), _adaptive(x, (3, 3), "max"))
    _close(nn.AdaptiveAvgPool1d(4)(ms.Tensor(x[0])), _adaptive(x[0], (4,), "avg"))
    _close(nn.AdaptiveMaxPool1d(2)(ms.Tensor(x[0])), _adaptive(x[0], (2,), "max"))
    _close(nn.AdaptiveAvgPool3d(2)(ms.Tensor(x[None])), _adaptive(x[None], (2, 2, 2), "avg"))
    pooled, idx = nn.MaxPool2d(2, return_indices=True)(ms.Tensor(x[:, :, :6, :6]))
    up = nn.MaxUnpool2d(2)(pooled, idx).asnumpy()
    assert up.shape == (2, 3, 6, 6) and np.allclose(np.sort(up[up != 0]), np.sort(pooled.asnumpy().ravel()))
    _close(nn.Flatten()(ms.Tensor(x)), x.reshape(2, -1))
    _close(nn.Flatten(0, 1)(ms.Tensor(x)), x.reshape(6, 6, 7))
    _close(nn.Unfold(2, padding=1, stride=2)(ms.Tensor(x)), _unfold(x, 2, 1, 1, 2))
    cols = _t(2, 12, 20)
    _close(nn.Fold((5, 6), 2)(ms.Tensor(cols)), _fold(cols, (5, 6), 2))
    ps = _t(1, 8, 2, 3)
    want = ps.reshape(1, 2, 2, 2, 2, 3).transpose(0, 1, 4, 2, 5, 3).reshape(1, 2, 4, 6)
    _close(nn.PixelShuffle(2)(ms.Tensor(ps)), want)


def test_padding_layers():
    x = _t(1, 2, 3, 4)
    _close(nn.ZeroPad2d((1, 2, 0, 1))(ms.Tensor(x)), np.pad(x, ((0, 0), (0, 0), (0, 1), (1, 2))))
    _close(nn.ConstantPad1d(2, 3.5)(ms.Tensor(x)), np.pad(x, ((0, 0), (0, 0), (0, 0), (2, 2)), constant_values=3.5))
    _close(nn.ReflectionPad2d(1)(ms.Tensor(x)), np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), mode="reflect"))
    _close(nn.ReplicationPad1d((2, 1))(ms.Tensor(x)), np.pad(x, ((0, 0), (0, 0), (0, 0), (2, 1)), mode="edge"))
    _close(nn.ZeroPad3d(1)(ms.Tensor(x)), np.pad(x, ((0, 0), (1, 1), (1, 1), (1, 1))))
    _close(nn.ZeroPad1d((0, 1))(ms.Tensor(x)), np.pad(x, ((0, 0), (0, 0), (0, 0), (0, 1))))
    with pytest.raises(ValueError):
        nn.ZeroPad2d((1, 2, 3))


def test_losses():
    x, y = _t(4, 5), _t(4, 5)
    _close(nn.MSELoss()(ms.Tensor(x), ms.Tensor(y)), ((x - y) ** 2).mean())
    _close(nn.L1Loss(reduction="sum")(ms.Tensor(x), ms.Tensor(y)), np.abs(x - y).sum(), 1e-4)
    d = np.abs(x - y)
    _close(nn.SmoothL1Loss(beta=0.5)(ms.Tensor(x), ms.Tensor(y)), np.where(d < 0.5, d**2, d - 0.25).mean())
    t = np.array([0, 3, 4, 1])
    logp = x - np.log(np.exp(x).sum(1, keepdims=True))
    _close(nn.CrossEntropyLoss()(ms.Tensor(x), ms.Tensor(t)), -logp[np.arange(4), t].mean())
    _close(nn.NLLLoss(reduction="sum")(ms.Tensor(logp), ms.Tensor(t)), -logp[np.arange(4), t].sum(), 1e-4)
    p = 1 / (1 + np.exp(-x))
    tgt = (y > 0).astype(np.float32)
    bce = -(tgt * np.log(p) + (1 - tgt) * np.log(1 - p))
    _close(nn.BCELoss()(ms.Tensor(p), ms.Tensor(tgt)), bce.mean(), 1e-4)
    _close(nn.BCEWithLogitsLoss(reduction="none")(ms.Tensor(x), ms.Tensor(tgt)), bce, 1e-4)
    q = np.abs(y) / np.abs(y).sum(1, keepdims=True)
    _close(nn.KLDivLoss(reduction="batchmean")(ms.Tensor(logp), ms.Tensor(q)), (q * (np.log(q) - logp)).sum() / 4)
    s = np.sign(y)
    _close(nn.SoftMarginLoss()(ms.Tensor(x), ms.Tensor(s)), np.log1p(np.exp(-s * x)).mean())
    cos = (x * y).sum(1) / np.sqrt((x * x).sum(1) * (y * y).sum(1))
    lbl = np.array([1, -1, 1, -1], np.float32)
    want = np.where(lbl > 0, 1 - cos, np.maximum(cos, 0)).mean()
    _close(nn.CosineEmbeddingLoss()(ms.Tensor(x), ms.Tensor(y), ms.Tensor(lbl)), want)


def test_dropout_and_upsampling():
    x = np.ones((2, 3, 8, 8), np.float32)
    drop = nn.Dropout(0.5)
    drop.set_train(True)
    out = drop(ms.Tensor(x)).asnumpy()
    assert set(np.unique(out)) <= {0.0, 2.0} and 0.2 < (out == 0).mean() < 0.8
    drop.set_train(False)
    _close(drop(ms.Tensor(x)), x)
    d2 = nn.Dropout2d(0.5)
    d2.set_train(True)
    o2 = d2(ms.Tensor(x)).asnumpy()
    assert all(len(np.unique(o2[n, c])) == 1 for n in range(2) for c in range(3))
    y = _t(1, 2, 2, 3)
    _close(nn.UpsamplingNearest2d(scale_factor=2)(ms.Tensor(y)), y.repeat(2, 2).repeat(2, 3))
    _close(nn.Upsample(size=(4, 6))(ms.Tensor(y)), y.repeat(2, 2).repeat(2, 3))
    bil = nn.UpsamplingBilinear2d(size=(3, 5))(ms.Tensor(y)).asnumpy()
    assert bil.shape == (1, 2, 3, 5)
    np.testing.assert_allclose(bil[..., 0, 0], y[..., 0, 0], rtol=1e-6)  # align_corners: corners kept
    np.testing.assert_allclose(bil[..., -1, -1], y[..., -1, -1], rtol=1e-6)


def test_optimizers_update_like_torch_sgd():
    w = ms.Parameter(ms.Tensor(np.array([1.0, -2.0], np.float32)), name="w")
    opt = mint.optim.SGD([w], lr=0.1, momentum=0.9)
    g = ms.Tensor(np.array([0.5, 1.0], np.float32))
    opt((g,))
    opt((g,))
    # PyTorch's SGD with momentum: buf = g, then buf = 0.9 buf + g = 1.9 g; each step w -= lr * buf
    np.testing.assert_allclose(w.asnumpy(), np.array([1.0, -2.0]) - 0.1 * (1 + 1.9) * np.array([0.5, 1.0]), rtol=1e-6)
    for cls in (mint.optim.Adam, mint.optim.AdamW, mint.optim.FusedAdamW):
        p = ms.Parameter(ms.Tensor(np.array([1.0, -2.0], np.float32)), name="p")
        o = cls([p], lr=0.01)
        o((g,))
        # Adam's first step moves every coordinate by lr * sign(g) (plus AdamW's decay lr * wd * p)
        wd = 0.01 if cls is not mint.optim.Adam else 0.0
        want = np.array([1.0, -2.0]) * (1 - 0.01 * wd) - 0.01 * np.sign([0.5, 1.0])
        np.testing.assert_allclose(p.asnumpy(), want, rtol=1e-5)


def test_inplace_functions_write_their_input():
    F = mint.nn.functional
    x = _t(3, 4)
    for fn, ref in ((F.relu_, lambda a: np.maximum(a, 0)), (F.sigmoid_, lambda a: 1 / (1 + np.exp(-a))),
                    (lambda a: F.elu_(a, 0.5), lambda a: np.where(a > 0, a, 0.5 * np.expm1(a))),
                    (lambda a: F.hardtanh_(a, -0.5, 0.5), lambda a: np.clip(a, -0.5, 0.5)),
                    (lambda a: F.threshold_(a, 0.1, 9.0), lambda a: np.where(a > 0.1, a, 9.0))):  # fmt: skip
        t = ms.Tensor(x.copy())
        out = fn(t)
        assert out is t
        _close(t, ref(x))
        p = ms.Parameter(ms.Tensor(x.copy()), name="p")
        fn(p)
        _close(p, ref(x))


def test_more_layers_and_aliases():
    x = _t(2, 3, 2, 3, 4)
    bn = nn.BatchNorm3d(3)
    bn.set_train(True)
    m, v = x.mean((0, 2, 3, 4), keepdims=True), x.var((0, 2, 3, 4), keepdims=True)
    _close(bn(ms.Tensor(x)), (x - m) / np.sqrt(v + 1e-5), 1e-4)
    sbn = nn.SyncBatchNorm(3)
    sbn.set_train(True)
    _close(sbn(ms.Tensor(x[:, :, 0])), (x[:, :, 0] - x[:, :, 0].mean((0, 2, 3), keepdims=True))
           / np.sqrt(x[:, :, 0].var((0, 2, 3), keepdims=True) + 1e-5), 1e-4)  # fmt: skip
    y = x[0, 0]
    _close(nn.ConstantPad2d((1, 0, 2, 1), -1.0)(ms.Tensor(y)),
           np.pad(y, ((0, 0), (2, 1), (1, 0)), constant_values=-1.0))  # fmt: skip
    _close(nn.ConstantPad3d(1, 2.0)(ms.Tensor(y)), np.pad(y, ((1, 1), (1, 1), (1, 1)), constant_values=2.0))
    _close(nn.ReflectionPad1d(1)(ms.Tensor(y)), np.pad(y, ((0, 0), (0, 0), (1, 1)), mode="reflect"))
    _close(nn.ReflectionPad3d(1)(ms.Tensor(x)), np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1), (1, 1)), mode="reflect"))
    _close(nn.ReplicationPad2d((1, 0, 0, 2))(ms.Tensor(y)), np.pad(y, ((0, 0), (0, 2), (1, 0)), mode="edge"))
    _close(nn.ReplicationPad3d(1)(ms.Tensor(x)), np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1), (1, 1)), mode="edge"))
    u = RNG.uniform(-0.9, 0.9, (5,)).astype(np.float32)
    for name, ref in (("arccos", np.arccos), ("arcsin", np.arcsin), ("arctan", np.arctan), ("arcsinh", np.arcsinh),
                      ("arctanh", np.arctanh)):  # fmt: skip
        _close(getattr(mint, name)(ms.Tensor(u)), ref(u))
    _close(mint.arccosh(ms.Tensor(u + 2)), np.arccosh(u + 2))
    _close(mint.real(ms.Tensor(u)), u)
    _close(mint.imag(mint.polar(ms.Tensor(np.abs(u)), ms.Tensor(u))), np.abs(u) * np.sin(u))
    _close(mint.npu_gelu(ms.Tensor(u)), mint.nn.functional.gelu(ms.Tensor(u)).asnumpy())


def test_glu_on_empty_and_odd_dimension():
    x = ms.Tensor(np.zeros((2, 0, 4), np.float32))
    assert nn.GLU(1)(x).shape == (2, 0, 4)
    assert ms.grad(lambda t: nn.GLU(2)(t).sum())(x).shape == (2, 0, 4)
    with pytest.raises(ValueError):
        nn.GLU(0)(ms.Tensor(np.zeros((3, 2), np.float32)))


def test_random_functions_shapes_dtypes_ranges():
    ms.set_seed(3)
    r = mint.rand(200, 3).asnumpy()
    assert r.shape == (200, 3) and r.dtype == np.float32 and 0 <= r.min() and r.max() < 1 and 0.4 < r.mean() < 0.6
    n = mint.randn((400,)).asnumpy()
    assert n.dtype == np.float32 and abs(n.mean()) < 0.2 and 0.8 < n.std() < 1.2
    i = mint.randint(2, 5, (300,)).asnumpy()
    assert i.dtype == np.int64 and set(np.unique(i)) == {2, 3, 4}
    assert mint.randint(5, (4,)).asnumpy().max() < 5
    p = mint.randperm(7).asnumpy()
    assert p.dtype == np.int64 and sorted(p) == list(range(7))
    base = ms.Tensor(np.zeros((3, 4), np.float32))
    assert mint.rand_like(base).shape == (3, 4) and mint.randn_like(base).dtype == ms.float32
    assert mint.randint_like(base, 3).asnumpy().max() < 3
    b = mint.bernoulli(ms.Tensor(np.array([0.0, 1.0] * 50, np.float32))).asnumpy()
    np.testing.assert_array_equal(b, np.array([0.0, 1.0] * 50, np.float32))
    draws = mint.multinomial(ms.Tensor(np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]], np.float32)), 1).asnumpy()
    np.testing.assert_array_equal(draws, [[1], [0]])
    no_repeat = mint.multinomial(ms.Tensor(np.ones((2, 5), np.float32)), 5).asnumpy()
    assert all(sorted(row) == list(range(5)) for row in no_repeat)  # replacement=False by default
    nm = mint.normal(ms.Tensor(np.full(500, 3.0, np.float32)), ms.Tensor(np.full(500, 0.5, np.float32))).asnumpy()
    assert abs(nm.mean() - 3) < 0.15 and 0.4 < nm.std() < 0.6
    assert mint.normal(1.0, 2.0, (2, 3)).shape == (2, 3)


def test_functional_module_shows_only_its_public_names():
    """`mint.nn.functional`'s top level holds its `__all__` and nothing of Kiln's internals (helpers, tables)."""
    shown = {name for name in vars(nn.functional) if not name.startswith("_")} - set(nn.functional.__all__)
    assert shown <= {"Tensor", "annotations"}, sorted(shown)
