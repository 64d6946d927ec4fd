"""nn.Lamb against a NumPy implementation of the published LAMB rule (You et al. 2019; MindSpore 2.10's Lamb
kernel has no CPU implementation, so no golden): bias-corrected Adam direction + decoupled weight decay (not on
beta/gamma by default), scaled by the trust ratio ||w|| / ||update||; state names, groups."""

import numpy as np
import pytest

import kiln as ms
from kiln import Parameter, Tensor, nn

SHAPES = {"fc.weight": (3, 4), "fc.bias": (3,), "bn.gamma": (4,)}


def _params():
    rng = np.random.default_rng(0)
    return [Parameter(Tensor(rng.normal(size=s).astype(np.float32)), name=n) for n, s in SHAPES.items()]


def _grads(t):
    rng = np.random.default_rng(100 + t)
    return [rng.normal(size=s).astype(np.float32) for s in SHAPES.values()]


def np_lamb(steps, lr, beta1=0.9, beta2=0.999, eps=1e-6, weight_decay=0.0, decay=None):
    ps = [p.asnumpy().astype(np.float64) for p in _params()]
    m, v = [np.zeros_like(p) for p in ps], [np.zeros_like(p) for p in ps]
    decay = decay or [("beta" not in n and "gamma" not in n) for n in SHAPES]
    for t in range(1, steps + 1):
        for i, g in enumerate(_grads(t - 1)):
            m[i] = beta1 * m[i] + (1 - beta1) * g
            v[i] = beta2 * v[i] + (1 - beta2) * g * g
            u = (m[i] / (1 - beta1**t)) / (np.sqrt(v[i] / (1 - beta2**t)) + eps)
            u = u + (weight_decay if decay[i] else 0.0) * ps[i]
            wn, un = np.linalg.norm(ps[i]), np.linalg.norm(u)
            ratio = wn / un if wn > 0 and un > 0 else 1.0
            ps[i] = ps[i] - lr * ratio * u
    return ps


@pytest.mark.parametrize("kwargs", [dict(learning_rate=0.1), dict(learning_rate=0.05, weight_decay=0.1, beta1=0.8,
                                                                   eps=1e-4)])  # fmt: skip
def test_against_numpy(kwargs):
    ps = _params()
    opt = nn.Lamb(ps, **kwargs)
    for t in range(4):
        opt(tuple(Tensor(g) for g in _grads(t)))
    for got, want in zip(ps, np_lamb(4, **{("lr" if k == "learning_rate" else k): v for k, v in kwargs.items()})):
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-4, atol=1e-5)


def test_state_groups_and_checks():
    ps = _params()
    opt = nn.Lamb([{"params": ps[:1], "weight_decay": 0.2, "lr": 0.01}, {"params": ps[1:]}], learning_rate=0.1)
    names = {p.name for p in opt.get_parameters()}
    assert {"lamb_m.fc.weight", "lamb_v.bn.gamma", "global_step"} <= names
    opt(tuple(Tensor(g) for g in _grads(0)))
    with pytest.raises(ValueError):
        nn.Lamb(_params(), 0.1, beta1=1.0)
    with pytest.raises(TypeError):
        nn.Lamb(_params(), 0.1, eps=1)


def np_lars_momentum(steps, lr, mom, wd, coefficient=0.001, eps=1e-5):
    """LARS (You et al. 2017) over Momentum, in NumPy: the weight decay moves into the trust-ratio update; LARS
    leaves bias/LayerNorm parameters to the plain optimizer (which then has no weight decay)."""
    ps = [p.asnumpy().astype(np.float64) for p in _params()]
    acc = [np.zeros_like(p) for p in ps]
    for t in range(steps):
        for i, (name, g) in enumerate(zip(SHAPES, _grads(t))):
            g = g.astype(np.float64)
            if "bias" not in name:
                decay = wd if ("beta" not in name and "gamma" not in name) else 0.0
                wn, gn = np.linalg.norm(ps[i]), np.linalg.norm(g)
                r = coefficient * wn / (gn + decay * wn + eps) if wn > 0 and gn > 0 else 1.0
                g = r * (g + decay * ps[i])
            acc[i] = mom * acc[i] + g
            ps[i] = ps[i] - lr * acc[i]
    return ps


def test_lars_against_numpy():
    ps = _params()
    opt = nn.LARS(nn.Momentum(ps, 0.5, 0.9, weight_decay=0.01), epsilon=1e-5, coefficient=0.01)
    for t in range(3):
        opt(tuple(Tensor(g) for g in _grads(t)))
    for got, want in zip(ps, np_lars_momentum(3, 0.5, 0.9, 0.01, coefficient=0.01)):
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-4, atol=1e-6)
    with pytest.raises(TypeError):
        nn.LARS(nn.Momentum(_params(), 0.1, 0.9), epsilon=1)


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_lars_unscales_a_loss_scaled_optimizer(mode):
    # The zoo's Res2Net (research/cv/res2net/train.py) wraps Momentum(loss_scale=1024) in LARS. MindSpore's LARS
    # divides the gradients by the wrapped optimizer's loss_scale before the trust ratio reads their norm, and the
    # wrapped optimizer then steps without unscaling again (nn/optim/lars.py: need_scale, reciprocal_scale = 1.0);
    # its CPU has no LARSUpdate kernel, so the reference is NumPy. Kiln raised NotImplementedError.
    ps = _params()
    opt = nn.LARS(nn.Momentum(ps, 0.5, 0.9, weight_decay=0.01, loss_scale=1024.0), epsilon=1e-5, coefficient=0.01)

    def step(*grads):
        return opt(grads)

    step = ms.jit(step) if mode == "graph" else step
    for t in range(3):
        step(*(Tensor(g * np.float32(1024)) for g in _grads(t)))
    for got, want in zip(ps, np_lars_momentum(3, 0.5, 0.9, 0.01, coefficient=0.01), strict=True):
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-4, atol=1e-6)
    assert opt.loss_scale == 1024.0 and opt.opt.loss_scale == 1024.0


def test_lars_unscales_for_an_optimizer_stepping_per_parameter():
    # The same through an optimizer whose step runs per parameter (scale_grad): RMSProp with loss_scale 8 under LARS
    # steps as RMSProp without loss scale on LARS's update of the unscaled gradients.
    def run(loss_scale):
        ps = _params()
        opt = nn.LARS(nn.RMSProp(ps, 0.01, momentum=0.5, loss_scale=loss_scale, weight_decay=0.1), coefficient=0.02)
        for t in range(3):
            opt(tuple(Tensor(g * np.float32(loss_scale)) for g in _grads(t)))
        return [p.asnumpy() for p in ps]

    for got, want in zip(run(8.0), run(1.0), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
