"""The public attributes of the wrapper cells (kiln/nn/wrap/cell_wrapper.py, loss_scale.py) have MindSpore's
meaning: train-cell subclasses written as the model zoo writes them (their own `construct` calling
`self.grad(self.network, self.weights)(*inputs, sens)`, `self.grad_reducer`, `self.hyper_map`, the overflow
helpers) train like the hand-derived update in PyNative and GRAPH_MODE."""

from __future__ import annotations

import numpy as np
import pytest

import kiln as ms
from kiln import Tensor, nn
from kiln import dtype as mstype
from kiln.ops import composite as C
from kiln.ops import functional as F
from kiln.ops import operations as P

MODES = [ms.PYNATIVE_MODE, ms.GRAPH_MODE]

grad_scale = C.MultitypeFuncGraph("grad_scale")


@grad_scale.register("Tensor", "Tensor")
def _tensor_grad_scale(scale, grad):
    return grad * F.cast(P.Reciprocal()(scale), F.dtype(grad))


class ZooTrainOneStepCell(nn.TrainOneStepCell):
    """As the zoo's Transformer train cell: its own construct over the base class's attributes."""

    def __init__(self, network, optimizer, sens=1.0):
        super().__init__(network, optimizer, sens)
        self.cast = P.Cast()

    def set_sens(self, value):
        self.sens = value

    def construct(self, x, y):
        weights = self.weights
        loss = self.network(x, y)
        grads = self.grad(self.network, weights)(x, y, self.cast(F.tuple_to_array((self.sens,)), mstype.float32))
        grads = self.grad_reducer(grads)
        succ = self.optimizer(grads)
        return F.depend(loss, succ)


class ZooLossScaleCell(nn.TrainOneStepWithLossScaleCell):
    """As the zoo's BERT loss-scale train cell: overflow helpers, hyper_map unscaling, a skipped update."""

    def __init__(self, network, optimizer, scale_update_cell=None):
        super().__init__(network, optimizer, scale_update_cell)
        self.cast = P.Cast()
        self.degree = 1
        if self.reducer_flag:
            self.degree = 2  # not reached outside data-parallel mode
        self.loss_scale = ms.Parameter(Tensor(np.float32(scale_update_cell.get_loss_scale())), name="loss_scale")

    def construct(self, x, y):
        weights = self.weights
        loss = self.network(x, y)
        scaling_sens = self.loss_scale
        status, scaling_sens = self.start_overflow_check(loss, scaling_sens)
        grads = self.grad(self.network, weights)(x, y, self.cast(scaling_sens, mstype.float32))
        grads = self.grad_reducer(grads)
        degree_sens = self.cast(scaling_sens * self.degree, mstype.float32)
        grads = self.hyper_map(F.partial(grad_scale, degree_sens), grads)
        cond = self.get_overflow_status(status, grads)
        overflow = self.loss_scaling_manager(self.loss_scale, cond)
        if not overflow:
            self.optimizer(grads)
        return loss, cond, scaling_sens


class _Linear(nn.Cell):
    """(w.x - y)^2 of one row: shape (1,) (the sensitivity the Transformer cell builds) or () (BERT's)."""

    def __init__(self, vector_loss: bool = True) -> None:
        super().__init__()
        self.w = ms.Parameter(Tensor(np.array([1.0, -2.0], np.float32)), name="w")
        self.vector_loss = vector_loss

    def construct(self, x, y):
        loss = ((self.w * x).sum(axis=1) - y) ** 2
        return loss if self.vector_loss else loss.sum()


def _grad(w, x, y):
    """d/dw (w.x - y)^2."""
    return 2.0 * (np.dot(w, x.ravel()) - y.sum()) * x.ravel()


@pytest.mark.parametrize("mode", MODES)
def test_zoo_train_one_step_subclass(mode):
    ms.set_context(mode=mode)
    net = _Linear()
    step = ZooTrainOneStepCell(net, nn.SGD(net.trainable_params(), 0.01), sens=1.0)
    w = np.array([1.0, -2.0])
    for x, y, sens in (([1.0, 2.0], 0.5, 1.0), ([0.5, -1.0], 1.0, 1.0), ([2.0, 1.0], -1.0, 4.0)):
        step.set_sens(sens)
        x, y = np.array([x], np.float32), np.array([y], np.float32)
        loss = step(Tensor(x), Tensor(y))
        np.testing.assert_allclose(loss.asnumpy(), (np.dot(w, x.ravel()) - y.sum()) ** 2, rtol=1e-5)
        w = w - 0.01 * sens * _grad(w, x, y)  # the sensitivity scales the gradient
        np.testing.assert_allclose(net.w.asnumpy(), w, rtol=1e-5)


@pytest.mark.parametrize("mode", MODES)
def test_zoo_loss_scale_subclass_skips_overflow(mode):
    ms.set_context(mode=mode)
    net = _Linear(vector_loss=False)
    update = nn.DynamicLossScaleUpdateCell(loss_scale_value=16.0, scale_factor=2, scale_window=100)
    step = ZooLossScaleCell(net, nn.SGD(net.trainable_params(), 0.01), update)
    w = np.array([1.0, -2.0])
    for x, y in (([1.0, 2.0], 0.5), ([np.inf, 1.0], 0.0), ([2.0, 1.0], -1.0)):
        x, y = np.array([x], np.float32), np.array([y], np.float32)
        _, cond, _ = step(Tensor(x), Tensor(y))
        finite = bool(np.all(np.isfinite(x)))
        assert bool(cond.asnumpy()) is not finite
        if finite:
            w = w - 0.01 * _grad(w, x, y)
        np.testing.assert_allclose(net.w.asnumpy(), w, rtol=1e-5)
    assert float(step.loss_scale.asnumpy()) == 8.0  # halved by the overflow


