"""A frame's state at a graph boundary: its signature (the cache key), its Tensors (graph inputs), and how
values leaving a captured segment are rebuilt on each call.

Entering a segment, the live values (arguments, or locals, cells and stack at a resume point) are flattened:
Tensors become graph inputs keyed by shape and dtype, Python scalars are keyed by type and value, lists,
tuples and dicts by length and keys (recursively), other objects by identity. Leaving it, every value is
encoded as a template over the graph's outputs: Tensors are outputs, lists and dicts made inside are
rebuilt, containers the caller passed in are referred to by their path in the entry state.
"""

from __future__ import annotations

import types

import numpy as np

from kiln._compiler.frontend.ast.values import MISSING
from kiln._compiler.frontend.bytecode.instructions import NULL, SeqIter
from kiln._compiler.ir import graph as G
from kiln._core.mutable import MutableFloat, MutableInt, MutableValue
from kiln._core.tensor import Parameter, Tensor


class _Step:
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f".{self.name}"


ITEMS, CELL, SELF = _Step("items"), _Step("cell_contents"), _Step("__self__")  # path steps that are not keys
_SCALARS = (int, float, bool, str, type(None), complex, bytes, type(Ellipsis))


class Unrebuildable(Exception):  # noqa: N818
    """A value crossing a graph boundary that cannot be rebuilt from the graph's outputs."""


class Entry:
    """A frame about to run from instruction `pc`: `values` in `layout` order (see `Frame` construction)."""

    __slots__ = ("pc", "layout", "values")

    def __init__(self, pc: int, layout: tuple, values: list) -> None:
        self.pc, self.layout, self.values = pc, layout, values


def flatten(values: list):
    """(key, leaves, templates, paths (one per key item), refs) of an entry state."""
    sig: list = []
    names: list = []
    leaves: list = []
    refs: list = []
    memo: dict = {}

    def flat(x, path):
        t = type(x)
        if isinstance(x, Tensor) and not isinstance(x, Parameter):
            # one Tensor reached by two paths (a local and a bound method's `__self__` on the stack) is one graph
            # input, so a write through either path is seen through the other
            seen = memo.get(id(x))
            if seen is not None:
                sig.append(("alias", seen))
                names.append(path)
                return ("ref", seen)
            memo[id(x)] = path
        if t is Tensor:
            leaves.append(x._data)
            d = x._data
            sig.append((d.shape, d.dtype))
            names.append(path)
            return ("t", len(leaves) - 1, path)
        if isinstance(x, Parameter):
            sig.append(("P", id(x)))
            names.append(path)
            refs.append(x)
            return ("c", x)
        if isinstance(x, Tensor):
            leaves.append(x._data)
            sig.append((x._data.shape, x._data.dtype))
            names.append(path)
            return ("t", len(leaves) - 1, path)
        if t in _SCALARS:
            sig.append((t, x))
            names.append(path)
            return ("c", x)
        if isinstance(x, MutableValue) and t in (MutableInt, MutableFloat):
            return flat(Tensor(x), path)
        if x is NULL:
            sig.append("NULL")
            names.append(path)
            return ("c", x)
        seen = memo.get(id(x))
        if seen is not None:
            sig.append(("alias", seen))
            names.append(path)
            return ("ref", seen)
        if t is tuple or (isinstance(x, tuple) and hasattr(x, "_fields")):
            sig.append((t, len(x)))
            names.append(path)
            return ("tuple", t, [flat(v, (*path, i)) for i, v in enumerate(x)])
        if t is list:
            memo[id(x)] = path
            sig.append((list, len(x)))
            names.append(path)
            return ("list", path, [flat(v, (*path, i)) for i, v in enumerate(x)])
        if t is dict:
            memo[id(x)] = path
            keys = tuple(x)
            try:
                hash(keys)
                sig.append((dict, keys))
            except TypeError:
                sig.append((dict, id(x)))
            names.append(path)
            return ("dict", path, keys, [flat(v, (*path, k)) for k, v in x.items()])
        if t is SeqIter:
            memo[id(x)] = path
            sig.append((SeqIter, x.i, len(x.items)))
            names.append(path)
            return ("iter", x.i, flat(tuple(x.items), (*path, ITEMS)))
        if t is types.CellType:
            memo[id(x)] = path
            try:
                v = x.cell_contents
            except ValueError:
                sig.append(("cell-empty",))
                names.append(path)
                return ("cell", None)
            sig.append(("cell",))
            names.append(path)
            return ("cell", flat(v, (*path, CELL)))
        if t is types.MethodType:
            sig.append(("meth", id(x.__func__)))
            names.append(path)
            refs.append(x.__func__)
            return ("meth", x.__func__, flat(x.__self__, (*path, SELF)))
        if t is types.BuiltinMethodType and type(getattr(x, "__self__", None)) in (list, dict, set):
            sig.append(("bmeth", x.__name__))
            names.append(path)
            return ("bmeth", x.__name__, flat(x.__self__, (*path, SELF)))
        if isinstance(x, np.generic):
            sig.append((t, x.tobytes()))
            names.append(path)
            return ("c", x)
        if t is np.ndarray and x.size <= 4096:  # a host value (e.g. from asnumpy()): keyed by its value
            sig.append((np.ndarray, x.shape, x.dtype.str, x.tobytes()))
            names.append(path)
            return ("c", x)
        if t is slice and all(type(v) in _SCALARS for v in (x.start, x.stop, x.step)):
            sig.append((slice, x.start, x.stop, x.step))
            names.append(path)
            return ("c", x)
        refs.append(x)
        sig.append(("o", id(x)))
        names.append(path)
        return ("c", x)

    templates = [flat(v, (i,)) for i, v in enumerate(values)]
    return tuple(sig), leaves, templates, names, refs


