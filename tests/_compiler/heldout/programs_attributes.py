"""Held-out programs: attribute writes in construct (ints, Tensors, lists) and Parameter writes before raises."""

import mindspore as ms
import numpy as np
from mindspore import Parameter, Tensor, nn, ops


def t(*values):
    return Tensor(np.array(values, np.float32))


def prog_int_counter_attribute(run):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.count = 0

        def construct(self, x):
            self.count = self.count + 1
            return x * self.count

    net = Net()
    step = run(net)
    a = step(t(1.0))
    b = step(t(1.0))
    return a, b, net.count


def prog_tensor_attribute_write(run):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.last = Tensor(np.zeros(2, np.float32))

        def construct(self, x):
            self.last = x * 2
            return self.last + 1

    net = Net()
    out = run(net)(t(1.0, 2.0))
    return out, net.last


def prog_list_attribute_write(run):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.scales = [1.0, 2.0]

        def construct(self, x):
            self.scales = [3.0, 4.0]
            return x * self.scales[0] + self.scales[1]

    net = Net()
    out = run(net)(t(1.0))
    return out, net.scales


def prog_flag_attribute_read_after_write(run):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.training_flag = False

        def construct(self, x):
            self.training_flag = True
            if self.training_flag:
                return x + 1
            return x - 1

    net = Net()
    return run(net)(t(1.0)), net.training_flag


def prog_parameter_write_before_raise(run):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.p = Parameter(t(0.0), name="p")

        def construct(self, x):
            ops.assign(self.p, x)
            if x.sum() > 1:
                raise ValueError("too big")
            return x

    net = Net()
    try:
        run(net)(t(5.0))
        status = "returned"
    except ValueError:
        status = "raised"
    return status, net.p.value()


def prog_parameter_assign_add_in_loop(run):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.acc = Parameter(t(0.0, 0.0), name="acc")

        def construct(self, x):
            for i in range(3):
                ops.assign_add(self.acc, x * i)
            return self.acc * 1

    net = Net()
    out = run(net)(t(1.0, 2.0))
    return out, net.acc.value()


def prog_parameter_update_in_tensor_if(run):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.p = Parameter(t(1.0), name="p")

        def construct(self, x):
            if x.sum() > 0:
                self.p = self.p * 2
            else:
                ops.assign(self.p, self.p - 1)
            return self.p + x

    net = Net()
    g = run(net)
    a = g(t(1.0))
    b = g(t(-1.0))
    return a, b, net.p.value()


def prog_attribute_read_of_python_float(run):
    class Net(nn.Cell):
        def __init__(self, scale):
            super().__init__()
            self.scale = scale

        def construct(self, x):
            return x * self.scale

    net = Net(2.0)
    g = run(net)
    a = g(t(1.0))
    net.scale = 5.0
    b = g(t(1.0))
    return a, b


def prog_parameter_requires_grad_false(run):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(t(2.0), name="w")
            self.b = Parameter(t(1.0), name="b", requires_grad=False)

        def construct(self, x):
            return (x * self.w + self.b).sum()

    net = Net()
    return run(ms.grad(net, grad_position=0, weights=net.trainable_params()))(t(3.0))


def prog_parameter_set_data_between_calls(run):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(t(2.0), name="w")

        def construct(self, x):
            return x * self.w

    net = Net()
    g = run(net)
    a = g(t(3.0))
    net.w.set_data(t(-1.0))
    b = g(t(3.0))
    return a, b


def prog_attribute_tensor_accumulates(run):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.total = Tensor(np.zeros(1, np.float32))

        def construct(self, x):
            self.total = self.total + x
            return self.total

    net = Net()
    g = run(net)
    g(t(1.0))
    g(t(2.0))
    return net.total


def prog_raise_keeps_earlier_assign_add(run):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.hits = Parameter(Tensor(0, ms.int32), name="hits")

        def construct(self, x):
            ops.assign_add(self.hits, Tensor(1, ms.int32))
            if x.min() < 0:
                raise ValueError("negative input")
            return x

    net = Net()
    g = run(net)
    g(t(1.0))
    try:
        g(t(-1.0))
    except ValueError:
        pass
    return net.hits.value()
