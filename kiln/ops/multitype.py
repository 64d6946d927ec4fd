"""MindSpore's composite helpers: `MultitypeFuncGraph`, `HyperMap`, `Map`, `partial`, `depend`, `constexpr`.

MindSpore programs (and its own optimizers) use them to apply one function over tuples of parameters and
gradients. In Kiln they are ordinary Python: a graph-mode capture sees through them like any other call.
"""

from __future__ import annotations

import functools
import numbers
from collections.abc import Callable

from kiln._compiler.ir import graph as G
from kiln._core.tensor import Tensor
from kiln._pynative.autograd import constexpr_value
from kiln._pynative.nested import call_with_graph_semantics

__all__ = ["HyperMap", "Map", "MultitypeFuncGraph", "constexpr", "depend", "partial", "primexpr"]


def _matches(type_name, value) -> int:
    """How well `value` fits MindSpore type name `type_name`: 0 (no), 1 (a generic kind), 2 (exactly)."""
    name = getattr(type_name, "__name__", None) if not isinstance(type_name, str) else type_name
    if name is None:
        name = str(type_name)
    name = name.lower()
    if name in ("tensor", "tensortype", "parameter"):
        return 2 if isinstance(value, Tensor) else 0
    if name in ("bool", "bool_"):
        return 2 if isinstance(value, bool) else 0
    if name in ("int", "int64", "int32"):
        return 2 if isinstance(value, numbers.Integral) and not isinstance(value, bool) else 0
    if name in ("float", "float32", "float64"):
        return 2 if isinstance(value, float) else 0
    if name == "number":
        return 1 if isinstance(value, numbers.Number) else 0
    if name in ("string", "str"):
        return 2 if isinstance(value, str) else 0
    if name == "tuple":
        return 2 if isinstance(value, tuple) else 0
    if name == "list":
        return 2 if isinstance(value, list) else 0
    if name in ("dict", "dictionary"):
        return 2 if isinstance(value, dict) else 0
    if name in ("none", "nonetype"):
        return 2 if value is None else 0
    if name in ("function", "func"):
        return 1 if callable(value) else 0
    if name in ("undetermined", "any"):
        return 1
    return 1 if type(value).__name__.lower() == name else 0


class MultitypeFuncGraph:
    """A function with one implementation per argument-type signature, chosen at each call.

    `@fn.register("Tensor", "Number")` adds an implementation; a call runs the one whose type names fit the
    arguments best (MindSpore's names: Tensor, Number, Int, Float, Bool, String, Tuple, List, Dict, None,
    Function).
    """

    def __init__(self, name: str, read_value: bool = False, doc_url: str = "") -> None:
        self.name = name
        self.read_value = read_value
        self.entries: list[tuple[tuple, Callable]] = []

    def register(self, *type_names):
        def deco(fn):
            self.entries.append((type_names, fn))
            return fn

        return deco

    def names_sequences_of(self, args) -> bool:
        """Whether an implementation takes `args` as they are, naming each tuple or list among them by its type
        (`HyperMap` then calls it with the sequences instead of mapping over them).

        Args:
            args: the arguments of one call.

        Returns:
            True when some registered signature fits every argument and says Tuple/List where one is a sequence.
        """
        for types, _ in self.entries:
            if len(types) != len(args):
                continue
            scores = [_matches(t, a) for t, a in zip(types, args, strict=True)]
            if all(scores) and all(s == 2 for s, a in zip(scores, args, strict=True) if isinstance(a, (tuple, list))):
                return True
        return False

    def __call__(self, *args):
        best, best_score = None, -1
        for types, fn in self.entries:
            if len(types) != len(args):
                continue
            scores = [_matches(t, a) for t, a in zip(types, args)]
            if all(scores) and sum(scores) > best_score:
                best, best_score = fn, sum(scores)
        if best is None:
            found = ", ".join(type(a).__name__ for a in args)
            raise TypeError(
                f"For '{self.name}', no registered implementation takes ({found}); registered: "
                f"{[list(t) for t, _ in self.entries]}."
            )
        trace = G.current()
        if trace is not None:  # user code: compiled as the graph's own (a Tensor `if` in it becomes a branch)
            return call_with_graph_semantics(trace, best, args)
        return best(*args)

    def __repr__(self) -> str:
        return f"MultitypeFuncGraph({self.name})"


def _apply_over(fn, args, reverse: bool, deep: bool):
    seqs = [a for a in args if isinstance(a, (tuple, list))]
    if not seqs or (isinstance(fn, MultitypeFuncGraph) and fn.names_sequences_of(args)):
        return fn(*args)  # (an implementation registered for these sequences takes them whole, as MindSpore)
    n = len(seqs[0])
    if any(len(s) != n for s in seqs):
        raise ValueError(f"HyperMap/Map: the sequences have different lengths {[len(s) for s in seqs]}.")
    order = range(n - 1, -1, -1) if reverse else range(n)
    out = [None] * n
    for i in order:
        items = [a[i] if isinstance(a, (tuple, list)) else a for a in args]
        if deep and any(isinstance(x, (tuple, list)) for x in items):
            out[i] = _apply_over(fn, items, reverse, deep)
        else:
            out[i] = fn(*items)
    return tuple(out)


class HyperMap:
    """Apply `ops` (or the function given first at call time) elementwise over sequences, recursively.

    Args:
        ops: the function to apply; None: the first call argument is the function.
        reverse: visit the elements in reverse order (results keep their positions).
    """

    def __init__(self, ops=None, reverse: bool = False) -> None:
        self.ops = ops
        self.reverse = reverse

    def __call__(self, *args):
        fn, rest = (self.ops, args) if self.ops is not None else (args[0], args[1:])
        return _apply_over(fn, rest, self.reverse, deep=True)


class Map(HyperMap):
    """Like `HyperMap`, over the top level of the sequences only."""

    def __call__(self, *args):
        fn, rest = (self.ops, args) if self.ops is not None else (args[0], args[1:])
        return _apply_over(fn, rest, self.reverse, deep=False)


def partial(func, *args):
    """`func` with its first arguments fixed (MindSpore's `F.partial`)."""
    return functools.partial(func, *args)


def depend(value, expr):
    """`value`, after `expr` (MindSpore orders side effects with it; Kiln keeps program order anyway)."""
    return value


class ConstExpr:
    """A function marked `@constexpr`: called as it is (Kiln's graph capture runs Python functions of constants while
    compiling), except inside a gradient that reuses a forward, where each call returns what that forward's call
    returned (MindSpore runs the function in the forward only; `autograd.constexpr_value`)."""

    def __init__(self, fn: Callable):
        if not callable(fn):
            raise TypeError(f"constexpr: expected a function, but got {type(fn).__name__}.")
        self.fn = fn
        functools.update_wrapper(self, fn, assigned=("__name__", "__qualname__", "__doc__"), updated=())

    def __call__(self, *args, **kwargs):
        return constexpr_value(self.fn, args, kwargs)


def constexpr(fn=None, get_instance: bool = True, reuse_result: bool = True, check: bool = True):
    """Mark a function evaluated on constants at compile time (MindSpore's `constexpr`): returns a `ConstExpr`
    (usable as `@constexpr` or `@constexpr(...)`)."""
    if fn is None:
        return ConstExpr
    return ConstExpr(fn)


primexpr = constexpr
