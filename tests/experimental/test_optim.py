"""`kiln.experimental.optim` ASGD, NAdam, RAdam, Rprop: against MindSpore 2.10's results
(optim_goldens_mindspore.json, from make_optim_goldens_mindspore.py) and against NumPy implementations of the
published update rules; state names and argument checks."""

import json
import os

import numpy as np
import pytest

from kiln import Parameter, Tensor
from kiln.experimental import optim
from tests.experimental.optim_cases import CASES, grads, params

with open(os.path.join(os.path.dirname(__file__), "optim_goldens_mindspore.json")) as _f:
    GOLDENS = json.load(_f)["cases"]


def _run(cls, kwargs, steps):
    ps = [Parameter(Tensor(v), name=n) for n, v in params().items()]
    opt = getattr(optim, cls)(ps, **kwargs)
    for t in range(steps):
        opt(tuple(Tensor(g) for g in grads(t)))
    return opt, [p.asnumpy() for p in ps]


# -- NumPy references (float64), written from the algorithms' papers / PyTorch's documented rules ------------------
def np_asgd(steps, lr, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0.0, maximize=False):
    ps = [v.astype(np.float64) for v in params().values()]
    ax = [np.zeros_like(p) for p in ps]
    eta, mu = lr, 1.0
    for t in range(1, steps + 1):
        for i, g in enumerate(grads(t - 1)):
            g = -g if maximize else g.astype(np.float64)
            g = g + weight_decay * ps[i]
            ps[i] = ps[i] * (1 - lambd * eta) - eta * g
            ax[i] = ps[i].copy() if mu == 1 else ax[i] + (ps[i] - ax[i]) * mu
        eta, mu = lr / (1 + lambd * lr * t) ** alpha, 1 / max(1, t - t0)
    np_asgd.ax = ax
    return ps


def np_nadam(steps, lr, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, momentum_decay=4e-3):
    b1, b2 = betas
    ps = [v.astype(np.float64) for v in params().values()]
    m, v, prod = [np.zeros_like(p) for p in ps], [np.zeros_like(p) for p in ps], 1.0
    for t in range(1, steps + 1):
        mu = b1 * (1 - 0.5 * 0.96 ** (t * momentum_decay))
        mu_next = b1 * (1 - 0.5 * 0.96 ** ((t + 1) * momentum_decay))
        prod *= mu
        for i, g in enumerate(grads(t - 1)):
            g = g + weight_decay * ps[i]
            m[i] = b1 * m[i] + (1 - b1) * g
            v[i] = b2 * v[i] + (1 - b2) * g * g
            denom = np.sqrt(v[i] / (1 - b2**t)) + eps
            ps[i] = ps[i] - lr * (1 - mu) / (1 - prod) * g / denom - lr * mu_next / (1 - prod * mu_next) * m[i] / denom
    return ps


def np_radam(steps, lr, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0):
    b1, b2 = betas
    ps = [v.astype(np.float64) for v in params().values()]
    m, v = [np.zeros_like(p) for p in ps], [np.zeros_like(p) for p in ps]
    rho_inf = 2 / (1 - b2) - 1
    for t in range(1, steps + 1):
        rho = rho_inf - 2 * t * b2**t / (1 - b2**t)
        for i, g in enumerate(grads(t - 1)):
            g = g + weight_decay * ps[i]
            m[i] = b1 * m[i] + (1 - b1) * g
            v[i] = b2 * v[i] + (1 - b2) * g * g
            mh = m[i] / (1 - b1**t)
            if rho > 5:
                r = np.sqrt((rho - 4) * (rho - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho))
                ps[i] = ps[i] - lr * mh * r * np.sqrt(1 - b2**t) / (np.sqrt(v[i]) + eps)
            else:
                ps[i] = ps[i] - lr * mh
    return ps


def np_rprop(steps, lr, etas=(0.5, 1.2), step_sizes=(1e-6, 50), maximize=False):
    ps = [v.astype(np.float64) for v in params().values()]
    prev, size = [np.zeros_like(p) for p in ps], [np.full_like(p, lr) for p in ps]
    for t in range(steps):
        for i, g in enumerate(grads(t)):
            g = (-g if maximize else g).astype(np.float64)
            s = np.sign(g * prev[i])
            size[i] = np.clip(size[i] * np.where(s > 0, etas[1], np.where(s < 0, etas[0], 1.0)), *step_sizes)
            g = np.where(s < 0, 0.0, g)
            ps[i] = ps[i] - np.sign(g) * size[i]
            prev[i] = g
    return ps


REFS = {"ASGD": np_asgd, "NAdam": np_nadam, "RAdam": np_radam, "Rprop": np_rprop}


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_against_mindspore_and_numpy(case):
    name, cls, kwargs, steps = case
    _, got = _run(cls, kwargs, steps)
    for g, want in zip(got, GOLDENS[name]):
        np.testing.assert_allclose(g, np.array(want, np.float32), rtol=2e-5, atol=2e-6)
    for g, want in zip(got, REFS[cls](steps, **kwargs)):
        np.testing.assert_allclose(g, want, rtol=1e-4, atol=1e-5)
    if cls == "ASGD":  # the running average of the parameters
        opt, _ = _run(cls, kwargs, steps)
        for a, want in zip(opt.ax, np_asgd.ax):
            np.testing.assert_allclose(a.asnumpy(), want, rtol=1e-4, atol=1e-5)


def test_state_names_and_groups():
    ps = [Parameter(Tensor(v), name=n) for n, v in params().items()]
    opt = optim.NAdam([{"params": ps[:1], "lr": 0.1}, {"params": ps[1:]}])
    names = {p.name for p in opt.get_parameters()}
    assert {"step_t", "exp_avg.w", "exp_avg_sq.b", "mu_product_w"} <= names
    assert opt.param_groups[1]["lr"].asnumpy() == np.float32(2e-3)
    asgd = optim.ASGD(ps)
    assert {"ax.w", "eta_b", "mu_w"} <= {p.name for p in asgd.get_parameters()}


def test_argument_checks():
    ps = [Parameter(Tensor(v), name=n) for n, v in params().items()]
    with pytest.raises(TypeError, match="lambd"):
        optim.ASGD(ps, lambd=1)
    with pytest.raises(ValueError, match="betas"):
        optim.RAdam(ps, betas=(1.0, 0.9))
    with pytest.raises(ValueError, match="etas"):
        optim.Rprop(ps, etas=(0.5, 1.0))
    with pytest.raises(ValueError, match="lr"):
        optim.NAdam(ps, lr=-1.0)


def test_with_scheduler():
    ps = [Parameter(Tensor(v), name=n) for n, v in params().items()]
    opt = optim.RAdam(ps, lr=0.1)
    sched = optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    opt(tuple(Tensor(g) for g in grads(0)))
    sched.step()
    assert float(opt.param_groups[0]["lr"].asnumpy()) == pytest.approx(0.05)
