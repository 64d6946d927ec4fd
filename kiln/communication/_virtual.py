"""Ranks on the devices of one process, for tests and experiments (`virtual_ranks`).

In a job every rank is a process. Within `virtual_ranks(n)` the first `n` devices of this process stand
for `n` ranks instead (e.g. with `XLA_FLAGS=--xla_force_host_platform_device_count=4` on a CPU): a
Tensor made by `to_ranks([v0, v1, ...])` holds rank r's value on device r, and collectives, in PyNative
and in compiled graphs, run between the devices through the same lowering as between processes.
Python code sees rank 0 (`get_rank()`); what differs between ranks must be in the tensors.
"""

from __future__ import annotations

import contextlib

from kiln._backend import distributed as D
from kiln._core.tensor import Tensor
from kiln.communication import management as M

__all__ = ["from_ranks", "to_ranks", "virtual_ranks"]


@contextlib.contextmanager
def virtual_ranks(n: int):
    """A world of `n` ranks made of this process's first `n` devices (see the module docstring).

    Raises:
        ValueError: the process has fewer than `n` devices.
    """
    saved_world, saved = dict(M._world), (M.GlobalComm.INITED, M.GlobalComm.BACKEND, M.GlobalComm.WORLD_COMM_GROUP)
    with D.virtual_ranks(n):
        M._world.update(rank=0, size=n, local_rank=0, local_size=n, multi=False)
        if not M.GlobalComm.INITED:
            M.GlobalComm.INITED, M.GlobalComm.BACKEND = True, "mccl"
            M.GlobalComm.WORLD_COMM_GROUP = M.MCCL_WORLD_COMM_GROUP
        try:
            yield
        finally:
            M._world.clear()
            M._world.update(saved_world)
            M.GlobalComm.INITED, M.GlobalComm.BACKEND, M.GlobalComm.WORLD_COMM_GROUP = saved


def to_ranks(values) -> Tensor:
    """Inside `virtual_ranks`: a Tensor whose value on rank r is `values[r]` (NumPy arrays of one shape)."""
    return Tensor._wrap(D.to_ranks(list(values)))


def from_ranks(x: Tensor) -> list:
    """Inside `virtual_ranks`: the value of `x` on each rank, as NumPy arrays."""
    return D.from_ranks(x._data)


def active() -> bool:
    """True inside `virtual_ranks`."""
    return D._virtual["mesh"] is not None
