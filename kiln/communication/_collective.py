"""Collectives on Tensors, shared by `comm_func` and the Primitive classes (`ops.AllReduce`, ...).

Each collective is a Kiln primitive (`_prims`): on a concrete tensor it runs at once across the group's
ranks; on a symbolic tensor (GRAPH_MODE, @jit) it is recorded as an equation and lowers to XLA's
collectives inside the compiled program. Gradients follow MindSpore's rules (`_prims.backward`):
AllReduce(sum) <-> AllReduce(sum), AllGather <-> ReduceScatter(sum), AllToAll <-> AllToAll.
"""

from __future__ import annotations

from kiln._backend import distributed as D
from kiln._backend import is_tracer
from kiln._compiler.ir import graph as G
from kiln._core.tensor import Tensor
from kiln._prims import comm as _prims
from kiln._pynative import tape
from kiln._pynative.dispatch import apply
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
        raise TypeError(f"{name} communicates Tensors; it got a {type(x).__name__} (wrap it with Tensor(...)).")
    if is_tracer(x._data):
        raise NotImplementedError(
            f"For '{name}', collective communication cannot run inside a backend transformation (vmap); use it "
            "in PyNative mode or in a Kiln graph (GRAPH_MODE, @jit)."
        )


def recording() -> bool:
    """True while a graph is being recorded (a collective on a symbolic tensor becomes an equation)."""
    return bool(G._TRACES) and G._TRACES[-1] is not None


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
    if me not in ranks and not D._virtual["mesh"]:
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
    attrs = _prims.attrs_of(kind, ranks, op, root, split_dim, concat_dim)
    if G.is_symbolic(x._data):
        return apply(_prims.PRIMS[kind], (x,), attrs)  # recorded; lowered inside the compiled graph
    kw = _prims.PRIMS[kind].attrs_dict(attrs)
    try:
        out = Tensor._wrap(_prims.call(kind, x._data, **kw))
    except Exception as err:  # noqa: BLE001  (the transport's failure, told in Kiln's terms)
        raise _failed(name, ranks, err) from None
    if tape.recording and x._nodes and x.dtype.kind in "fc":

        def rule(cots):
            g = _prims.backward(kind, x._data, out._data, cots[0]._data, **kw)
            return (None if g is None else Tensor._wrap(g),)

        tape.record_custom((x,), (out,), rule)
    return out


def barrier(name: str, group: str) -> None:
    ranks = M.group_ranks(group, name)
    if M._world["rank"] not in ranks:
        raise ValueError(f"For '{name}', rank {M._world['rank']} is not a member of group '{group}' {list(ranks)}.")
    if recording():
        return  # in a compiled graph the ranks meet at its collectives; a Barrier adds no operation
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
