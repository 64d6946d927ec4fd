"""Held-out programs: indexing and slice assignment, in and out of Tensor branches."""

import mindspore as ms
import numpy as np
from mindspore import Tensor, ops


def mat():
    return Tensor(np.arange(12, dtype=np.float32).reshape(3, 4))


def prog_basic_slices(run):
    def f(x):
        return x[1], x[:, 2], x[::2, 1:3], x[-1, -1]

    return run(f)(mat())


def prog_slice_assign_scalar(run):
    def f(x):
        x[0, :] = 0
        return x

    return run(f)(mat())


def prog_slice_assign_tensor(run):
    def f(x, v):
        x[1:3, 1] = v
        return x

    return run(f)(mat(), Tensor(np.array([-1.0, -2.0], np.float32)))


def prog_bool_mask_assign(run):
    def f(x):
        x[x > 5] = 5
        return x

    return run(f)(mat())


def prog_tensor_index_gather(run):
    def f(x, idx):
        return x[idx], x[:, idx]

    return run(f)(mat(), Tensor(np.array([2, 0], np.int32)))


def prog_ellipsis_and_none(run):
    def f(x):
        return x[..., 1], x[None, 0].shape, x[:, None, 1]

    return run(f)(mat())


def prog_index_in_tensor_if(run):
    def f(x):
        if x[0, 0] < 1:
            x[0, 0] = 100
        return x[0]

    return run(f)(mat())


def prog_slice_assign_grad(run):
    def f(x):
        y = x * 1
        y[0] = y[0] * 3
        return y.sum()

    return run(ms.grad(f))(Tensor(np.ones((2, 2), np.float32)))


def prog_negative_step_slice(run):
    def f(x):
        return x[::-1], x[:, ::-2]

    return run(f)(mat())


def prog_int_index_variable(run):
    def f(x, i):
        return x[i] + x[i - 1]

    return run(f)(mat(), 2)


def prog_index_add_update(run):
    def f(x):
        x[1] += 10
        return x

    return run(f)(mat())


def prog_gather_ops_and_scatter(run):
    def f(x):
        idx = Tensor(np.array([[0], [2]], np.int32))
        upd = Tensor(np.ones((2, 4), np.float32))
        return ops.gather(x, Tensor(np.array([1], np.int32)), 0), ops.tensor_scatter_update(x, idx, upd)

    return run(f)(mat())
