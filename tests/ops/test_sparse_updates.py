"""Sparse optimizer primitives on a repeated index (an embedding row looked up twice in a batch): SparseApplyAdagrad
and the FusedSparse* ops sum the row's gradients and update it once; SparseApplyFtrl, SparseApplyRMSProp and
SparseApplyAdagradV2 apply each index in turn, as MindSpore 2.10's kernels do (goldens:
make_sparse_update_goldens_mindspore.py; AdagradV2 against NumPy, its MindSpore kernel's order of a repeated index
changing between runs). Before, the last occurrence's update alone was kept."""

import json
import os

import numpy as np
import pytest

import kiln as ms
from tests.ops.sparse_update_cases import GRAD, INDICES, run

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "sparse_update_goldens_mindspore.json")) as f:
    GOLDENS = json.load(f)["cases"]


@pytest.mark.parametrize("op", sorted(GOLDENS))
@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_repeated_index_matches_mindspore(op, mode):
    ms.set_context(mode=mode)
    try:
        got = run(ms, op)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    for mine, theirs in zip(got, GOLDENS[op], strict=True):
        np.testing.assert_allclose(mine, theirs, rtol=2e-6, atol=1e-7)


def test_adagrad_v2_visits_each_index_in_turn():
    var, accum = np.ones((3, 2)), np.full((3, 2), 0.5)
    for row, g in zip(INDICES, GRAD.astype(np.float64), strict=True):
        accum[row] += g * g
        var[row] -= 0.1 * g / (np.sqrt(accum[row]) + 1e-6)
    got_var, got_accum = run(ms, "SparseApplyAdagradV2")
    np.testing.assert_allclose(got_accum, accum, rtol=1e-6)
    np.testing.assert_allclose(got_var, var, rtol=1e-6)


def test_index_out_of_range_is_named():
    var = ms.Parameter(ms.Tensor(np.ones((3, 2), np.float32)), name="var")
    accum = ms.Parameter(ms.Tensor(np.ones((3, 2), np.float32)), name="accum")
    with pytest.raises(IndexError, match="indices"):
        ms.ops.SparseApplyAdagradV2(lr=0.1, epsilon=1e-6)(var, accum, ms.Tensor(GRAD[:1]), ms.Tensor([3]))
