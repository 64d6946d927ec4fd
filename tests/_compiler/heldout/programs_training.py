"""Held-out programs: training-step patterns (loss cells, optimizers, BatchNorm statistics) and mixed dtypes."""

import mindspore as ms
import numpy as np
from mindspore import Parameter, Tensor, nn, ops
from mindspore.common.initializer import Constant


def t(*values, dtype=np.float32):
    return Tensor(np.array(values, dtype))


def dense(i, o):
    return nn.Dense(i, o, weight_init=Constant(0.1), bias_init=Constant(0.0))


def prog_train_one_step_cell(run):
    net = dense(2, 1)
    loss = nn.WithLossCell(net, nn.MSELoss())
    step = nn.TrainOneStepCell(loss, nn.SGD(net.trainable_params(), learning_rate=0.5))
    s = run(step)
    x, y = t([1.0, 2.0], [3.0, -1.0]), t([1.0], [0.0])
    losses = [s(x, y) for _ in range(3)]
    return losses, net.weight.value()


def prog_momentum_in_graph_loop(run):
    net = dense(2, 2)
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    grad_fn = ms.value_and_grad(lambda x: (net(x) ** 2).sum(), None, opt.parameters)

    def step(x):
        loss, grads = grad_fn(x)
        opt(grads)
        return loss

    s = run(step)
    return [s(t([1.0, 2.0])) for _ in range(3)]


def prog_batchnorm_updates_statistics(run):
    bn = nn.BatchNorm1d(2, momentum=0.5)
    bn.set_train(True)
    out = run(bn)(t([1.0, 2.0], [3.0, 6.0]))
    return out, bn.moving_mean.value(), bn.moving_variance.value()


def prog_batchnorm_eval(run):
    bn = nn.BatchNorm1d(2)
    bn.set_train(False)
    return run(bn)(t([1.0, 2.0], [3.0, 6.0]))


def prog_dropout_eval_is_identity(run):
    drop = nn.Dropout(p=0.5)
    drop.set_train(False)
    return run(drop)(t(1.0, 2.0, 3.0))


def prog_adam_two_steps(run):
    net = dense(2, 1)
    opt = nn.Adam(net.trainable_params(), learning_rate=0.01)
    train = nn.TrainOneStepCell(nn.WithLossCell(net, nn.L1Loss()), opt)
    s = run(train)
    x, y = t([1.0, 1.0]), t([2.0])
    s(x, y)
    s(x, y)
    return net.weight.value(), net.bias.value()


def prog_int32_plus_int64(run):
    def f(a, b):
        return a + b, a * b

    return run(f)(t(1, 2, dtype=np.int32), t(3, 4, dtype=np.int64))


def prog_float64_times_float32(run):
    def f(a, b):
        return a * b

    return run(f)(t(1.5, dtype=np.float64), t(2.0))


def prog_int_true_division(run):
    def f(a, b):
        return a / b, ops.floor_div(a, b)

    return run(f)(t(7, -7, dtype=np.int32), t(2, 2, dtype=np.int32))


def prog_uint8_overflow_and_cast(run):
    def f(x):
        return x + x, (x.astype(ms.int32) * 2).astype(ms.uint8)

    return run(f)(t(200, 10, dtype=np.uint8))


def prog_softmax_cross_entropy_sparse(run):
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")

    def f(logits, labels):
        return loss(logits, labels)

    return run(f)(t([2.0, 1.0, 0.1], [0.5, 2.5, 0.3]), t(0, 1, dtype=np.int32))


def prog_parameter_tuple_in_construct(run):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.ws = ms.ParameterTuple([Parameter(t(1.0), name="a"), Parameter(t(2.0), name="b")])

        def construct(self, x):
            out = x
            for w in self.ws:
                out = out * w
            return out

    return run(Net())(t(3.0))


def prog_cell_set_grad_and_loss_scale(run):
    net = dense(2, 1)
    loss_net = nn.WithLossCell(net, nn.MSELoss())
    opt = nn.SGD(net.trainable_params(), learning_rate=0.1)
    step = nn.TrainOneStepWithLossScaleCell(loss_net, opt, scale_sense=Tensor(1024.0, ms.float32))
    out = run(step)(t([1.0, 2.0]), t([0.0]))
    return out[0], out[1], net.weight.value()


def prog_gradient_accumulation_in_python_loop(run):
    net = dense(2, 1)
    grad_fn = ms.grad(lambda x: net(x).sum(), None, net.trainable_params())
    g = run(grad_fn)
    total = None
    for k in range(3):
        grads = g(t([1.0, float(k)]))
        total = grads if total is None else tuple(a + b for a, b in zip(total, grads))
    return total
