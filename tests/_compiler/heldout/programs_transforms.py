"""Held-out programs: jit on functions and methods, mutable() arguments, vmap."""

import mindspore as ms
import numpy as np
from mindspore import Parameter, Tensor, mutable, nn, ops
from mindspore.ops import functional as F


def t(*values):
    return Tensor(np.array(values, np.float32))


def prog_mutable_scalar_not_constant(run):
    def f(x, k):
        return x * k

    g = run(f)
    return g(t(1.0), mutable(2)), g(t(1.0), mutable(5))


def prog_mutable_tuple_of_tensors(run):
    def f(pair):
        a, b = pair
        return a * b

    g = run(f)
    return g(mutable((t(2.0), t(3.0)))), g(mutable((t(4.0), t(5.0))))


def prog_mutable_list_grad(run):
    def f(xs):
        return (xs[0] * xs[1]).sum()

    return run(ms.grad(f))(mutable([t(2.0), t(3.0)]))


def prog_python_scalar_argument_changes(run):
    def f(x, k):
        return x + k

    g = run(f)
    return g(t(1.0), 1), g(t(1.0), 2), g(t(1.0), 1.5)


def prog_vmap_function(run):
    def f(x, y):
        return (x * y).sum()

    return run(ms.vmap(f, in_axes=(0, None)))(Tensor(np.arange(6, dtype=np.float32).reshape(3, 2)), t(1.0, 2.0))


def prog_vmap_inside_jit(run):
    def f(x):
        return ops.vmap(lambda row: row.max() - row.min())(x)

    return run(f)(Tensor(np.array([[1, 5, 2], [0, -1, 3]], np.float32)))


def prog_vmap_out_axes(run):
    def f(x):
        return x * 2, x.sum()

    return run(ms.vmap(f, in_axes=1, out_axes=(1, 0)))(Tensor(np.arange(6, dtype=np.float32).reshape(2, 3)))


def prog_vmap_cell(run):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(t(1.0, -1.0), name="w")

        def construct(self, x):
            return (x * self.w).sum()

    return run(ms.vmap(Net(), in_axes=0))(Tensor(np.arange(6, dtype=np.float32).reshape(3, 2)))


def prog_vmap_celllist(run):
    class Lin(nn.Cell):
        def __init__(self, k):
            super().__init__()
            self.k = Parameter(t(k), name="k")

        def construct(self, x):
            return x * self.k

    cells = nn.CellList([Lin(1.0), Lin(2.0), Lin(3.0)])
    return run(ms.vmap(cells, in_axes=0))(Tensor(np.arange(6, dtype=np.float32).reshape(3, 2)))


def prog_jit_method(run):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.k = 3.0

        @ms.jit
        def scaled(self, x):
            return x * self.k

        def construct(self, x):
            return self.scaled(x) + 1

    return run(Net())(t(1.0))


def prog_jit_nested_call(run):
    @ms.jit
    def inner(x):
        return x * x

    def outer(x):
        return inner(x) + inner(x + 1)

    return run(outer)(t(2.0))


def prog_jit_retrace_on_shape(run):
    def f(x):
        return x.sum() * x.shape[0]

    g = run(f)
    return g(Tensor(np.ones(2, np.float32))), g(Tensor(np.ones(5, np.float32)))


def prog_jit_keyword_args(run):
    def f(x, scale=2.0, bias=None):
        y = x * scale
        if bias is not None:
            y = y + bias
        return y

    g = run(f)
    return g(t(1.0)), g(t(1.0), 3.0, t(1.0))


def prog_switch_function(run):
    def f(x):
        return F.switch(x.sum() > 0, x * 2, x - 1)

    g = run(f)
    return g(t(1.0)), g(t(-1.0))


def prog_any_with_none_return(run):
    def f(x):
        if x.sum() > 0:
            return x * 2
        return None

    g = run(f)
    return g(t(1.0)), g(t(-1.0))
