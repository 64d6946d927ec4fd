"""More of MindSpore's Primitive classes, each the class face of a functional op that already exists.

The elementwise ones come from the functional ops' name table (`math._UNARY`, `math._BINARY`): a class is made
for every primitive name there that MindSpore has as a class and Kiln did not have yet.
"""

from __future__ import annotations

import numpy as np

from kiln._core.tensor import Tensor
from kiln.ops import array, extra_math, math
from kiln.ops import nn as nn_ops
from kiln.ops import primitives as _p

__all__: list[str] = []

# MindSpore's class names among the primitives of the elementwise table (the table's other names have no class).
_ELEMENTWISE_CLASSES = {
    "ACos", "Acosh", "Asin", "Asinh", "Atan", "Atanh", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "Conj", "Cosh",
    "Digamma", "Erfc", "Erfinv", "Expm1", "Hypot", "Imag", "LeftShift", "Lgamma", "LogicalXor", "Real", "RightShift",
    "Sinh", "Tan", "Trunc", "TruncateDiv", "Xdivy", "Xlogy",
}  # fmt: skip


def _simple(cls_name: str, fn) -> type:
    cls = type(
        cls_name, (_p.Primitive,), {"__call__": lambda self, *args: fn(*args), "__doc__": f"Primitive {cls_name}."}
    )
    cls.__init__ = lambda self: _p.Primitive.__init__(self, cls_name)
    globals()[cls_name] = cls
    __all__.append(cls_name)
    return cls


def _attr_class(cls_name: str, defaults: dict, call) -> type:
    cls = type(
        cls_name, (_p._WithAttrs,), {"_defaults": defaults, "__call__": call, "__doc__": f"Primitive {cls_name}."}
    )
    globals()[cls_name] = cls
    __all__.append(cls_name)
    return cls


for _public, _prim in {**math._UNARY, **math._BINARY}.items():
    if _prim in _ELEMENTWISE_CLASSES and _prim not in globals() and not hasattr(_p, _prim):
        _simple(_prim, getattr(math, _public))


def _rint(x):
    return math.round(x)


def _l2_loss(x):
    return math.mul(math.sum(math.square(x)), 0.5)


_SIMPLE = {
    "TensorAdd": math.add,  # MindSpore 1.x name of Add
    "Inv": math.reciprocal,
    "Invert": math.bitwise_not,
    "Rint": _rint,
    "Ger": math.outer,
    "L2Loss": _l2_loss,
    "Depend": lambda value, expr: value,
    "SparseGatherV2": lambda params, indices, axis: array.gather(params, indices, axis),
    "GatherV2": lambda params, indices, axis: array.gather(params, indices, axis),
}
for _name, _fn in _SIMPLE.items():
    _simple(_name, _fn)

_attr_class("Cdist", {"p": 2.0}, lambda self, x1, x2: extra_math.cdist(x1, x2, self.p))
_attr_class("Pack", {"axis": 0}, lambda self, xs: array.stack(xs, self.axis))
_attr_class("ReverseV2", {"axis": ()}, lambda self, x: array.flip(x, tuple(self.axis)))
_attr_class(
    "ApproximateEqual", {"tolerance": 1e-5}, lambda self, x, y: math.less(math.abs(math.sub(x, y)), self.tolerance)
)
_attr_class("HShrink", {"lambd": 0.5}, lambda self, x: nn_ops.hardshrink(x, self.lambd))
_attr_class("SoftShrink", {"lambd": 0.5}, lambda self, x: nn_ops.softshrink(x, self.lambd))
_attr_class("Bincount", {}, lambda self, x, size, weights: extra_math.bincount(x, weights, int(size)))
_attr_class(
    "SearchSorted",
    {"dtype": None, "right": False},
    lambda self, seq, values, sorter=None: extra_math.searchsorted(
        seq, values, out_int32=self.dtype is not None and "32" in str(self.dtype), right=self.right, sorter=sorter
    ),
)


class Unique(_p.Primitive):
    """Distinct values in first-appearance order and, per element, the position of its value (`ops.unique`)."""

    def __init__(self) -> None:
        super().__init__("Unique")

    def __call__(self, x):
        return array.unique(x)


class Range(_p._WithAttrs):
    """`Range(maxlen)(start, limit, delta)`: the 1-D sequence start, start + delta, ... (limit excluded)."""

    _defaults = {"maxlen": 1000000}

    def __call__(self, start, limit, delta):
        values = [float(v.asnumpy()) if isinstance(v, Tensor) else v for v in (start, limit, delta)]
        dtype = start.dtype if isinstance(start, Tensor) else None
        out = np.arange(*values)
        return Tensor(out, dtype=dtype) if dtype is not None else Tensor(out)


__all__ += ["Unique", "Range"]
