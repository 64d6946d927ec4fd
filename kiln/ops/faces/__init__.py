"""The faces table: one row per op, naming every face the op has in the public API.

An op is one primitive declaration (`kiln._prims`) plus one row here. The row names its functional face(s)
(`ops.add`), its Primitive class (`ops.Add`), its Tensor methods and operators (`Tensor.add`, `+`), its
`kiln.mint` and `kiln.numpy` names, and an argument adapter wherever a face's signature differs from the
functional one. Every face is built here from its row; the family modules (`ops.math`, `ops.array`,
`ops.nn.conv`, ...), `kiln.mint`, `kiln.numpy` and the Tensor-method installer only bind the built objects by
name, so a name cannot drift from its op (`tests/ops/test_faces.py` walks the table). A hand-written face is
the row's own code, next to the row, with a comment saying why.
"""

from __future__ import annotations

from collections.abc import Callable
from types import FunctionType

from kiln.ops._helpers import REGISTRY, make_binary, make_unary
from kiln.ops.faces.custom import CUSTOM_ROWS
from kiln.ops.faces.elementwise import ELEMENTWISE_ROWS
from kiln.ops.faces.family import FAMILY_ROWS
from kiln.ops.faces.not_ops import NOT_OPS
from kiln.ops.faces.row import CLASSES, FUNCTIONAL, METHODS, MINT, ROW_OF, Row, ops
from kiln.ops.primitive import Primitive

__all__ = [
    "CLASSES", "FUNCTIONAL", "METHODS", "MINT", "NOT_OPS", "ROWS", "Row", "bind_family_faces", "functional",
    "numpy_rows",
]  # fmt: skip

# Every row, in the order its faces are built: the elementwise and custom rows' faces are built here at import,
# the family and mint rows' when `bind_family_faces` is called
ROWS: list[Row] = [*ELEMENTWISE_ROWS, *CUSTOM_ROWS, *FAMILY_ROWS]


# ---- the faces, built from the rows ------------------------------------------------------------------------------
def _build_functional(row: Row, name: str) -> Callable:
    if row.kind == "custom":
        return row.impl
    return (make_unary if row.kind == "unary" else make_binary)(row.prim, name)


def _build_class(row: Row, cls_name: str, fn: Callable) -> type:
    if row.cls_base is not None:
        doc = f"`{cls_name}(...)(x, weight)`: the Primitive class of `{fn.__name__}` (see its constructor)."
        return type(cls_name, (row.cls_base,), {"_prim": REGISTRY[row.prim], "__doc__": doc, "__module__": __name__})

    def init(self) -> None:
        Primitive.__init__(self, cls_name)

    doc = f"Primitive {cls_name}: `{cls_name}()(*inputs)` is `ops.{fn.__name__}(*inputs)`."
    # A static `__call__`: calling an instance calls `fn` itself, with no forwarding frame (layers call their held
    # instances on every step: nn.ReLU's `relu`)
    attrs = {"__init__": init, "__call__": staticmethod(fn), "__doc__": doc, "__module__": __name__}
    return type(cls_name, (Primitive,), attrs)


# Python's reflected operators (`1 - t` calls `t.__rsub__(1)`): their face swaps the operands
_REFLECTED = frozenset(f"__r{op}__" for op in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul"))


def _swapped(fn: Callable) -> Callable:
    def reflected(self, other):
        return fn(other, self)

    return reflected


def _forwarding(fn: Callable, name: str) -> Callable:
    def method(self, *args, **kwargs):
        return fn(self, *args, **kwargs)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"`ops.{name}(self, ...)`."
    return method


def _build_faces(row: Row) -> None:
    """Every face of `row` except its functional ones (already in FUNCTIONAL), into the tables above."""
    for alias, name in row.aliases.items():
        FUNCTIONAL[alias] = FUNCTIONAL[name]
        ROW_OF[("functional", alias)] = row
    for cls, name in row.classes.items():
        if ("class", cls) in ROW_OF:
            raise ImportError(f"kiln.ops.faces: two rows give the class face {cls!r}")
        # a family row's Primitive class is written by hand in kiln.ops.operations; the table builds the others
        hand_written = row.kind in ("family", "primitive")
        CLASSES[cls] = getattr(ops, cls) if hand_written else _build_class(row, cls, FUNCTIONAL[name])
        ROW_OF[("class", cls)] = row
    faces = {
        "method": {
            **{m: FUNCTIONAL[name] for m, name in row.methods.items()},
            **row.method_impl,
            **{m: _forwarding(FUNCTIONAL[m], m) for m in row.forwarded},
            **{m: _swapped(FUNCTIONAL[n]) if m in _REFLECTED else FUNCTIONAL[n] for m, n in row.operators.items()},
        },
        "mint": {**{m: FUNCTIONAL[name] for m, name in row.mint.items()}, **row.mint_impl},
    }
    for kind, table in (("method", METHODS), ("mint", MINT)):
        for name, face in faces[kind].items():
            if name in table:
                raise ImportError(f"kiln.ops.faces: two rows give the {kind} face {name!r}")
            if isinstance(face, FunctionType) and face.__name__ in ("<lambda>", "method"):
                face.__name__ = face.__qualname__ = name  # an adapter made here is named for its face
            table[name] = face
            ROW_OF[(kind, name)] = row
    for name in row.numpy:
        ROW_OF[("numpy", name)] = row


for _row in ROWS:
    if _row.kind not in ("family", "primitive"):
        for _name in _row.functional:
            FUNCTIONAL[_name] = _build_functional(_row, _name)
            ROW_OF[("functional", _name)] = _row
        _build_faces(_row)


def bind_family_faces(names: dict[str, object]) -> None:
    """Complete the table with the "family" rows, once `kiln.ops` has gathered its family modules' `names`.

    Called once by kiln/ops/_namespace.py, before the Tensor methods are installed and before kiln.mint and
    kiln.numpy read the table.

    Args:
        names: every public name of `kiln.ops` -> its object.
    """
    ops.__dict__.update(names)
    for row in ROWS:
        if row.kind == "primitive":
            _build_faces(row)
        elif row.kind == "family":
            if ("functional", row.functional[0]) in ROW_OF:
                raise ImportError(f"kiln.ops.faces: two rows for ops.{row.functional[0]} (or bound twice)")
            for name in row.functional:
                FUNCTIONAL[name] = names[name]
                ROW_OF[("functional", name)] = row
            for alias, name in row.aliases.items():
                if names[alias] is not names[name]:
                    raise ImportError(f"kiln.ops.{alias} is not ops.{name}, as its faces-table row says")
            _build_faces(row)


def functional(name: str) -> Callable:
    """The functional face `name` (as `kiln.ops` exposes it)."""
    return FUNCTIONAL[name]


def numpy_rows() -> list[Row]:
    """The rows with `kiln.numpy` faces."""
    return [row for row in ROWS if row.numpy]


def __getattr__(name: str) -> type:
    """The Primitive classes built here, by name: their `__module__` is this module, so pickle looks them up here (a
    layer holding `Mul()` or `Conv2D(...)` pickles)."""
    cls = CLASSES.get(name)
    if cls is None or getattr(cls, "__module__", None) != __name__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return cls
