"""Loss primitives: CTC in half precision (float16 log-probabilities give the float32 loss and finite gradients:
log(0) stands in as a large finite number that float16 cannot hold), and SoftmaxCrossEntropyWithLogits' dtype check."""

from __future__ import annotations

import numpy as np
import pytest

import kiln
from kiln import Tensor, nn
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


class _HalfHeadLoss(nn.Cell):
    """A float16 Dense head (to_float, as the zoo's ResNeXt CommonHead's fp16 flag makes it) into the loss."""

    def __init__(self):
        super().__init__()
        self.head = nn.Dense(4, 4).to_float(kiln.float16)
        self.loss = nn.SoftmaxCrossEntropyWithLogits()

    def construct(self, x, labels):
        return self.loss(self.head(x), labels)


@pytest.mark.parametrize("mode", [kiln.PYNATIVE_MODE, kiln.GRAPH_MODE])
def test_softmax_cross_entropy_refuses_labels_of_another_dtype(mode):
    # MindSpore 2.10 raises a TypeError for each pair below in both modes (checked on its CPU build); Kiln cast the
    # labels to the logits' dtype, so the zoo's ResNeXt at amp O0 (float16 logits, float32 one-hot labels) trained
    # here and failed there
    kiln.set_context(mode=mode)
    logits = np.random.default_rng(0).standard_normal((3, 4))
    labels = np.eye(4)[[0, 2, 3]]
    sce = kiln.ops.SoftmaxCrossEntropyWithLogits()
    for logits_dtype, labels_dtype in ((kiln.float16, kiln.float32), (kiln.float32, kiln.float16),
                                       (kiln.float32, kiln.int32)):  # fmt: skip
        with pytest.raises(TypeError, match=r"'logits' \(Float\d+\) and 'labels' \((Float|Int)\d+\)"):
            sce(Tensor(logits, logits_dtype), Tensor(labels, labels_dtype))
    with pytest.raises(TypeError, match="must have the same dtype"):
        _HalfHeadLoss()(Tensor(np.ones((3, 4)), kiln.float32), Tensor(labels, kiln.float32))
    loss, grad = sce(Tensor(logits, kiln.float16), Tensor(labels, kiln.float16))
    assert loss.dtype == kiln.float16 and grad.dtype == kiln.float16
