"""The image, math, combined, pooling, normalization and Jvp/Vjp Cells and MultilabelMarginLoss /
TripletMarginWithDistanceLoss: against MindSpore 2.10's outputs (layer_goldens_mindspore.json, from
make_layer_goldens_mindspore.py on the shared layer_cases.py), against NumPy where MindSpore has no CPU kernel,
gradient checks, parameter names."""

import json
import math
import os

import numpy as np
import pytest

import kiln as ms
from kiln import Parameter, Tensor, nn
from tests.nn import layer_cases

with open(os.path.join(os.path.dirname(__file__), "layer_goldens_mindspore.json")) as _f:
    GOLDENS = json.load(_f)["cases"]


def _check(got, want, path, rtol=2e-4, atol=2e-5):
    if isinstance(want, dict) and "shape" not in want:
        for k in want:
            _check(got[k], want[k], f"{path}.{k}", rtol, atol)
    elif isinstance(want, list):
        assert got == want, path
    else:
        got = np.asarray(got, np.float64)
        assert list(got.shape) == want["shape"], path
        np.testing.assert_allclose(got.reshape(-1), want["data"], rtol=rtol, atol=atol, err_msg=path)


@pytest.mark.parametrize("case", layer_cases.CASES, ids=[c.__name__ for c in layer_cases.CASES])
def test_against_mindspore(case):
    _check(case(ms, nn), GOLDENS[case.__name__], case.__name__)


def test_matrices_against_numpy():
    out = layer_cases.matrices(ms, nn)
    m = layer_cases._x(9, (2, 3, 3))
    a = m @ m.transpose(0, 2, 1) + np.eye(3)
    np.testing.assert_allclose(out["det"], np.linalg.det(a), rtol=1e-4)
    np.testing.assert_allclose(out["inv"], np.linalg.inv(a), rtol=1e-4, atol=1e-5)
    x = layer_cases._x(1, (2, 3))
    np.testing.assert_array_equal(nn.MatrixDiag()(Tensor(x)).asnumpy(), np.stack([np.diag(r) for r in x]))
    y = layer_cases._x(2, (2, 3, 4))
    np.testing.assert_array_equal(nn.MatrixDiagPart()(Tensor(y)).asnumpy(), np.diagonal(y, 0, -2, -1))


def test_multilabel_margin_against_numpy():
    out = layer_cases.multilabel_margin(ms, nn)
    x = layer_cases._x(15, (3, 4)).astype(np.float64)
    target = np.array([[3, 0, -1, 1], [0, 1, 2, 3], [1, -1, 0, 0]])
    per = []
    for xi, ti in zip(x, target):
        ts = []
        for t in ti:
            if t < 0:
                break
            ts.append(t)
        others = [i for i in range(4) if i not in ts]
        per.append(sum(max(0.0, 1 - (xi[j] - xi[i])) for j in ts for i in others) / 4)
    np.testing.assert_allclose(out["none"], per, rtol=1e-5)
    np.testing.assert_allclose(out["mean"], np.mean(per), rtol=1e-5)
    np.testing.assert_allclose(out["sum"], np.sum(per), rtol=1e-5)


def test_gradients():
    x = Tensor(layer_cases._x(3, (2, 4), 0.5, 3.0))
    y = Tensor(layer_cases._x(4, (2, 4), 0.5, 3.0))
    gx, gy = ms.grad(lambda a, b: nn.LBeta()(a, b).sum(), grad_position=(0, 1))(x, y)
    xs, ys = x.asnumpy().astype(np.float64), y.asnumpy().astype(np.float64)
    dig = np.vectorize(lambda v: (math.lgamma(v + 1e-5) - math.lgamma(v - 1e-5)) / 2e-5)
    np.testing.assert_allclose(gx.asnumpy(), dig(xs) - dig(xs + ys), rtol=1e-3, atol=1e-4)
    np.testing.assert_allclose(gy.asnumpy(), dig(ys) - dig(xs + ys), rtol=1e-3, atol=1e-4)
    a, b = layer_cases._x(0, (1, 1, 8, 8), 0, 1), layer_cases._x(1, (1, 1, 8, 8), 0, 1)
    net = nn.PSNR()
    g = ms.grad(lambda u: net(u, Tensor(b)).sum())(Tensor(a)).asnumpy()
    mse = np.mean((a - b) ** 2)
    np.testing.assert_allclose(g, -10 / np.log(10) * 2 * (a - b) / (a.size * mse), rtol=1e-3, atol=1e-5)
    ssim = nn.SSIM(filter_size=3)
    gs = ms.grad(lambda u: ssim(u, Tensor(b)).sum())(Tensor(a)).asnumpy()
    eps, i = 1e-2, (0, 0, 3, 4)
    up, dn = a.copy(), a.copy()
    up[i] += eps
    dn[i] -= eps
    num = (ssim(Tensor(up), Tensor(b)).asnumpy() - ssim(Tensor(dn), Tensor(b)).asnumpy()).sum() / (2 * eps)
    assert gs[i] == pytest.approx(num, rel=2e-2, abs=1e-3)