def rebuild(templates: list, tensors: list, tx) -> list:
    """The entry values inside a capture: symbolic Tensors for the leaves; containers registered with `tx`."""
    memo: dict = {}

    def build(t):
        kind = t[0]
        if kind == "c":
            return t[1]
        if kind == "t":
            v = memo[t[2]] = tensors[t[1]]
            tx.entry_tensors[id(v)] = (t[2], v, v._data)
            return v
        if kind == "ref":
            return memo[t[1]]
        if kind == "tuple":
            items = [build(x) for x in t[2]]
            return t[1](*items) if t[1] is not tuple else tuple(items)
        if kind == "list":
            out: list = []
            memo[t[1]] = out
            tx.external[id(out)] = ("entry", t[1])
            tx.keep.append(out)
            out.extend(build(x) for x in t[2])
            return out
        if kind == "dict":
            d: dict = {}
            memo[t[1]] = d
            tx.external[id(d)] = ("entry", t[1])
            tx.keep.append(d)
            for k, x in zip(t[2], t[3], strict=True):
                d[k] = build(x)
            return d
        if kind == "iter":
            return tx.fresh_obj(SeqIter(build(t[2]), t[1]))
        if kind == "cell":
            return tx.fresh_obj(types.CellType() if t[1] is None else types.CellType(build(t[1])))
        if kind == "meth":
            return types.MethodType(t[1], build(t[2]))
        if kind == "bmeth":
            return getattr(build(t[2]), t[1])
        raise AssertionError(kind)

    return [build(t) for t in templates]


def _holds_graph_values(v) -> bool:
    """A list or dict made by code run whole during the capture (a gradient transform's result) that holds
    values of the graph: rebuilt from the graph's outputs, not kept as a constant."""
    items = v.values() if type(v) is dict else v if type(v) is list else ()
    return any(isinstance(x, Tensor) and G.is_symbolic(x._data) for x in items)