def test_train_one_step_attributes():
    net = _Linear()
    opt = nn.SGD(net.trainable_params(), 0.1)
    step = nn.TrainOneStepCell(net, opt)
    assert step.network is net and step.optimizer is opt
    assert list(step.weights) == list(opt.parameters)
    assert step.sens == 1.0 and step.sense_flag is False
    assert nn.TrainOneStepCell(net, opt, sens=8.0).sense_flag is True
    assert step.reducer_flag is False and step.parallel_mode == "stand_alone"
    grads = (Tensor([1.0]), Tensor([2.0]))
    assert step.grad_reducer(grads) is grads
    assert isinstance(step.grad, ms.ops.GradOperation) and step.grad.get_by_list and step.grad.sens_param
    assert step.grad_no_sens.get_by_list and not step.grad_no_sens.sens_param
    assert nn.TrainOneStepCell(net, opt, return_grad=True).weights_name == ["w"]
    with pytest.raises(ValueError, match="sens"):
        nn.TrainOneStepCell(net, opt, sens=0)
    scaled = nn.TrainOneStepWithLossScaleCell(net, opt, Tensor(np.float32(4.0)))
    assert scaled.grad.sens_param and scaled.loss_scaling_manager is None and scaled.is_distributed is False
    assert float(scaled.base.asnumpy()) == 1.0 and isinstance(scaled.hyper_map, ms.ops.HyperMap)


def test_with_grad_cell_attributes():
    backbone = nn.Dense(2, 1)
    loss = nn.MSELoss()
    cell = nn.WithGradCell(backbone, loss)
    assert cell.network is backbone and cell.loss_fn is loss
    assert isinstance(cell.network_with_loss, nn.WithLossCell) and cell.sens is None
    assert list(cell.weights) == backbone.trainable_params()
    assert cell.grad.get_by_list and not cell.grad.sens_param
    scaled = nn.WithGradCell(backbone, loss, sens=2.0)
    assert scaled.grad.sens_param and scaled.sens == 2.0
    x, y = Tensor(np.ones((1, 2), np.float32)), Tensor(np.zeros((1, 1), np.float32))
    for g, g2 in zip(cell(x, y), scaled(x, y), strict=True):
        np.testing.assert_allclose(g2.asnumpy(), 2.0 * g.asnumpy(), rtol=1e-6)
    fvg = nn.ForwardValueAndGrad(cell.network_with_loss, cell.weights, get_by_list=True)
    assert fvg.grad.get_by_list and fvg.network is cell.network_with_loss


def test_graceful_exit_is_not_silently_ignored(monkeypatch):
    # MindSpore's MS_ENABLE_GRACEFUL_EXIT=1 sets up an exit-on-request protocol between ranks, which Kiln lacks
    net = nn.WithLossCell(nn.Dense(2, 1), nn.MSELoss())
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    assert nn.TrainOneStepCell(net, opt).use_graceful_exit is False
    monkeypatch.setenv("MS_ENABLE_GRACEFUL_EXIT", "1")
    with pytest.warns(UserWarning, match="MS_ENABLE_GRACEFUL_EXIT=1"):
        step = nn.TrainOneStepCell(net, opt)
    assert step.use_graceful_exit is False


def _float16_dense():
    """A 3 -> 2 float16 Dense of fixed weights (the logits `add_cast_fp32` casts back to float32)."""
    net = nn.Dense(3, 2).to_float(mstype.float16)
    net.weight.set_data(Tensor(np.arange(6).reshape(2, 3).astype(np.float32) / 10))
    net.bias.set_data(Tensor(np.zeros(2, np.float32)))
    return net


@pytest.mark.parametrize("mode", MODES)
def test_with_eval_cell_cast_fp32_keeps_integer_labels(mode):
    # add_cast_fp32 casts the logits and a floating-point label to float32 and leaves an integer label (a sparse
    # loss's class indices) as it is; Kiln cast every label to float32, so a sparse loss refused it (found by the
    # zoo's TextRCNN through eval.py's WithEvalCell(network, loss, True), and Model.eval under amp O2/O3 builds the
    # same cell). MindSpore 2.10 in both modes: losses [0.15300527, 0.8545236], labels int32 [1, 0]; MSE 0.7622071.
    ms.set_context(mode=mode)
    x = np.array([[1, 2, 3], [-1, 0, 2]], np.float32)
    logits = x @ (np.arange(6).reshape(2, 3) / 10).T
    cell = nn.WithEvalCell(_float16_dense(), nn.SoftmaxCrossEntropyWithLogits(sparse=True), True)
    loss, out, label = cell(Tensor(x), Tensor(np.array([1, 0], np.int32)))
    assert out.dtype == mstype.float32 and label.dtype == mstype.int32
    np.testing.assert_array_equal(label.asnumpy(), [1, 0])
    log_softmax = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    np.testing.assert_allclose(loss.asnumpy(), -log_softmax[[0, 1], [1, 0]], rtol=2e-3)  # float16 logits
    loss, out, label = nn.WithEvalCell(_float16_dense(), nn.MSELoss(), True)(
        Tensor(x), Tensor(np.ones((2, 2), np.float16))
    )
    assert label.dtype == mstype.float32
    np.testing.assert_allclose(loss.asnumpy(), ((logits - 1) ** 2).mean(), rtol=2e-3)
    net = _float16_dense()
    model = ms.Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True), nn.SGD(net.trainable_params()),
                     metrics={"acc": nn.Accuracy()}, amp_level="O3")  # fmt: skip
    data = ms.dataset.NumpySlicesDataset({"x": x, "y": np.array([1, 0], np.int32)}, shuffle=False).batch(2)
    assert model.eval(data, dataset_sink_mode=False) == {"acc": 0.5}