def test_rrelu_and_parameter_update():
    x = Tensor(np.array([-2.0, -1.0, 0.0, 3.0] * 50, np.float32))
    y = nn.RReLU(0.1, 0.3)(x).asnumpy()
    slopes = y[x.asnumpy() < 0] / x.asnumpy()[x.asnumpy() < 0]
    assert slopes.min() >= 0.1 - 1e-6 and slopes.max() <= 0.3 + 1e-6 and slopes.std() > 0
    np.testing.assert_array_equal(y[x.asnumpy() >= 0], x.asnumpy()[x.asnumpy() >= 0])
    with pytest.raises(ValueError, match="upper"):
        nn.RReLU(0.5, 0.1)
    p = Parameter(Tensor(np.zeros(3, np.float32)), name="p")
    nn.ParameterUpdate(p)(Tensor(np.ones(3, np.float32)))
    np.testing.assert_array_equal(p.asnumpy(), np.ones(3))


def test_checks_and_parameter_names():
    assert [q.name for q in nn.SSIM().get_parameters()] == ["conv.weight"]
    assert [q.name for q in nn.MSSSIM().get_parameters()][:2] == ["multi_convs_list.0.weight",
                                                                   "multi_convs_list.1.weight"]  # fmt: skip
    with pytest.raises(ValueError, match="4d"):
        nn.PSNR()(Tensor(np.zeros((2, 2, 2), np.float32)), Tensor(np.zeros((2, 2, 2), np.float32)))
    with pytest.raises(ValueError, match="central_fraction"):
        nn.CentralCrop(1.5)
    with pytest.raises(TypeError, match="margin"):
        nn.TripletMarginWithDistanceLoss(margin=1)
    with pytest.raises(TypeError, match="activation"):
        nn.DenseBnAct(2, 3, activation=3)


def test_fractional_max_pool_gradient_and_random_samples():
    x = Tensor(layer_cases._x(19, (2, 3, 9, 8)))
    s = Tensor(layer_cases._x(20, (2, 3, 2), 0, 1))
    pool = nn.FractionalMaxPool2d(3, output_size=(4, 5), return_indices=True, _random_samples=s)
    _, idx = pool(x)
    g = ms.grad(lambda u: pool(u)[0].sum())(x).asnumpy().reshape(2, 3, -1)
    want = np.zeros_like(g)
    for n in range(2):
        for c in range(3):
            np.add.at(want[n, c], idx.asnumpy()[n, c].reshape(-1), 1.0)
    np.testing.assert_array_equal(g, want)
    y = nn.FractionalMaxPool2d(2, output_ratio=0.5)(x)  # samples drawn
    assert y.shape == (2, 3, 4, 4)
    with pytest.raises(ValueError, match="needs the output size: pass output_size or output_ratio"):
        nn.FractionalMaxPool3d(2)


def test_clip_by_norm_axis_against_numpy():
    x = layer_cases._x(23, (2, 3, 4, 5))
    y = nn.ClipByNorm(axis=1)(Tensor(x), Tensor(np.float32(1.0))).asnumpy()
    l2 = np.sqrt((x.astype(np.float64) ** 2).sum(1, keepdims=True))
    np.testing.assert_allclose(y, x / np.maximum(l2, 1.0), rtol=1e-5, atol=1e-6)


def test_sync_batch_norm_jvp_vjp_matrix_set_diag():
    x = layer_cases._x(1, (2, 3, 4, 4))
    sbn, bn = nn.SyncBatchNorm(3), nn.BatchNorm2d(3)
    for net in (sbn, bn):
        net.set_train(True)
    np.testing.assert_allclose(sbn(Tensor(x)).asnumpy(), bn(Tensor(x)).asnumpy(), rtol=1e-6)
    assert [p.name for p in sbn.get_parameters()] == [p.name for p in bn.get_parameters()]

    def f(a):
        return a * a * 3.0

    a, v = Tensor(np.array([1.0, 2.0], np.float32)), Tensor(np.array([1.0, -1.0], np.float32))
    out, jv = nn.Jvp(f)(a, v)
    np.testing.assert_allclose(out.asnumpy(), [3.0, 12.0])
    np.testing.assert_allclose(jv.asnumpy(), [6.0, -12.0])
    out, vj = nn.Vjp(f)(a, v)
    np.testing.assert_allclose(vj.asnumpy(), [6.0, -12.0])
    m = layer_cases._x(2, (2, 3, 4))
    d = layer_cases._x(3, (2, 3))
    want = m.copy()
    for b in range(2):
        want[b][np.arange(3), np.arange(3)] = d[b]
    np.testing.assert_allclose(nn.MatrixSetDiag()(Tensor(m), Tensor(d)).asnumpy(), want)
    assert nn.AvgPool2dExt is ms.mint.nn.AvgPool2d and "LayerNormExt" in dir(nn)


def test_jvp_vjp_argument_checks():
    from kiln.nn.grad import Jvp, Vjp  # noqa: PLC0415  (MindSpore's mindspore.nn.grad)

    x, v = Tensor(np.ones((2, 2), np.float32)), Tensor(np.ones((2, 2), np.float32))

    class Two(nn.Cell):
        def construct(self, a, b):
            return 2 * a, b**3

    out, grads = Vjp(Two())(x, x * 2, (v, v))
    np.testing.assert_allclose(grads[1].asnumpy(), 12.0)
    for call in (lambda: Jvp(Two())(x, x, v), lambda: Jvp(Two())((x, x), (v, v)), lambda: Vjp(Two())(x, x, v),
                 lambda: Vjp(Two())(x, x, (v,))):  # fmt: skip
        with pytest.raises(TypeError):
            call()
