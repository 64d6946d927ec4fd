"""Held-out programs: for over Tensors and ranges, break, continue and return in loops."""

import mindspore as ms
import numpy as np
from mindspore import Tensor, ops


def t(*values):
    return Tensor(np.array(values, np.float32))


def prog_for_over_tensor_rows(run):
    def f(x):
        total = ops.zeros_like(x[0])
        for row in x:
            total = total + row * 2
        return total

    return run(f)(Tensor(np.arange(6, dtype=np.float32).reshape(3, 2)))


def prog_for_range_tensor_break(run):
    def f(x):
        for i in range(10):
            x = x + i
            if x.sum() > 10:
                break
        return x

    return run(f)(t(1.0))


def prog_while_continue(run):
    def f(x):
        i = 0
        while i < 6:
            i += 1
            if i % 2 == 0:
                continue
            x = x * 2
        return x

    return run(f)(t(1.0))


def prog_return_inside_tensor_loop(run):
    def f(x):
        for _ in range(5):
            x = x * 3
            if x.sum() > 20:
                return x - 1
        return x

    return run(f)(t(1.0))


def prog_tensor_while_counter(run):
    def f(x):
        n = Tensor(0, ms.int32)
        while x.sum() < 50:
            x = x * 2
            n = n + 1
        return x, n

    return run(f)(t(1.0, 2.0))


def prog_for_range_of_tensor_value(run):
    def f(x, n):
        for _ in range(n):
            x = x + 1
        return x

    return run(f)(t(0.0), 4)


def prog_nested_loops_break(run):
    def f(x):
        for i in range(3):
            for j in range(3):
                if j > i:
                    break
                x = x + i * j
        return x

    return run(f)(t(0.0))


def prog_loop_grad(run):
    def f(x):
        y = x
        for _ in range(3):
            y = ops.sin(y) * x
        return y.sum()

    return run(ms.grad(f))(t(0.5, 1.0))


def prog_while_tensor_grad(run):
    def f(x):
        i = Tensor(0, ms.int32)
        while i < 3:
            x = x * x
            i = i + 1
        return x.sum()

    return run(ms.grad(f))(t(1.1))


def prog_zip_tensors(run):
    def f(x, y):
        out = []
        for a, b in zip(x, y):
            out.append(a * b)
        return ops.stack(out)

    return run(f)(t(1.0, 2.0, 3.0), t(4.0, 5.0, 6.0))


def prog_while_else(run):
    def f(x):
        i = 0
        while i < 3:
            x = x + 1
            i += 1
        else:
            x = x * 10
        return x

    return run(f)(t(1.0))


def prog_break_in_tensor_while(run):
    def f(x):
        while x.sum() < 100:
            x = x + 7
            if x.sum() > 20:
                break
        return x

    return run(f)(t(1.0))
