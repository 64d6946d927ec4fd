"""ops.ctc_loss's length arguments (kiln/ops/nn/loss.py): integer lengths as a Tensor, an int or a sequence of
ints; fractional ones are a TypeError naming the argument and its dtype, as MindSpore 2.10's class (they were
truncated to ints)."""

from __future__ import annotations

import numpy as np
import pytest

import kiln as ms
from kiln import Tensor, ops

RNG = np.random.default_rng(5)


def _inputs():
    log_probs = Tensor(np.log(RNG.dirichlet(np.ones(4), size=(6, 2))).astype(np.float32))  # (T=6, N=2, C=4)
    targets = Tensor(np.array([[1, 2, 3], [2, 2, 0]], np.int32))
    return log_probs, targets


@pytest.mark.parametrize(
    "lengths",
    [(6, 3), (Tensor(np.array([6, 6], np.int32)), [3, 2]), (6, Tensor(np.array([3, 2], np.int64)))],
    ids=["ints", "tensor_and_list", "int_and_tensor"],
)
def test_integer_lengths_are_accepted_in_every_form(lengths):
    log_probs, targets = _inputs()
    loss, _ = ops.ctc_loss(log_probs, targets, *lengths, reduction="none")
    assert loss.shape == (2,) and np.isfinite(loss.asnumpy()).all()


@pytest.mark.parametrize(
    ("input_lengths", "target_lengths", "name"),
    [
        (6, (0.17,), "target_lengths"),  # MindSpore 2.10's st/ops/cpu/test_ctclossv2_op.py: a TypeError
        (6, Tensor(np.array([1.5, 2.0], np.float32)), "target_lengths"),
        ([6.0, 5.5], 3, "input_lengths"),
    ],
)
def test_fractional_lengths_are_a_type_error(input_lengths, target_lengths, name):
    log_probs, targets = _inputs()
    with pytest.raises(TypeError, match=f"'{name}' must be integer lengths, but got Float32"):
        ops.ctc_loss(log_probs, targets, input_lengths, target_lengths)


def test_graph_mode_refuses_fractional_lengths_too():
    log_probs, targets = _inputs()
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        fn = ms.jit(lambda lp, t: ops.ctc_loss(lp, t, 6, (2.5, 3.0))[0])
        with pytest.raises(TypeError, match="'target_lengths' must be integer lengths"):
            fn(log_probs, targets)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
