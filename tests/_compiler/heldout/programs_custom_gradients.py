"""Held-out programs: Cells with their own bprop, gradient clipping, and jit on construct."""

import mindspore as ms
import numpy as np
from mindspore import Parameter, Tensor, nn, ops


def t(*values):
    return Tensor(np.array(values, np.float32))


class ClippedGrad(nn.Cell):
    def construct(self, x):
        return x * 3

    def bprop(self, x, out, dout):
        return (ops.clip_by_value(dout * 3, -1.0, 1.0),)


def prog_cell_bprop(run):
    net = ClippedGrad()

    def f(x):
        return (net(x) * t(0.1, 10.0)).sum()

    return run(ms.grad(f))(t(1.0, 2.0))


def prog_bprop_in_tensor_if(run):
    net = ClippedGrad()

    def f(x):
        if x.sum() > 0:
            y = net(x)
        else:
            y = x * x
        return (y * 5).sum()

    g = run(ms.grad(f))
    return g(t(1.0)), g(t(-2.0))


def prog_clip_by_global_norm(run):
    def f(a, b):
        return ops.clip_by_global_norm((a, b), 1.0)

    return run(f)(t(3.0, 4.0), t(0.0, 12.0))


def prog_jit_decorated_construct(run):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(t(2.0), name="w")

        @ms.jit
        def construct(self, x):
            if x.sum() > 0:
                return x * self.w
            return x - self.w

    net = Net()
    g = run(net)
    return g(t(1.0)), g(t(-1.0))


def prog_grad_with_stop_gradient_parameter(run):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(t(2.0), name="w")
            self.v = Parameter(t(3.0), name="v")

        def construct(self, x):
            return (x * self.w * ops.stop_gradient(self.v)).sum() + (self.v * self.v).sum()

    net = Net()
    return run(ms.grad(net, grad_position=0, weights=net.trainable_params()))(t(1.0))


def prog_value_and_grad_multiple_outputs(run):
    def f(x):
        return (x * x).sum(), x * 2

    return run(ms.value_and_grad(f))(t(1.0, 3.0))


def prog_grad_of_function_returning_tuple(run):
    def f(x, y):
        return x * y, x + y

    return run(ms.grad(f, grad_position=(0, 1)))(t(2.0), t(5.0))


def prog_jvp_and_vjp(run):
    def f(x):
        return ops.sin(x) * x

    def both(x, v):
        _, jv = ops.jvp(f, x, v)
        _, vjp_fn = ops.vjp(f, x)
        return jv, vjp_fn(v)

    return run(both)(t(0.5, 1.0), t(1.0, 2.0))
