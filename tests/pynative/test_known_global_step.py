"""PyNative: an optimizer step's new global step is known on the host (`_core/known_values`), so the rate-per-step
check of the next step (`DynamicLR`'s bounds test, `Bounds.host_check`) does not read it back from the device, which
waited for the step before. Run with the lazy window and with each op launched at once (conftest)."""

from __future__ import annotations

import functools

import numpy as np
import pytest

import kiln as ms
import kiln._core.primitive as primitive
from kiln import Tensor, nn
from kiln import _backend as B

RATES = np.array([1.0, 2.0, 4.0, 8.0, 16.0, 32.0], np.float32)
ONES = Tensor(np.ones(2, np.float32))


class Linear(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(Tensor(np.zeros(2, np.float32)), name="w")

    def construct(self, x):
        return (self.w * x).sum()


class _CountingNumPy:
    """NumPy as `primitive` sees it, counting the backend arrays `np.asarray` reads back (its host check's reads)."""

    def __init__(self):
        self.reads = 0

    def __getattr__(self, name):
        return getattr(np, name)

    def asarray(self, a, *args, **kwargs):
        if B.is_array(a) and not B.is_tracer(a):
            self.reads += 1
        return np.asarray(a, *args, **kwargs)


def _step(optimizer):
    ms.set_context(mode=ms.PYNATIVE_MODE)
    net = Linear()
    opt = optimizer(net.trainable_params(), learning_rate=Tensor(RATES))
    grad_fn = ms.value_and_grad(net, None, opt.parameters)

    def step(x):
        value, grads = grad_fn(x)
        opt(grads)
        return value

    return step, opt, net


@pytest.mark.parametrize("optimizer", [nn.SGD, functools.partial(nn.Momentum, momentum=0.0)], ids=["SGD", "Momentum"])
def test_the_global_step_is_not_read_back_at_each_step(optimizer, monkeypatch):
    step, opt, net = _step(optimizer)
    step(ONES)  # the first global step is read
    counting = _CountingNumPy()
    monkeypatch.setattr(primitive, "np", counting)
    for _ in range(5):
        step(ONES)
    assert counting.reads == 0  # the old code read each step's global step (5)
    # each step took its rate off the weight (the gradient is ones)
    np.testing.assert_array_equal(net.w.asnumpy(), -np.full(2, RATES.sum()))
    for _ in range(2):
        with pytest.raises(IndexError, match=r"6 step\(s\), but the optimizer is at step 7 \(global_step 6\)"):
            step(ONES)
    np.testing.assert_array_equal(net.w.asnumpy(), -np.full(2, RATES.sum()))
    assert int(opt.global_step.asnumpy()[0]) == 6
    with pytest.raises(IndexError, match="global_step 6"):
        opt.get_lr()


def test_a_global_step_set_between_steps_is_read(monkeypatch):
    step, opt, net = _step(nn.SGD)
    for _ in range(4):
        step(ONES)
    counting = _CountingNumPy()
    monkeypatch.setattr(primitive, "np", counting)
    opt.global_step.set_data(Tensor(np.array([6], np.int32)))  # past the end, where the host predicted step 4
    with pytest.raises(IndexError, match=r"global_step 6\)"):
        step(ONES)
    assert counting.reads == 1
    opt.global_step.set_data(Tensor(np.array([5], np.int32)))
    step(ONES)
    np.testing.assert_array_equal(net.w.asnumpy(), -np.full(2, RATES[:4].sum() + RATES[5]))
