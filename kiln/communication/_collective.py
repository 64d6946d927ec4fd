"""Collectives on Tensors, shared by `comm_func` and the Primitive classes (`ops.AllReduce`, ...).

Each call lowers to one XLA collective across the group's processes (`kiln._backend.distributed`). They
run in PyNative mode; inside a compiled graph they are refused with a message (not supported yet).
Gradients flow through the sum-reductions as MindSpore defines them: AllReduce(sum) <-> AllReduce(sum),
AllGather <-> ReduceScatter(sum), AllToAll <-> AllToAll.
"""

from __future__ import annotations

from kiln._backend import distributed as D
from kiln._backend import is_tracer
from kiln._core import graph as G
from kiln._core.tensor import Tensor
from kiln._pynative import tape
from kiln.communication import management as M


class ReduceOp:
    """The reduction of AllReduce / ReduceScatter."""

    SUM = "sum"
    MAX = "max"
    MIN = "min"
    PROD = "prod"


_OPS = (ReduceOp.SUM, ReduceOp.MAX, ReduceOp.MIN, ReduceOp.PROD)


def check_op(name: str, op) -> str:
    if not isinstance(op, str) or op.lower() not in _OPS:
        raise TypeError(f"For '{name}', 'op' must be one of {', '.join(_OPS)} (ReduceOp), but got {op!r}.")
    return op.lower()


def check_group(name: str, group) -> str:
    if not isinstance(group, str):
        raise TypeError(f"For '{name}', 'group' must be a str, but got {type(group).__name__}.")
    return group


def _check_tensor(name: str, x) -> None:
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{name}', the input must be a Tensor, but got {type(x).__name__}.")
    data = x._data
    if G.is_symbolic(data) or is_tracer(data):
        raise NotImplementedError(
            f"For '{name}', collective communication runs in PyNative mode only in this version of Kiln; "
            "it cannot be part of a compiled graph (GRAPH_MODE or @jit) yet."
        )


def run(
    name: str,
    kind: str,
    x: Tensor,
    group: str,
    *,
    op: str = ReduceOp.SUM,
    root: int = 0,
    split_dim: int = 0,
    concat_dim: int = 0,
) -> Tensor:
    """Collective `kind` of `x` over `group`; records its derivative while a gradient is taken."""
    _check_tensor(name, x)
    ranks = M.group_ranks(group, f"{name}")
    me = M._world["rank"]
    if me not in ranks:
        raise ValueError(f"For '{name}', rank {me} is not a member of group '{group}' {list(ranks)}.")
    size = len(ranks)
    if kind in ("all_gather", "reduce_scatter", "all_to_all") and x.ndim == 0:
        raise ValueError(f"For '{name}', the input must have at least one dimension, but got a scalar.")
    if kind == "reduce_scatter" and x.shape[0] % size:
        raise ValueError(
            f"For '{name}', the first dimension of the input ({x.shape[0]}) must be divisible by the group "
            f"size ({size})."
        )
    if kind == "all_to_all":
        for what, dim in (("split_dim", split_dim), ("concat_dim", concat_dim)):
            if not -x.ndim <= dim < x.ndim:
                raise ValueError(f"For '{name}', '{what}' {dim} is out of range for a {x.ndim}-D input.")
        split_dim, concat_dim = split_dim % x.ndim, concat_dim % x.ndim
        if x.shape[split_dim] % size:
            raise ValueError(
                f"For '{name}', dimension {split_dim} of the input ({x.shape[split_dim]}) must be divisible by the "
                f"group size ({size})."
            )
    if kind == "broadcast" and not 0 <= root < size:
        raise ValueError(f"For '{name}', the root rank {root} is out of range for group '{group}' of size {size}.")
    dims = {"split_dim": split_dim, "concat_dim": concat_dim}
    try:
        out = Tensor._wrap(D.collective(kind, x._data, ranks, op=op, root=root, **dims))
    except Exception as err:  # noqa: BLE001  (the transport's failure, told in Kiln's terms)
        raise _failed(name, ranks, err) from None
    if tape.recording and x._nodes and x.dtype.kind in "fc":
        backward = _BACKWARD.get((kind, op))
        if backward is not None:
            # AllToAll's derivative sends each block back: the same exchange with the two axes swapped.
            back = {"split_dim": concat_dim, "concat_dim": split_dim}
            tape.record_custom((x,), (out,), lambda cots: (run(name, backward, cots[0], group, **back),))
    return out


_BACKWARD = {
    ("all_reduce", ReduceOp.SUM): "all_reduce",
    ("all_gather", ReduceOp.SUM): "reduce_scatter",
    ("reduce_scatter", ReduceOp.SUM): "all_gather",
    ("all_to_all", ReduceOp.SUM): "all_to_all",
}


def barrier(name: str, group: str) -> None:
    ranks = M.group_ranks(group, name)
    if M._world["rank"] not in ranks:
        raise ValueError(f"For '{name}', rank {M._world['rank']} is not a member of group '{group}' {list(ranks)}.")
    if len(ranks) > 1:
        try:
            D.barrier(ranks)
        except Exception as err:  # noqa: BLE001
            raise _failed(name, ranks, err) from None


def _failed(name: str, ranks, err: Exception) -> RuntimeError:
    detail = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
    return RuntimeError(
        f"For '{name}', the collective among ranks {list(ranks)} failed; another rank may have stopped or died "
        f"(see its log). Backend detail: {detail}"
    )
