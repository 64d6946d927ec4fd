"""Micro-batch cells (kiln/nn/wrap/micro_batch.py: GradAccumulationCell, PipelineCell, MicroBatchInterleaved: the
sum of the network's outputs on the slices of the batch, values and gradients), PipelineGradReducer,
VirtualDatasetCellTriple, no_init_parameters."""

import numpy as np
import pytest

import kiln as ms
from kiln import Tensor, nn


def _data():
    rng = np.random.default_rng(0)
    return Tensor(rng.normal(size=(8, 4)).astype(np.float32)), Tensor(rng.normal(size=(8, 2)).astype(np.float32))


def _net():
    return nn.WithLossCell(nn.Dense(4, 2, weight_init="ones"), nn.MSELoss())


@pytest.mark.parametrize("cls, n", [(nn.GradAccumulationCell, 4), (nn.PipelineCell, 2), (nn.MicroBatchInterleaved, 2)])
def test_micro_batch_sum(cls, n):
    x, y = _data()
    inner = _net()
    wrapped = cls(inner, n)
    want = sum(inner(x[i * 8 // n : (i + 1) * 8 // n], y[i * 8 // n : (i + 1) * 8 // n]).asnumpy() for i in range(n))
    np.testing.assert_allclose(wrapped(x, y).asnumpy(), want, rtol=1e-5)
    params = inner.trainable_params()
    g_wrapped = ms.grad(lambda a, b: wrapped(a, b), None, params)(x, y)
    step = 8 // n
    grad_fn = ms.grad(lambda a, b: inner(a, b), None, params)
    g_parts = [grad_fn(x[i * step : (i + 1) * step], y[i * step : (i + 1) * step]) for i in range(n)]
    for k, g in enumerate(g_wrapped):
        np.testing.assert_allclose(g.asnumpy(), sum(p[k].asnumpy() for p in g_parts), rtol=1e-5, atol=1e-6)
    assert [p.name for p in wrapped.trainable_params()] == [p.name for p in params]


def test_checks_and_stage_config():
    with pytest.raises(TypeError):
        nn.PipelineCell(lambda x: x, 2)
    with pytest.raises(ValueError):
        nn.GradAccumulationCell(_net(), 0)
    with pytest.raises(ValueError, match="divisible"):
        nn.MicroBatchInterleaved(_net(), 3)(*_data())
    net = _net()
    nn.PipelineCell(net, 2, stage_config={"_backbone": 1})
    assert net._backbone.pipeline_stage == 1
    with pytest.raises(KeyError):
        nn.PipelineCell(_net(), 2, stage_config={"nope": 0})


def test_pipeline_grad_reducer_and_others():
    net = nn.Dense(3, 2)
    reducer = nn.PipelineGradReducer(net.trainable_params(), scale_sense=2.0)
    assert {p.name for p in reducer.get_parameters()} >= {"accu_grads.weight", "scale_sense"}
    grads = tuple(Tensor(np.ones(p.shape, np.float32)) for p in net.trainable_params())
    for g in reducer(grads):
        np.testing.assert_allclose(g.asnumpy(), 0.5)

    class Three(nn.Cell):
        def construct(self, a, b, c):
            return a + b * c

    one = Tensor(np.ones(2, np.float32))
    np.testing.assert_allclose(nn.VirtualDatasetCellTriple(Three())(one, one, one).asnumpy(), 2.0)
    with nn.no_init_parameters():
        dense = nn.Dense(2, 2)
    assert dense.weight.shape == (2, 2)


def test_graph_cell_runs_an_exported_graph(tmp_path):
    net = nn.Dense(3, 2)
    x = Tensor(np.ones((1, 3), np.float32))
    ms.export(net, x, file_name=str(tmp_path / "net"), file_format="MINDIR")
    cell = nn.GraphCell(ms.load(str(tmp_path / "net.mindir")))
    # The exported program and PyNative may sum the three products in another
    # order, so an output near zero can differ in its last bits: compare with
    # an absolute floor of a few float32 ulps at the outputs' scale.
    np.testing.assert_allclose(cell(x).asnumpy(), net(x).asnumpy(), rtol=1e-6, atol=1e-6)
    assert "GraphCell" in dir(nn)
