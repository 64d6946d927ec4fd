"""The CTC loss primitive in half precision: float16 log-probabilities give the float32 loss and finite
gradients (log(0) stands in as a large finite number that float16 cannot hold)."""

from __future__ import annotations

import numpy as np

from kiln._backend import jax, jnp
from kiln._prims.nn.loss import _ctc

T, N, C, S = 12, 3, 6, 4


def _case():
    rng = np.random.default_rng(0)
    log_probs = jax.nn.log_softmax(jnp.asarray(rng.standard_normal((T, N, C)).astype(np.float32)), axis=2)
    targets = jnp.asarray(rng.integers(1, C, (N, S)).astype(np.int32))
    input_lengths = jnp.asarray(np.array([T, 9, 7], np.int32))
    target_lengths = jnp.asarray(np.array([S, 3, 2], np.int32))
    return log_probs, targets, input_lengths, target_lengths


def _loss(log_probs, targets, input_lengths, target_lengths):
    return _ctc(log_probs, targets, input_lengths, target_lengths, 0, False)[0].sum()


def test_float16_ctc_matches_float32_with_finite_gradients():
    log_probs, *rest = _case()
    half = log_probs.astype(jnp.float16)
    nll16, alpha16 = _ctc(half, *rest, 0, False)
    nll32, _ = _ctc(half.astype(jnp.float32), *rest, 0, False)
    assert nll16.dtype == jnp.float16 and alpha16.dtype == jnp.float16
    np.testing.assert_allclose(np.asarray(nll16, np.float32), np.asarray(nll32), rtol=2e-3)
    grad16 = jax.grad(_loss)(half, *rest)
    grad32 = jax.grad(_loss)(half.astype(jnp.float32), *rest)
    assert grad16.dtype == jnp.float16 and bool(jnp.isfinite(grad16).all())
    np.testing.assert_allclose(np.asarray(grad16, np.float32), np.asarray(grad32), atol=2e-3)
