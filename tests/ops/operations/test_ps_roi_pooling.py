"""ops.operations.nn_ops.PSROIPooling against MindSpore 2.10 CPU goldens (make_ps_roi_pooling_goldens_mindspore.py:
one and several rois per image, rois past the map's edge, inverted and tiny), PyNative and GRAPH_MODE; its gradient
by the features (the op is linear in them) against a central difference; argument errors."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

import kiln
from kiln import Tensor, nn, ops
from kiln.ops.operations import nn_ops

GOLDENS = np.load(pathlib.Path(__file__).with_name("ps_roi_pooling_goldens_mindspore.npz"))
# name -> (group_size, output_dim, spatial_scale), as the goldens' script made them
CASES = {"one_roi_each": (2, 4, 1.0 / 16), "three_rois_each": (3, 2, 1.0 / 8), "wide_scale": (2, 3, 0.5)}


class _Net(nn.Cell):
    def __init__(self, scale, group, dim):
        super().__init__()
        self.op = nn_ops.PSROIPooling(scale, group, dim)

    def construct(self, features, rois):
        return self.op(features, rois)


@pytest.mark.parametrize("mode", [kiln.PYNATIVE_MODE, kiln.GRAPH_MODE])
@pytest.mark.parametrize("case", sorted(CASES))
def test_values_against_mindspore(case, mode):
    group, dim, scale = CASES[case]
    features, rois = Tensor(GOLDENS[f"{case}/features"]), Tensor(GOLDENS[f"{case}/rois"])
    kiln.set_context(mode=mode)
    try:
        got = _Net(scale, group, dim)(features, rois).asnumpy()
    finally:
        kiln.set_context(mode=kiln.PYNATIVE_MODE)
    np.testing.assert_allclose(got, GOLDENS[f"{case}/out"], rtol=1e-5, atol=1e-6)


def test_gradient_by_the_features():
    group, dim, scale = CASES["three_rois_each"]
    x, rois = GOLDENS["three_rois_each/features"], Tensor(GOLDENS["three_rois_each/rois"])
    op = nn_ops.PSROIPooling(scale, group, dim)
    rng = np.random.default_rng(3)
    weights = Tensor(rng.standard_normal(GOLDENS["three_rois_each/out"].shape).astype(np.float32))
    direction = rng.standard_normal(x.shape).astype(np.float32)

    def loss(features):
        return (op(features, rois) * weights).sum()

    grad = ops.grad(loss)(Tensor(x)).asnumpy()
    # linear in the features: the central difference is exact up to rounding
    numeric = (loss(Tensor(x + direction)).asnumpy() - loss(Tensor(x - direction)).asnumpy()) / 2
    np.testing.assert_allclose((grad.astype(np.float64) * direction).sum(), numeric, rtol=1e-4)


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"spatial_scale": object()}, TypeError),
        ({"spatial_scale": -0.15}, ValueError),
        ({"group_size": 7.1}, TypeError),
        ({"group_size": -1}, ValueError),
        ({"output_dim": 7.1}, TypeError),
        ({"output_dim": 0}, ValueError),
    ],
)
def test_attribute_errors(kwargs, error):
    with pytest.raises(error, match="PSROIPooling"):
        nn_ops.PSROIPooling(**{"spatial_scale": 1 / 16, "group_size": 7, "output_dim": 3, **kwargs})


def test_input_errors():
    op = nn_ops.PSROIPooling(1 / 16, 2, 4)
    features = Tensor(np.ones((2, 16, 8, 6), np.float32))
    rois = Tensor(np.array([[[0.0], [1.0], [1.0], [40.0], [50.0]], [[1.0], [2.0], [3.0], [30.0], [60.0]]], np.float32))
    with pytest.raises(TypeError, match="features"):
        op(1.0, rois)
    with pytest.raises(TypeError, match="rois"):
        op(features, 1.0)
    with pytest.raises(ValueError, match="16 channels"):
        op(Tensor(np.ones((2, 17, 8, 6), np.float32)), rois)
    bad_batch = Tensor(np.array([[[0.0], [1.0], [1.0], [4.0], [5.0]], [[2.0], [2.0], [3.0], [3.0], [6.0]]], np.float32))
    with pytest.raises(IndexError, match="batch indices"):
        op(features, bad_batch)
