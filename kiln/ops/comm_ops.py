"""Collective communication as Primitive classes (MindSpore's `ops.AllReduce`, `ops.AllGather`, ...).

The instances run across the ranks of their group (see `kiln.communication`), in PyNative mode and inside
compiled graphs (where they lower to XLA's collectives); every member must call them in the same order
with tensors of the same shape and dtype. In a graph, `Barrier` adds no operation: the ranks meet at the
graph's collectives.
"""

from __future__ import annotations

from kiln.communication import _collective as C
from kiln.communication._collective import ReduceOp
from kiln.communication.management import GlobalComm
from kiln.ops.primitive import Primitive

__all__ = ["AllGather", "AllReduce", "AlltoAll", "Barrier", "Broadcast", "ReduceOp", "ReduceScatter"]


def _int_attr(cls: str, name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"For '{cls}', '{name}' must be an int, but got {type(value).__name__}.")
    return value


class _Collective(Primitive):
    def __init__(self, group: str) -> None:
        super().__init__()
        self.add_prim_attr("group", C.check_group(self.name, group))


class _Reducing(_Collective):
    """A collective that reduces with `op` (ReduceOp.SUM, MAX, MIN or PROD); `_collective` names which."""

    _collective = ""

    def __init__(self, op: str = ReduceOp.SUM, group: str = GlobalComm.WORLD_COMM_GROUP) -> None:
        super().__init__(group)
        self.add_prim_attr("op", C.check_op(self.name, op))

    def __call__(self, x):
        return C.run(self.name, self._collective, x, self.group, op=self.op)


class AllReduce(_Reducing):
    """Reduce the input across the ranks of `group`; every rank gets the result.

    Args:
        op: ReduceOp.SUM (default), MAX, MIN or PROD.
        group: the group (default: all ranks).

    Inputs:
        x (Tensor): this rank's value.

    Outputs:
        Tensor of the same shape and dtype.
    """

    _collective = "all_reduce"


class AllGather(_Collective):
    """Concatenate every rank's input along the first axis, in rank order.

    Inputs:
        x (Tensor): shape (n, ...).

    Outputs:
        Tensor of shape (group_size * n, ...).
    """

    def __init__(self, group: str = GlobalComm.WORLD_COMM_GROUP) -> None:
        super().__init__(group)

    def __call__(self, x):
        return C.run(self.name, "all_gather", x, self.group)


class ReduceScatter(_Reducing):
    """Reduce across ranks, then give rank r the r-th of group_size equal blocks of the first axis.

    Args:
        op: ReduceOp.SUM (default), MAX, MIN or PROD.
        group: the group (default: all ranks).

    Inputs:
        x (Tensor): shape (n, ...), n divisible by the group size.

    Outputs:
        Tensor of shape (n / group_size, ...).
    """

    _collective = "reduce_scatter"


class Broadcast(_Collective):
    """Every rank gets the inputs of rank `root_rank` (a rank of `group`).

    Inputs:
        input_x (tuple[Tensor]): this rank's tensors.

    Outputs:
        tuple[Tensor]: rank `root_rank`'s tensors.
    """

    def __init__(self, root_rank: int, group: str = GlobalComm.WORLD_COMM_GROUP) -> None:
        super().__init__(group)
        self.add_prim_attr("root_rank", _int_attr(self.name, "root_rank", root_rank))

    def __call__(self, input_x):
        if not isinstance(input_x, (tuple, list)):
            raise TypeError(
                f"For '{self.name}', the input must be a tuple of Tensors, but got {type(input_x).__name__}."
            )
        return tuple(C.run(self.name, "broadcast", x, self.group, root=self.root_rank) for x in input_x)


class AlltoAll(_Collective):
    """Split the input along `split_dim` into `split_count` blocks, send block j to rank j, and join the
    received blocks along `concat_dim` in rank order.

    Args:
        split_count: the number of blocks; must equal the group size.
        split_dim, concat_dim: the axes to split and to join.
        group: the group (default: all ranks).
    """

    def __init__(self, split_count: int, split_dim: int, concat_dim: int, group=GlobalComm.WORLD_COMM_GROUP):
        super().__init__(group)
        self.add_prim_attr("split_count", _int_attr(self.name, "split_count", split_count))
        self.add_prim_attr("split_dim", _int_attr(self.name, "split_dim", split_dim))
        self.add_prim_attr("concat_dim", _int_attr(self.name, "concat_dim", concat_dim))

    def __call__(self, x):
        size = len(C.M.group_ranks(self.group, self.name))
        if self.split_count != size:
            raise ValueError(
                f"For '{self.name}', 'split_count' ({self.split_count}) must equal the size of group "
                f"'{self.group}' ({size})."
            )
        return C.run(self.name, "all_to_all", x, self.group, split_dim=self.split_dim, concat_dim=self.concat_dim)


class Barrier(_Collective):
    """Wait until every rank of `group` calls it. Called with no inputs."""

    def __init__(self, group: str = GlobalComm.WORLD_COMM_GROUP) -> None:
        super().__init__(group)

    def __call__(self):
        C.barrier(self.name, self.group)
