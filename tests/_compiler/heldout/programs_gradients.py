"""Held-out programs: ms.grad, value_and_grad and GradOperation (get_all, get_by_list, sens), grad of grad."""

import mindspore as ms
import numpy as np
from mindspore import Parameter, ParameterTuple, Tensor, nn, ops


def t(*values):
    return Tensor(np.array(values, np.float32))


class Affine(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(t(2.0, -1.0), name="w")
        self.b = Parameter(t(0.5), name="b")

    def construct(self, x):
        return (x * self.w).sum() + self.b


def prog_grad_positions(run):
    def f(x, y, z):
        return (x * y + z * z).sum()

    g = ms.grad(f, grad_position=(0, 2))
    return run(g)(t(1.0, 2.0), t(3.0, 4.0), t(5.0, 6.0))


def prog_value_and_grad_with_aux(run):
    def f(x):
        loss = (x * x).sum()
        return loss, x * 10

    return run(ms.value_and_grad(f, has_aux=True))(t(1.0, 2.0))


def prog_grad_operation_get_all(run):
    grad_all = ops.GradOperation(get_all=True)

    def f(x, y):
        return x * y * y

    def g(x, y):
        return grad_all(f)(x, y)

    return run(g)(t(2.0), t(3.0))


def prog_grad_operation_by_list(run):
    net = Affine()
    params = ParameterTuple(net.trainable_params())
    grad = ops.GradOperation(get_by_list=True)

    class GradNet(nn.Cell):
        def __init__(self):
            super().__init__()
            self.net = net

        def construct(self, x):
            return grad(self.net, params)(x)

    return run(GradNet())(t(3.0, 4.0))


def prog_grad_operation_sens(run):
    grad = ops.GradOperation(sens_param=True)

    def f(x):
        return x * x

    def g(x, sens):
        return grad(f)(x, sens)

    return run(g)(t(1.0, 2.0), t(10.0, 100.0))


def prog_grad_all_and_list(run):
    net = Affine()
    grad = ops.GradOperation(get_all=True, get_by_list=True)

    class GradNet(nn.Cell):
        def __init__(self):
            super().__init__()
            self.net = net
            self.params = ParameterTuple(net.trainable_params())

        def construct(self, x):
            return grad(self.net, self.params)(x)

    return run(GradNet())(t(1.0, 1.0))


def prog_grad_of_grad(run):
    def f(x):
        return x**3

    def second(x):
        return ms.grad(ms.grad(f))(x)

    return run(second)(t(2.0))


def prog_grad_of_grad_sin(run):
    def f(x):
        return ops.sin(x) * x

    return run(ms.grad(ms.grad(f)))(t(0.5))


def prog_value_and_grad_weights(run):
    net = Affine()
    vg = ms.value_and_grad(net, grad_position=None, weights=net.trainable_params())
    return run(vg)(t(1.0, 2.0))


def prog_grad_through_tensor_if(run):
    def f(x):
        if x > 0:
            return x * x
        return -x * 3

    g = run(ms.grad(f))
    return g(t(2.0)[0]), g(t(-2.0)[0])


def prog_grad_integer_input(run):
    def f(x, n):
        return (x * n).sum()

    return run(ms.grad(f, grad_position=(0, 1)))(t(1.0, 2.0), Tensor(np.array([3, 4], np.int32)))


def prog_grad_of_jit_function(run):
    def f(x):
        return (ops.exp(x) * x).sum()

    return ms.grad(run(f))(t(0.0, 1.0))


def prog_value_and_grad_train_step(run):
    net = Affine()
    opt = nn.SGD(net.trainable_params(), learning_rate=0.1)
    vg = ms.value_and_grad(net, grad_position=None, weights=opt.parameters)

    def step(x):
        loss, grads = vg(x)
        opt(grads)
        return loss

    s = run(step)
    a = s(t(1.0, 1.0))
    b = s(t(1.0, 1.0))
    return a, b, net.w.value()


def prog_grad_by_list_without_weights_arg_order(run):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.second = Parameter(t(3.0), name="second")
            self.first = Parameter(t(2.0), name="first")

        def construct(self, x):
            return x * self.first + x * x * self.second

    net = Net()
    grad = ops.GradOperation(get_by_list=True)

    class GradNet(nn.Cell):
        def __init__(self):
            super().__init__()
            self.net = net
            self.params = ParameterTuple(net.trainable_params())

        def construct(self, x):
            return grad(self.net, self.params)(x)

    return run(GradNet())(t(2.0))


def prog_grad_by_list_weights_omitted(run):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.late = Parameter(t(3.0), name="late")
            self.early = Parameter(t(2.0), name="early")

        def construct(self, x):
            y = x * self.early
            return y * y * self.late

    net = Net()
    grad = ops.GradOperation(get_by_list=True)

    class GradNet(nn.Cell):
        def __init__(self):
            super().__init__()
            self.net = net

        def construct(self, x):
            return grad(self.net)(x)

    return run(GradNet())(t(2.0))
