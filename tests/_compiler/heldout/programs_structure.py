"""Held-out programs: closures, methods, nested Cells, CellList and SequentialCell loops."""

import mindspore as ms
import numpy as np
from mindspore import Parameter, Tensor, nn, ops


def t(*values):
    return Tensor(np.array(values, np.float32))


class Scale(nn.Cell):
    def __init__(self, k):
        super().__init__()
        self.k = Parameter(t(k), name="k")

    def construct(self, x):
        return x * self.k


def prog_closure_over_python_value(run):
    offset = 3.0

    def f(x):
        return x + offset

    return run(f)(t(1.0, 2.0))


def prog_closure_factory(run):
    def make(power):
        def f(x):
            return x**power

        return f

    return run(make(3))(t(2.0)), run(make(2))(t(2.0))


def prog_method_helper(run):
    class Net(nn.Cell):
        def helper(self, x, k):
            return x * k + 1

        def construct(self, x):
            return self.helper(x, 2) + self.helper(x, 3)

    return run(Net())(t(1.0))


def prog_nested_cells_grad(run):
    class Outer(nn.Cell):
        def __init__(self):
            super().__init__()
            self.a = Scale(2.0)
            self.b = Scale(3.0)

        def construct(self, x):
            return (self.b(self.a(x)) ** 2).sum()

    net = Outer()
    return run(ms.grad(net, grad_position=None, weights=net.trainable_params()))(t(1.0))


def prog_celllist_loop(run):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.layers = nn.CellList([Scale(1.0), Scale(2.0), Scale(3.0)])

        def construct(self, x):
            for layer in self.layers:
                x = layer(x) + 1
            return x

    return run(Net())(t(1.0))


def prog_sequential_cell(run):
    net = nn.SequentialCell([Scale(2.0), nn.ReLU(), Scale(-1.0)])
    return run(net)(t(1.0, -1.0))


def prog_celllist_index_and_len(run):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.layers = nn.CellList([Scale(2.0), Scale(5.0)])

        def construct(self, x):
            return self.layers[len(self.layers) - 1](x) + self.layers[0](x)

    return run(Net())(t(1.0))


def prog_celllist_enumerate_tensor_if(run):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.layers = nn.CellList([Scale(2.0), Scale(-1.0), Scale(4.0)])

        def construct(self, x):
            for i, layer in enumerate(self.layers):
                if x.sum() > i:
                    x = layer(x)
            return x

    return run(Net())(t(3.0))


def prog_sequential_grad(run):
    net = nn.SequentialCell([Scale(2.0), Scale(3.0)])

    def loss(x):
        return (net(x) ** 2).sum()

    return run(ms.grad(loss, grad_position=None, weights=net.trainable_params()))(t(1.0, 2.0))


def prog_cell_calls_function_with_default(run):
    def helper(x, scale=2.0, shift=0.5):
        return x * scale + shift

    class Net(nn.Cell):
        def construct(self, x):
            return helper(x) + helper(x, shift=1.0)

    return run(Net())(t(1.0))


def prog_static_method_and_property(run):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self._k = 4.0

        @property
        def k(self):
            return self._k

        @staticmethod
        def double(x):
            return x * 2

        def construct(self, x):
            return self.double(x) + self.k

    return run(Net())(t(1.0))


def prog_recursive_helper(run):
    def power(x, n):
        if n == 0:
            return ops.ones_like(x)
        return x * power(x, n - 1)

    def f(x):
        return power(x, 4)

    return run(f)(t(2.0))
