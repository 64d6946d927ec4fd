"""nn.ProximalAdagrad, nn.FTRL, nn.LazyAdam against MindSpore 2.10's results (optim_goldens_mindspore.json, from
make_optim_goldens_mindspore.py) and NumPy implementations of the published rules; state names and checks."""

import json
import os

import numpy as np
import pytest

from kiln import Parameter, Tensor, nn
from tests.nn.optim_cases import CASES, SHAPES, grads, params

with open(os.path.join(os.path.dirname(__file__), "optim_goldens_mindspore.json")) as _f:
    GOLDENS = json.load(_f)["cases"]


def _run(cls, kwargs):
    ps = [Parameter(Tensor(v), name=n) for n, v in params().items()]
    opt = getattr(nn, cls)(ps, **kwargs)
    for t in range(4):
        opt(tuple(Tensor(g) for g in grads(t)))
    return opt, [p.asnumpy() for p in ps]


def np_prox(lr, accum=0.1, l1=0.0, l2=0.0, weight_decay=0.0):
    ps = [v.astype(np.float64) for v in params().values()]
    acc = [np.full_like(p, accum) for p in ps]
    for t in range(4):
        for i, (name, g) in enumerate(zip(SHAPES, grads(t))):
            g = g + (weight_decay * ps[i] if "gamma" not in name else 0.0)
            acc[i] += g * g
            rate = lr / np.sqrt(acc[i])  # the adapted rate of TensorFlow's ApplyProximalAdagrad
            v = ps[i] - rate * g
            ps[i] = np.sign(v) * np.maximum(np.abs(v) - rate * l1, 0) / (1 + rate * l2)
    return ps


def np_ftrl(lr, initial_accum=0.1, lr_power=-0.5, l1=0.0, l2=0.0, weight_decay=0.0):
    ps = [v.astype(np.float64) for v in params().values()]
    n = [np.full_like(p, initial_accum) for p in ps]
    z = [np.zeros_like(p) for p in ps]
    for t in range(4):
        for i, g in enumerate(grads(t)):
            g = g + weight_decay * ps[i]  # FTRL decays every parameter
            n_new = n[i] + g * g
            z[i] += g - (n_new ** (-lr_power) - n[i] ** (-lr_power)) / lr * ps[i]
            quad = n_new ** (-lr_power) / lr + 2 * l2
            ps[i] = np.where(np.abs(z[i]) > l1, (np.sign(z[i]) * l1 - z[i]) / quad, 0.0)
            n[i] = n_new
    return ps


@pytest.mark.parametrize("name", list(CASES))
def test_against_mindspore_and_numpy(name):
    cls, kwargs = CASES[name]
    _, got = _run(cls, kwargs)
    for g, want in zip(got, GOLDENS[name]):
        np.testing.assert_allclose(g, np.array(want, np.float32), rtol=1e-5, atol=1e-6)
    ref = {"ProximalAdagrad": np_prox, "FTRL": np_ftrl}.get(cls)
    if ref is not None:
        kw = {("lr" if k == "learning_rate" else k): v for k, v in kwargs.items()}
        for g, want in zip(got, ref(**kw)):
            np.testing.assert_allclose(g, want, rtol=1e-4, atol=1e-5)


def test_ftrl_l1_against_numpy():
    # MindSpore 2.10's CPU ApplyFtrl moves weights with z < 0 away from 0 by l1 / quad (no golden); the published
    # FTRL-Proximal rule shrinks towards 0.
    kwargs = dict(initial_accum=0.2, learning_rate=0.05, lr_power=-0.7, l1=0.05, l2=0.1, weight_decay=0.01)
    _, got = _run("FTRL", kwargs)
    for g, want in zip(got, np_ftrl(**{("lr" if k == "learning_rate" else k): v for k, v in kwargs.items()})):
        np.testing.assert_allclose(g, want, rtol=1e-4, atol=1e-5)


def test_state_names_and_checks():
    opt, _ = _run("FTRL", {"learning_rate": 0.1})
    assert {"moments.fc.weight", "linear.bn.gamma"} <= {p.name for p in opt.get_parameters()}
    opt, _ = _run("ProximalAdagrad", {})
    assert "accum.fc.bias" in {p.name for p in opt.get_parameters()}
    with pytest.raises(ValueError):
        nn.FTRL([Parameter(Tensor(np.ones(2, np.float32)), name="w")], learning_rate=0.1, l1=-1.0)
    with pytest.raises(TypeError):
        nn.ProximalAdagrad([Parameter(Tensor(np.ones(2, np.float32)), name="w")], accum=1)