class Encoder:
    """Templates for values leaving a capture; Tensors are collected as the graph's outputs."""

    def __init__(self, tx) -> None:
        self.tx = tx
        self.outs: list = []
        self.out_ids: dict = {}
        self.memo: dict = {}

    def tensor(self, v):
        k = self.out_ids.get(id(v))
        if k is None:
            k = self.out_ids[id(v)] = len(self.outs)
            self.outs.append(v)
        return ("o", k)

    def __call__(self, v):
        tx = self.tx
        t = type(v)
        if t in _SCALARS or v is NULL:
            return ("c", v)
        if isinstance(v, Tensor):
            if isinstance(v, Parameter):
                return ("c", v)
            ent = tx.entry_tensors.get(id(v))
            if ent is not None and ent[1] is v:
                # the caller's own Tensor stays itself past the break; a write to it is replayed into it (a
                # "tensor" effect, applied before the frame is decoded), so later pieces write the same object
                return ("entry", ent[0])
            return self.tensor(v)
        ext = tx.external.get(id(v))
        if ext is not None:
            return ext
        n = self.memo.get(id(v))
        if n is not None:
            return ("same", n)
        if t is tuple or (isinstance(v, tuple) and hasattr(v, "_fields")):
            return ("tuple", t, [self(x) for x in v])
        if t is types.MethodType:
            return ("meth", v.__func__, self(v.__self__))
        if t is types.BuiltinMethodType and type(getattr(v, "__self__", None)) in (list, dict, set):
            return ("bmeth", v.__name__, self(v.__self__))
        if not tx.is_local(v) and not _holds_graph_values(v):
            return ("c", v)
        n = self.memo[id(v)] = len(self.memo)
        if t is list:
            return ("list", n, [self(x) for x in v])
        if t is dict:
            return ("dict", n, [self(k) for k in v], [self(x) for x in v.values()])
        if t is set:
            return ("set", n, [self(x) for x in v])
        if t is SeqIter:
            return ("iter", n, v.i, [self(x) for x in v.items])
        if t is types.CellType:
            try:
                return ("cell", n, self(v.cell_contents))
            except ValueError:
                return ("cell", n, None)
        if t is types.FunctionType and not v.__closure__:
            return ("c", v)
        raise Unrebuildable(f"a {t.__name__} made inside the function is still live at the graph break")


def decode(t, outs, entry: list, memo: dict):
    """The runtime value of template `t` (graph outputs `outs`, the segment's entry values)."""
    kind = t[0]
    if kind == "c":
        return t[1]
    if kind == "o":
        return outs[t[1]]
    if kind == "entry":
        v = entry[t[1][0]]
        for k in t[1][1:]:
            v = v.items if k is ITEMS else v.cell_contents if k is CELL else v.__self__ if k is SELF else v[k]
        return v
    if kind == "same":
        return memo[t[1]]
    if kind == "tuple":
        items = [decode(x, outs, entry, memo) for x in t[2]]
        return t[1](*items) if t[1] is not tuple else tuple(items)
    if kind == "list":
        out: list = []
        memo[t[1]] = out
        out.extend(decode(x, outs, entry, memo) for x in t[2])
        return out
    if kind == "dict":
        d: dict = {}
        memo[t[1]] = d
        for k, x in zip(t[2], t[3], strict=True):
            d[decode(k, outs, entry, memo)] = decode(x, outs, entry, memo)
        return d
    if kind == "set":
        s: set = set()
        memo[t[1]] = s
        s.update(decode(x, outs, entry, memo) for x in t[2])
        return s
    if kind == "iter":
        it = SeqIter(None, t[2])
        memo[t[1]] = it
        it.items = tuple(decode(x, outs, entry, memo) for x in t[3])
        return it
    if kind == "cell":
        c = types.CellType()
        memo[t[1]] = c
        if t[2] is not None:
            c.cell_contents = decode(t[2], outs, entry, memo)
        return c
    if kind == "meth":
        return types.MethodType(t[1], decode(t[2], outs, entry, memo))
    if kind == "bmeth":
        return getattr(decode(t[2], outs, entry, memo), t[1])
    raise AssertionError(kind)


__all__ = ["MISSING", "Encoder", "Entry", "Unrebuildable", "decode", "flatten", "rebuild"]
