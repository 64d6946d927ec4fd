"""Held-out programs: dtype promotion of int and bool Tensors with Python scalars; low-precision reductions."""

import mindspore as ms
import numpy as np
from mindspore import Tensor, ops


def prog_int_plus_half(run):
    return run(lambda x: x + 0.5)(Tensor(np.array([1, 2, 3], np.int32)))


def prog_int_times_float_scalar(run):
    def f(x):
        return x * 1.0, x * 2, x / 2

    return run(f)(Tensor(np.array([4, 5], np.int64)))


def prog_bool_plus_int_scalar(run):
    def f(x):
        return x + 1, x * True

    return run(f)(Tensor(np.array([True, False])))


def prog_int_compare_float(run):
    def f(x):
        return x > 1.5, (x == 2.0).astype(ms.int32).sum()

    return run(f)(Tensor(np.array([1, 2, 3], np.int32)))


def prog_int8_scalar_overflow(run):
    def f(x):
        return x + 3

    return run(f)(Tensor(np.array([120, 1], np.int8)))


def prog_float16_sum_accumulates(run):
    def f(x):
        return x.sum(), ops.mean(x)

    return run(f)(Tensor(np.full((3000,), 0.1, np.float16)))


def prog_bfloat16_sum(run):
    def f(x):
        return ops.sum(x), x.mean()

    return run(f)(Tensor(np.full((1000,), 0.1, np.float32), ms.bfloat16))


def prog_float16_prod_and_max(run):
    def f(x):
        return x.max(), x.min(), ops.prod(x[:4])

    return run(f)(Tensor(np.linspace(-2, 3, 50).astype(np.float16)))


def prog_float16_times_python_float(run):
    def f(x):
        return x * 0.5 + 1.25

    return run(f)(Tensor(np.array([1.0, 2.0], np.float16)))


def prog_int_tensor_pow_scalar(run):
    def f(x):
        return x**2, x**0.5

    return run(f)(Tensor(np.array([4, 9], np.int32)))


def prog_int_floor_div_mod(run):
    def f(x):
        return x // 3, x % 3, x // -2

    return run(f)(Tensor(np.array([7, -7, 5], np.int32)))


def prog_cast_in_branch(run):
    def f(x):
        if x.sum() > 2:
            y = x.astype(ms.float16)
        else:
            y = x.astype(ms.float16) * 2
        return y + 1

    return run(f)(Tensor(np.array([1.0, 2.0], np.float32)))


def prog_bool_sum(run):
    def f(x):
        return (x > 0).sum(), ops.cast(x > 0, ms.int32).sum()

    return run(f)(Tensor(np.array([1.0, -1.0, 2.0], np.float32)))


def prog_float_of_zero_dim(run):
    def f(x):
        return float(x.sum()) * 2, int(x[0])

    return run(f)(Tensor(np.array([1.5, 2.0], np.float32)))
