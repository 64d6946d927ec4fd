"""The collectives as Kiln primitives: one declaration each, read by every execution path.

- PyNative (`_collective.run` on concrete tensors): the declaration's `impl` runs the collective at once, as
  a program of one collective over the group's devices (`kiln._backend.distributed.collective`).
- Graph recording: a call on a symbolic tensor appends an equation (AllReduce[op, ranks], ...).
- Lowering: the same `impl`, traced inside the compiled graph, lowers to XLA's collectives over the rank
  axis (`lower_collective`: psum, all_gather, psum_scatter, all_to_all); a graph holding one is compiled
  as one program over every rank's devices (`spmd_jit`, chosen by the graph compiler with `spmd_needed`).
- Autodiff: the derivative rules below (`BACKWARD`), as MindSpore defines them, used by graph-mode
  gradients (the declaration's `vjp`) and by the PyNative tape (`_collective.run`).

The group is resolved to its world ranks when the op is called; the ranks are an attribute, so a graph
is compiled for one group.
"""

from __future__ import annotations

from kiln._backend import distributed as D
from kiln._backend import is_tracer, jnp
from kiln._core.primitive import PrimitiveDef

__all__ = ["BACKWARD", "PRIMS", "backward", "call"]


def call(kind: str, x, ranks: tuple, op: str = "sum", root: int = 0, split_dim: int = 0, concat_dim: int = 0):
    """Collective `kind` of this rank's array `x`: lowered in a compiled program, run at once otherwise."""
    kw = {"op": op, "root": root, "split_dim": split_dim, "concat_dim": concat_dim}
    if is_tracer(x):
        return D.lower_collective(kind, x, tuple(ranks), **kw)
    return D.collective(kind, x, tuple(ranks), **kw)


def backward(kind: str, x, out, dout, ranks: tuple, op: str = "sum", root: int = 0, split_dim=0, concat_dim=0):
    """The cotangent of `x` (MindSpore's rules), or None where the collective has no derivative.

    AllReduce(sum): AllReduce(sum) of the cotangent; (max/min): that, where x is the result;
    (prod): AllReduce(sum)(dout * out) / x. AllGather: ReduceScatter(sum). ReduceScatter(sum): AllGather.
    Broadcast: the cotangent itself. AlltoAll: AlltoAll with split and concat axes swapped.
    """
    if kind == "all_reduce":
        if op == "sum":
            return call("all_reduce", dout, ranks)
        if op == "prod":
            return call("all_reduce", dout * out, ranks) / x
        return call("all_reduce", dout, ranks) * (x == out).astype(dout.dtype)
    if kind == "all_gather":
        return call("reduce_scatter", dout, ranks)
    if kind == "reduce_scatter":
        return call("all_gather", dout, ranks) if op == "sum" else None
    if kind == "broadcast":
        return dout
    if kind == "all_to_all":
        return call("all_to_all", dout, ranks, split_dim=concat_dim, concat_dim=split_dim)
    return None


BACKWARD = backward


def _declare(name: str, kind: str, attrs: dict) -> PrimitiveDef:
    def impl(x, **kw):
        return call(kind, x, **kw)

    def vjp(x, out, dout, **kw):
        g = backward(kind, x, out, dout, **kw)
        return (jnp.zeros_like(x) if g is None else g,)

    prim = PrimitiveDef(name, impl, attrs={**attrs, "ranks": ()}, vjp=vjp)
    D.CROSS_RANK_PRIMS.add(name)
    return prim


PRIMS = {
    "all_reduce": _declare("AllReduce", "all_reduce", {"op": "sum"}),
    "all_gather": _declare("AllGather", "all_gather", {}),
    "reduce_scatter": _declare("ReduceScatter", "reduce_scatter", {"op": "sum"}),
    "broadcast": _declare("Broadcast", "broadcast", {"root": 0}),
    "all_to_all": _declare("AlltoAll", "all_to_all", {"split_dim": 0, "concat_dim": 0}),
}


def attrs_of(kind: str, ranks: tuple, op: str, root: int, split_dim: int, concat_dim: int) -> tuple:
    """The attribute tuple of `kind`'s primitive, in declaration order."""
    values = {"op": op, "root": root, "split_dim": split_dim, "concat_dim": concat_dim, "ranks": tuple(ranks)}
    return tuple(values[n] for n in PRIMS[kind].attr_names)
