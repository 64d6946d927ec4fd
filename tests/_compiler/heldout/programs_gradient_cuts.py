"""Held-out programs: stop_gradient, depend and assign in compiled gradients."""

import mindspore as ms
import numpy as np
from mindspore import Parameter, Tensor, nn, ops


def t(*values, dtype=np.float32):
    return Tensor(np.array(values, dtype))


def prog_stop_gradient_product(run):
    def f(x):
        return ops.stop_gradient(x * x) * x + x

    return run(ms.grad(f))(Tensor(3.0))


def prog_stop_gradient_primitive_in_cell(run):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.stop = ops.StopGradient()
            self.w = Parameter(t(2.0, -1.0), name="w")

        def construct(self, x):
            target = self.stop(x * self.w)
            return ((x * self.w - target * 0.5) ** 2).sum()

    net = Net()
    return run(ms.grad(net, grad_position=None, weights=net.trainable_params()))(t(1.0, 3.0))


def prog_ema_teacher(run):
    def f(x, w):
        teacher = ops.stop_gradient(w * 0.9)
        return ((x * w - x * teacher) ** 2).mean()

    return run(ms.grad(f, grad_position=(0, 1)))(t(1.0, 2.0), t(0.5, 1.5))


def prog_straight_through(run):
    def f(x):
        q = ops.round(x)
        return (x + ops.stop_gradient(q - x)).sum() * 3

    return run(ms.value_and_grad(f))(t(0.2, 1.7, -0.6))


def prog_stop_gradient_in_tensor_if(run):
    def f(x):
        if x.sum() > 0:
            y = ops.stop_gradient(x) * x
        else:
            y = x * x * x
        return y.sum()

    g = run(ms.grad(f))
    return g(t(1.0, 2.0)), g(t(-1.0, -2.0))


def prog_stop_gradient_detached_target_cell(run):
    class Loss(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(t(1.5, 0.5), name="w")

        def construct(self, x):
            pred = x * self.w
            target = ops.stop_gradient(pred * 2.0)
            return ((pred - target) ** 2).sum()

    net = Loss()
    grad = ms.grad(net, grad_position=None, weights=net.trainable_params())
    return run(grad)(t(1.0, 2.0))


def prog_depend_orders_assign(run):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.p = Parameter(t(1.0, 2.0), name="p")

        def construct(self, x):
            out = ops.assign(self.p, self.p + x)
            y = ops.depend(self.p * 2, out)
            return y

    net = Net()
    out = run(net)(t(10.0, 10.0))
    return out, net.p.value()


def prog_depend_value_gradient(run):
    def f(x):
        a = x * 2
        b = ops.depend(x * 3, a)
        return b.sum()

    return run(ms.grad(f))(t(1.0, 2.0, 3.0))


def prog_assign_then_read(run):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.count = Parameter(Tensor(0, ms.int32), name="count")

        def construct(self, x):
            ops.assign_add(self.count, Tensor(1, ms.int32))
            return x * self.count

    net = Net()
    step = run(net)
    first = step(t(2.0))
    second = step(t(2.0))
    return first, second, net.count.value()


def prog_stop_gradient_of_int(run):
    def f(x):
        n = ops.stop_gradient(x.astype(ms.int32))
        return (x * n.astype(ms.float32)).sum()

    return run(ms.grad(f))(t(1.5, 2.5))


def prog_stop_gradient_tuple(run):
    def f(x, y):
        a, b = ops.stop_gradient((x * y, x + y))
        return (a * x + b * y).sum()

    return run(ms.grad(f, grad_position=(0, 1)))(t(1.0, 2.0), t(3.0, 4.0))
