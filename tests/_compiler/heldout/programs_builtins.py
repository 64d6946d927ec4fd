"""Held-out programs: Python builtins and statements on Tensors and containers inside compiled code."""

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn, ops


def t(*values):
    return Tensor(np.array(values, np.float32))


def prog_isinstance_and_type_checks(run):
    def f(x, y):
        out = x
        if isinstance(y, tuple):
            out = out + y[0]
        if isinstance(x, Tensor):
            out = out * 2
        return out

    return run(f)(t(1.0), (t(2.0), t(3.0)))


def prog_builtin_max_min_of_scalars(run):
    def f(x):
        n = max(2, 5, 3)
        m = min(x.shape[0], 1)
        return x * n + m

    return run(f)(t(1.0, 2.0))


def prog_sum_of_list_of_tensors(run):
    def f(x):
        return sum([x, x * 2, x * 3])

    return run(f)(t(1.0))


def prog_in_operator_on_tuple_and_dict(run):
    def f(x):
        names = ("a", "b")
        table = {"k": 2.0}
        out = x
        if "b" in names:
            out = out + 1
        if "z" not in table:
            out = out * table["k"]
        return out

    return run(f)(t(1.0))


def prog_enumerate_list_setitem_in_loop(run):
    def f(x):
        rows = [x, x * 2, x * 3]
        for i, r in enumerate(rows):
            rows[i] = r + i
        return rows

    return run(f)(t(1.0))


def prog_nonlocal_counter_closure(run):
    def f(x):
        total = x * 0

        def add(v):
            nonlocal total
            total = total + v

        add(x)
        add(x * 2)
        return total

    return run(f)(t(1.0))


def prog_abs_round_pow_builtins(run):
    def f(x):
        return abs(x), round(2.567, 1), pow(x, 2)

    return run(f)(t(-1.5))


def prog_string_format_with_number(run):
    def f(x):
        name = "layer{}".format(3)  # noqa: UP032 - str.format, as a user writes it
        return x * len(name)

    return run(f)(t(1.0))


def prog_tensor_item_in_python_arithmetic(run):
    def f(x):
        n = x.shape[0] * 2 + len((1, 2))
        return x.sum() * n

    return run(f)(t(1.0, 2.0))


def prog_all_any_on_tensor(run):
    def f(x):
        return (x > 0).all(), (x > 1).any(), ops.isfinite(x).all()

    return run(f)(t(0.5, 2.0))


def prog_slice_setitem_in_tensor_while(run):
    def f(x):
        y = x * 1
        while y.sum() < 20:
            y[1:] = y[1:] * 2
        return y

    return run(f)(t(1.0, 1.0, 1.0))


def prog_list_of_tensors_setitem_in_tensor_if(run):
    def f(x):
        outs = [x, x]
        if x.sum() > 0:
            outs[0] = x * 5
        return outs[0] + outs[1]

    g = run(f)
    return g(t(1.0)), g(t(-1.0))


def prog_dict_get_default(run):
    def f(x):
        d = {"a": x}
        return d.get("a", x * 0) + d.get("b", x * 10)

    return run(f)(t(1.0))


def prog_conditional_expression_tensor(run):
    def f(x):
        y = x * 2 if x.sum() > 0 else x * -3
        return y + (1 if x.sum() > 10 else 2)

    g = run(f)
    return g(t(1.0)), g(t(-1.0))


def prog_cell_attribute_list_of_cells_loop(run):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.acts = [nn.ReLU(), nn.Sigmoid()]

        def construct(self, x):
            for act in self.acts:
                x = act(x)
            return x

    return run(Net())(t(-1.0, 2.0))


def prog_chained_comparison_tensor(run):
    def f(x):
        if 0 < x.sum() < 5:
            return x + 100
        return x

    g = run(f)
    return g(t(1.0)), g(t(10.0))


def prog_augmented_subscript_in_loop(run):
    def f(x):
        y = ops.zeros((3,), ms.float32)
        for i in range(3):
            y[i] += x[i] * (i + 1)
        return y

    return run(f)(t(1.0, 2.0, 3.0))


def prog_while_true_with_tensor_break(run):
    def f(x):
        while True:
            x = x * 2
            if x.sum() > 10:
                break
        return x

    return run(f)(t(1.0))
