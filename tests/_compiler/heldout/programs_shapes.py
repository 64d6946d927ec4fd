"""Held-out programs: set_inputs with None dims, and shapes used in and out of the graph."""

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn, ops


def ones(*shape):
    return Tensor(np.ones(shape, np.float32))


def dynamic(run, net, *shape):
    if run.mode == "graph":
        net.set_inputs(Tensor(shape=shape, dtype=ms.float32))
    return run(net)


def prog_shape_returned_as_int(run):
    class Net(nn.Cell):
        def construct(self, x):
            y = ops.concat((x, x, x))
            return y.shape[0]

    g = dynamic(run, Net(), None, 2)
    return g(ones(3, 2)), g(ones(5, 2))


def prog_shape_used_in_reshape(run):
    class Net(nn.Cell):
        def construct(self, x):
            n = x.shape[0]
            return x.reshape(n * 2, -1).sum(1)

    g = dynamic(run, Net(), None, 4)
    return g(ones(2, 4)), g(ones(3, 4))


def prog_shape_in_python_arithmetic(run):
    class Net(nn.Cell):
        def construct(self, x):
            rows, cols = x.shape
            return x.sum() / (rows * cols), rows + cols

    g = dynamic(run, Net(), None, 3)
    return g(ones(2, 3)), g(ones(4, 3))


def prog_dynamic_mean_grad(run):
    class Net(nn.Cell):
        def construct(self, x):
            return (x * x).mean()

    net = Net()
    if run.mode == "graph":
        net.set_inputs(Tensor(shape=[None], dtype=ms.float32))
    g = ms.grad(run(net))
    return g(Tensor(np.array([1.0, 2.0], np.float32))), g(Tensor(np.array([1.0, 2.0, 3.0], np.float32)))


def prog_len_of_dynamic_tensor(run):
    class Net(nn.Cell):
        def construct(self, x):
            return x * len(x)

    g = dynamic(run, Net(), None)
    return g(ones(2)), g(ones(4))


def prog_shape_compare_branch(run):
    class Net(nn.Cell):
        def construct(self, x):
            if x.shape[0] > 2:
                return x[:2] * 10
            return x

    g = dynamic(run, Net(), None)
    return g(ones(2)), g(ones(3))


def prog_zeros_of_dynamic_shape(run):
    class Net(nn.Cell):
        def construct(self, x):
            z = ops.zeros(x.shape, ms.float32)
            return z + x * 2, ops.ones((x.shape[0], 2), ms.float32).sum()

    g = dynamic(run, Net(), None)
    return g(ones(3)), g(ones(5))


def prog_shape_attribute_tuple(run):
    class Net(nn.Cell):
        def construct(self, x):
            return x.shape, x.ndim, x.size

    g = dynamic(run, Net(), None, 2)
    return g(ones(3, 2))
