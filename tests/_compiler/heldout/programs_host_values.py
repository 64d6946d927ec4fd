"""Held-out programs: values only known when the graph runs, used as Python values (JIT fallback), and switch_layer."""

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn, ops


def t(*values):
    return Tensor(np.array(values, np.float32))


def prog_asnumpy_in_graph(run):
    def f(x):
        y = x * 2
        arr = y.asnumpy()
        return Tensor(arr + 1)

    return run(f)(t(1.0, 2.0))


def prog_item_in_python_if(run):
    def f(x):
        if x.sum().item() > 2:
            return x * 10
        return x

    g = run(f)
    return g(t(1.0, 2.0)), g(t(0.5, 0.5))


def prog_f_string_of_tensor(run):
    def f(x):
        msg = f"value={x.sum()}"
        return x * len(msg) * 0 + 1

    return run(f)(t(1.0, 2.0))


def prog_tuple_index_with_tensor(run):
    def f(x, i):
        funcs = (ops.sin, ops.cos, ops.exp)
        return funcs[i](x)

    g = run(f)
    return g(t(0.5), Tensor(1, ms.int32)), g(t(0.5), Tensor(2, ms.int32))


def prog_celllist_index_with_tensor(run):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.layers = nn.CellList([nn.ReLU(), nn.Tanh()])

        def construct(self, x, i):
            return self.layers[i](x)

    g = run(Net())
    return g(t(-1.0, 1.0), Tensor(0, ms.int32)), g(t(-1.0, 1.0), Tensor(1, ms.int32))


def prog_numpy_call_on_input_values(run):
    def f(x):
        m = np.max(x.asnumpy())
        return x / float(m)

    return run(f)(t(1.0, 4.0))


def prog_int_of_tensor_in_range(run):
    def f(x, n):
        total = x * 0
        for i in range(int(n)):
            total = total + x * i
        return total

    return run(f)(t(1.0), Tensor(3, ms.int32))


def prog_tolist_and_python_sum(run):
    def f(x):
        return sum(x.tolist())

    return run(f)(t(1.0, 2.0, 3.5))


def prog_tensor_in_list_membership(run):
    def f(x):
        keys = [1, 2, 3]
        return x * 2 if 2 in keys else x

    return run(f)(t(1.0))


def prog_max_builtin_of_tensors(run):
    def f(a, b):
        return max(a, b), min(a.sum(), b.sum())

    return run(f)(t(1.0), t(3.0))
