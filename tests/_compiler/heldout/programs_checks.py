"""Held-out programs: assert, raise and print under Tensor conditions, in branches and loops."""

import numpy as np
from mindspore import Tensor, nn, ops


def t(*values):
    return Tensor(np.array(values, np.float32))


def prog_assert_tensor_passes(run):
    def f(x):
        assert x.sum() > 0
        return x * 2

    return run(f)(t(1.0, 2.0))


def prog_assert_tensor_fails(run):
    def f(x):
        assert x.sum() > 0, "needs a positive sum"
        return x * 2

    return run(f)(t(-1.0, -2.0))


def prog_raise_in_tensor_branch(run):
    def f(x):
        if x.max() > 10:
            raise ValueError("too large")
        return x + 1

    g = run(f)
    ok = g(t(1.0, 2.0))
    try:
        g(t(11.0, 2.0))
    except ValueError:
        return ok, "raised"
    return ok, "not raised"


def prog_raise_in_while(run):
    def f(x):
        i = 0
        while x.sum() < 100:
            x = x * 2
            i += 1
            if i > 50:
                raise RuntimeError("no progress")
        return x, i

    return run(f)(t(1.0, 2.0))


def prog_raise_after_loop_condition(run):
    def f(x):
        for _ in range(3):
            x = x - 1
        if x.min() < 0:
            raise ValueError("negative")
        return x

    return run(f)(t(1.0, 5.0))


def prog_print_in_branch(run):
    def f(x):
        if x.sum() > 0:
            print("positive", x)
            y = x * 3
        else:
            y = x
        return y

    return run(f)(t(1.0))


def prog_ops_print_in_while(run):
    def f(x):
        while x < 5:
            ops.print_("x is", x)
            x = x + 2
        return x

    return run(f)(t(0.0)[0])


def prog_assert_in_loop(run):
    def f(x):
        total = x * 0
        for i in range(3):
            total = total + x * i
            assert total.sum() >= 0
        return total

    return run(f)(t(1.0, 2.0))


def prog_raise_type_error_python_value(run):
    def f(x, n):
        if n < 0:
            raise TypeError("n must be non-negative")
        return x * n

    g = run(f)
    return g(t(1.0), 2)


def prog_assert_message_tensor_failure_in_cell(run):
    class Net(nn.Cell):
        def construct(self, x):
            y = x * 2
            assert (y < 5).all(), "values too large"
            return y

    return run(Net())(t(1.0, 3.0))
