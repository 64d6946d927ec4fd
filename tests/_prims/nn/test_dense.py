"""Dense (kiln/_prims/nn/dense.py): values and gradients through the ops face against NumPy, in both execution modes.
The CPU's identity-dot derivative that this file tested before is gone (see `_dense`'s comment)."""

import numpy as np
import pytest

import kiln as ms
from kiln import Tensor, ops

RNG = np.random.default_rng(0)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
@pytest.mark.parametrize("with_bias", [False, True])
def test_dense_gradient_through_ops_matches_numpy(mode, with_bias):
    x = RNG.standard_normal((2, 3, 5)).astype(np.float32)
    w = RNG.standard_normal((4, 5)).astype(np.float32)
    b = RNG.standard_normal((4,)).astype(np.float32)
    g = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    ms.set_context(mode=mode)
    try:
        if with_bias:
            fn = ms.grad(lambda a, c, d: (ops.dense(a, c, d) * Tensor(g)).sum(), grad_position=(0, 1, 2))
            dx, dw, db = fn(Tensor(x), Tensor(w), Tensor(b))
            np.testing.assert_allclose(db.asnumpy(), g.sum((0, 1)), rtol=1e-5, atol=1e-5)
        else:
            fn = ms.grad(lambda a, c: (ops.dense(a, c) * Tensor(g)).sum(), grad_position=(0, 1))
            dx, dw = fn(Tensor(x), Tensor(w))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(dx.asnumpy(), g @ w, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(dw.asnumpy(), np.einsum("bto,bti->oi", g, x), rtol=1e-5, atol=1e-5)
