"""The faces table's record (`Row`), the face tables its rows fill, and the `ops` namespace adapters call."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from types import SimpleNamespace

__all__ = ["CLASSES", "FUNCTIONAL", "METHODS", "MINT", "ROW_OF", "Row", "ops", "_named"]


@dataclass(frozen=True)
class Row:
    """One op and its faces.

    Args:
        prim: the `PrimitiveDef` name (`kiln._prims`); None for a "family" row whose op composes others.
        kind: "unary" or "binary" (the functional face is one apply over its inputs), "custom" (`impl` is),
            "family" (the functional face is hand-written in its `kiln.ops` family module, over its primitives,
            and bound here by `bind_family_faces`; the row names its other faces), "mint" (an op only mint has), or
            "primitive" (an op whose one face is its Primitive class, hand-written in kiln.ops.operations).
        functional: the `kiln.ops` names; each unary/binary name gets its own function, named for it.
        impl: the functional face of a "custom" row (its argument adapter over the primitive).
        aliases: {further `kiln.ops` name: functional name} (the same object).
        classes: {Primitive class name: functional name it calls}; `cls_base` when it has constructor attributes.
        methods: {Tensor method name: functional name} (the method is that function) or adapters in `method_impl`.
        forwarded: Tensor methods `t.name(...)` that call `ops.name(t, ...)` (MindSpore's Tensor-method form).
        operators: {Tensor operator name: functional name}; a reflected operator (`__rsub__`) swaps the operands.
        mint: {mint name: functional name}, or adapters in `mint_impl`.
        numpy: `kiln.numpy` names built by kiln.numpy's own wrapper over one of the row's functional faces
            (array-like inputs, dtype=); the wrapper's `op` is that face.
    """

    prim: str | None
    kind: str
    functional: tuple[str, ...] = ()
    impl: Callable | None = None
    aliases: dict = field(default_factory=dict)
    classes: dict = field(default_factory=dict)
    cls_base: type | None = None
    methods: dict = field(default_factory=dict)
    method_impl: dict = field(default_factory=dict)
    forwarded: tuple[str, ...] = ()
    operators: dict = field(default_factory=dict)
    mint: dict = field(default_factory=dict)
    mint_impl: dict = field(default_factory=dict)
    numpy: tuple[str, ...] = ()


# The table's adapters call other ops as `ops.<name>`: kiln.ops's public names, which `bind_family_faces` puts here
# once the family modules are loaded (they import the table, so it cannot import them).
ops = SimpleNamespace()


def _named(name: str) -> Callable:
    """Give an adapter its public name (`mint.sum`'s adapter is `_mint_sum` here, beside builtins it would shadow)."""

    def name_it(fn: Callable) -> Callable:
        fn.__name__ = fn.__qualname__ = name
        return fn

    return name_it


# The face tables, filled by kiln/ops/faces/__init__.py from the rows
FUNCTIONAL: dict[str, Callable] = {}
CLASSES: dict[str, type] = {}
METHODS: dict[str, Callable] = {}
MINT: dict[str, Callable] = {}
ROW_OF: dict[tuple[str, str], Row] = {}  # (face kind, name) -> row
