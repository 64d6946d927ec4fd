"""The private helpers of MindSpore's `nn.wrap.loss_scale` that zoo train cells import (kiln/nn/wrap/loss_scale.py):
`grad_scale` and `shard_grad_scale`, mapped over gradients and accumulators, in both modes."""

import numpy as np
import pytest

import kiln
from kiln import nn, ops
from kiln.nn.wrap.loss_scale import grad_scale, shard_grad_scale


class Unscale(nn.Cell):
    """research/mm/opt's use: HyperMap(partial(helper, scale), grads, accumulators)."""

    def __init__(self, helper, accumulated):
        super().__init__()
        self.helper = helper
        self.hyper_map = ops.HyperMap()
        self.accumulated = kiln.ParameterTuple(
            kiln.Parameter(kiln.Tensor(a), name=f"accu_{i}") for i, a in enumerate(accumulated)
        )

    def construct(self, scale, grads):
        return self.hyper_map(ops.partial(self.helper, scale), grads, self.accumulated)


@pytest.mark.parametrize("mode", [kiln.PYNATIVE_MODE, kiln.GRAPH_MODE])
@pytest.mark.parametrize(("helper", "unscales"), [(grad_scale, "accumulated"), (shard_grad_scale, "grads")])
def test_the_unscaled_gradient_and_a_zeroed_accumulator(mode, helper, unscales):
    rng = np.random.default_rng(0)
    grads = [rng.normal(size=(3,)).astype(np.float32), rng.normal(size=(2, 2)).astype(np.float32)]
    accumulated = [rng.normal(size=(3,)).astype(np.float32), rng.normal(size=(2, 2)).astype(np.float32)]
    kiln.set_context(mode=mode)
    try:
        net = Unscale(helper, accumulated)
        out = net(kiln.Tensor(np.float32(4.0)), tuple(kiln.Tensor(g) for g in grads))
    finally:
        kiln.set_context(mode=kiln.PYNATIVE_MODE)
    wanted = accumulated if unscales == "accumulated" else grads
    for got, w in zip(out, wanted, strict=True):
        np.testing.assert_allclose(got.asnumpy(), w / 4.0, rtol=1e-6)
    for a in net.accumulated:
        np.testing.assert_array_equal(a.asnumpy(), np.zeros_like(a.asnumpy()))
