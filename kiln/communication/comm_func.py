"""Functional collectives (MindSpore's `mindspore.communication.comm_func`).

Each runs one XLA collective across the ranks of `group` (all ranks by default) and must be called by
every member of the group with tensors of the same shape and dtype. In PyNative mode it runs at once; in a
compiled graph (GRAPH_MODE, @jit) it is an equation of the graph, which is compiled as one program over
every rank's devices (then every rank of the world runs the graph, sub-groups included).
`async_op=True` is accepted: the work is already queued on the device when the call returns, and the
returned handle's `wait()` blocks until it is done.
"""

from __future__ import annotations

from kiln._core.tensor import Tensor
from kiln.communication import _collective as C
from kiln.communication.management import GlobalComm

__all__ = ["CommHandle", "all_gather_into_tensor", "all_reduce", "barrier", "broadcast", "reduce_scatter_tensor"]


class CommHandle:
    """The handle of a collective started with `async_op=True`."""

    def __init__(self, result: Tensor | None = None) -> None:
        self._result = result

    def wait(self) -> None:
        """Block until the collective's result is computed."""
        if self._result is not None:
            self._result._data.block_until_ready()


def _check_async(name: str, async_op) -> bool:
    if not isinstance(async_op, bool):
        raise TypeError(f"For '{name}', 'async_op' must be a bool, but got {type(async_op).__name__}.")
    return async_op


def _result(out: Tensor, async_op: bool):
    return out, (CommHandle(out) if async_op else None)


def all_reduce(tensor: Tensor, op: str = C.ReduceOp.SUM, group: str = GlobalComm.WORLD_COMM_GROUP, async_op=False):
    """Reduce `tensor` across the ranks of `group`; every rank gets the result.

    Args:
        tensor: this rank's value.
        op: ReduceOp.SUM (default), MAX, MIN or PROD.
        group: the group (default: all ranks).
        async_op: return a handle to wait on (the result is valid either way).

    Returns:
        (Tensor, CommHandle or None): the reduced tensor, same shape and dtype as `tensor`.
    """
    op = C.check_op("all_reduce", op)
    C.check_group("all_reduce", group)
    async_op = _check_async("all_reduce", async_op)
    return _result(C.run("all_reduce", "all_reduce", tensor, group, op=op), async_op)


def all_gather_into_tensor(tensor: Tensor, group: str = GlobalComm.WORLD_COMM_GROUP, async_op=False):
    """Concatenate every rank's `tensor` along the first axis, in rank order; every rank gets the result.

    Returns:
        (Tensor, CommHandle or None): shape (group_size * n, ...) for an input of shape (n, ...).
    """
    C.check_group("all_gather_into_tensor", group)
    async_op = _check_async("all_gather_into_tensor", async_op)
    return _result(C.run("all_gather_into_tensor", "all_gather", tensor, group), async_op)


def reduce_scatter_tensor(
    tensor: Tensor, op: str = C.ReduceOp.SUM, group: str = GlobalComm.WORLD_COMM_GROUP, async_op=False
):
    """Reduce `tensor` across ranks, then give rank r the r-th of `group_size` equal blocks of the first axis.

    Returns:
        (Tensor, CommHandle or None): shape (n / group_size, ...) for an input of shape (n, ...).
    """
    op = C.check_op("reduce_scatter_tensor", op)
    C.check_group("reduce_scatter_tensor", group)
    async_op = _check_async("reduce_scatter_tensor", async_op)
    return _result(C.run("reduce_scatter_tensor", "reduce_scatter", tensor, group, op=op), async_op)


def broadcast(tensor: Tensor, src: int = 0, group: str = GlobalComm.WORLD_COMM_GROUP):
    """Every rank gets the `tensor` of rank `src` (a rank of `group`).

    Returns:
        Tensor: rank `src`'s value.
    """
    if isinstance(src, bool) or not isinstance(src, int):
        raise TypeError(f"For 'broadcast', 'src' must be an int, but got {type(src).__name__}.")
    C.check_group("broadcast", group)
    return C.run("broadcast", "broadcast", tensor, group, root=src)


def barrier(group: str = GlobalComm.WORLD_COMM_GROUP) -> None:
    """Return once every rank of `group` has called it."""
    C.check_group("barrier", group)
    C.barrier("barrier", group)
