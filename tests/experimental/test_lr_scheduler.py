"""The chained schedulers and ReduceLROnPlateau stepping inside a Cell's construct, in graph and PyNative mode,
against MindSpore 2.10's rates (sched_goldens_mindspore.json, from make_sched_goldens_mindspore.py)."""

import json
import os

import numpy as np
import pytest

import kiln as ms
from kiln import nn
from kiln.experimental import optim
from tests.experimental.sched_cases import run

with open(os.path.join(os.path.dirname(__file__), "sched_goldens_mindspore.json")) as _f:
    GOLDENS = json.load(_f)["cases"]


@pytest.mark.parametrize("mode", ["graph", "pynative"])
def test_against_mindspore(mode):
    previous = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    try:
        got = run(ms, nn, optim)
    finally:
        ms.set_context(mode=previous)
    for name, want in GOLDENS[mode].items():
        np.testing.assert_allclose(got[name], want, rtol=1e-5, atol=1e-9, err_msg=name)


def test_last_epoch_is_state():
    opt = optim.Adam(nn.Dense(2, 2).trainable_params(), 0.1)
    sched = optim.lr_scheduler.StepLR(opt, 2, 0.5)
    assert sched.last_epoch == 0
    sched.step()
    sched.step()
    assert sched.last_epoch == 2
    assert float(sched.get_last_lr()[0].asnumpy()) == pytest.approx(0.05)
    sched.step(5)  # closed form
    assert float(sched.get_last_lr()[0].asnumpy()) == pytest.approx(0.1 * 0.5**2)
