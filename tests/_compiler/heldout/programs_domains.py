"""Held-out programs: partial ops at their domain edges (log, sqrt, div, pow at 0 and negatives), with gradients."""

import mindspore as ms
import numpy as np
from mindspore import Tensor, ops


def t(*values):
    return Tensor(np.array(values, np.float32))


def prog_log_zero_negative(run):
    return run(ops.log)(t(0.0, -1.0, 1.0))


def prog_sqrt_negative_and_grad_at_zero(run):
    def f(x):
        return ops.sqrt(x).sum()

    return run(f)(t(-1.0, 4.0)), run(ms.grad(f))(t(0.0, 4.0))


def prog_div_by_zero(run):
    def f(x, y):
        return x / y, ops.div(x, y)

    return run(f)(t(1.0, -1.0, 0.0), t(0.0, 0.0, 0.0))


def prog_int_div_by_zero_scalar(run):
    def f(x):
        return x / 0

    return run(f)(Tensor(np.array([1, 0], np.int32)))


def prog_pow_negative_base(run):
    def f(x):
        return ops.pow(x, 0.5), ops.pow(x, 2.0), x**3

    return run(f)(t(-2.0, 0.0, 2.0))


def prog_pow_grad_at_zero(run):
    def f(x):
        return (x**2).sum() + (x**1).sum()

    return run(ms.grad(f))(t(0.0, 1.0))


def prog_log_grad_at_zero(run):
    def f(x):
        return ops.log(x).sum()

    return run(ms.grad(f))(t(0.0, 2.0))


def prog_where_guarded_log_grad(run):
    def f(x):
        safe = ops.where(x > 0, x, ops.ones_like(x))
        return ops.where(x > 0, ops.log(safe), ops.zeros_like(x)).sum()

    return run(ms.grad(f))(t(0.0, 2.0, -1.0))


def prog_rsqrt_and_reciprocal_zero(run):
    def f(x):
        return ops.rsqrt(x), ops.reciprocal(x)

    return run(f)(t(0.0, 4.0))


def prog_exp_overflow_and_log1p(run):
    def f(x):
        return ops.exp(x), ops.log1p(x - 100)

    return run(f)(t(100.0, 0.0))


def prog_zero_pow_zero(run):
    def f(x, y):
        return ops.pow(x, y)

    return run(f)(t(0.0, 0.0, -1.0), t(0.0, -1.0, 0.5))
