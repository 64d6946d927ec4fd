"""MindSpore Primitive classes made as faces of functional ops that already exist.

The elementwise ones come from the functional ops' name table (`math._UNARY`, `math._BINARY`): a class is made
for every primitive name there that MindSpore has as a class and Kiln did not have yet.
"""

from __future__ import annotations

import numpy as np

from kiln._compiler.ir import graph as G
from kiln._core import dtype as mstype
from kiln._core.tensor import Tensor
from kiln._pynative import tape
from kiln._pynative.autograd import _custom_bprop_in_graph
from kiln.ops import array, math
from kiln.ops import nn as nn_ops
from kiln.ops._args import ntuple, pad_pairs
from kiln.ops._helpers import apply, op_error, prim
from kiln.ops.primitive import Primitive, WithAttrs

__all__: list[str] = []


def _simple(cls_name: str, fn) -> type:
    cls = type(cls_name, (Primitive,), {"__call__": lambda self, *args: fn(*args), "__doc__": f"Primitive {cls_name}."})
    cls.__init__ = lambda self: Primitive.__init__(self, cls_name)
    globals()[cls_name] = cls
    __all__.append(cls_name)
    return cls


def _attr_class(cls_name: str, defaults: dict, call) -> type:
    cls = type(cls_name, (WithAttrs,), {"_defaults": defaults, "__call__": call, "__doc__": f"Primitive {cls_name}."})
    globals()[cls_name] = cls
    __all__.append(cls_name)
    return cls


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

_attr_class("Cdist", {"p": 2.0}, lambda self, x1, x2: math.cdist(x1, x2, self.p))
_attr_class("Pack", {"axis": 0}, lambda self, xs: array.stack(xs, self.axis))
_attr_class("ReverseV2", {"axis": ()}, lambda self, x: array.flip(x, tuple(self.axis)))
_attr_class(
    "ApproximateEqual", {"tolerance": 1e-5}, lambda self, x, y: math.less(math.abs(math.sub(x, y)), self.tolerance)
)
_attr_class("HShrink", {"lambd": 0.5}, lambda self, x: nn_ops.hardshrink(x, self.lambd))
_attr_class("SoftShrink", {"lambd": 0.5}, lambda self, x: nn_ops.softshrink(x, self.lambd))
_attr_class("Bincount", {}, lambda self, x, size, weights: math.bincount(x, weights, int(size)))
_attr_class(
    "SearchSorted",
    {"dtype": None, "right": False},
    lambda self, seq, values, sorter=None: math.searchsorted(
        seq, values, out_int32=self.dtype is not None and "32" in str(self.dtype), right=self.right, sorter=sorter
    ),
)


class Unique(Primitive):
    """Distinct values in first-appearance order and, per element, the position of its value (`ops.unique`)."""

    def __init__(self) -> None:
        super().__init__("Unique")

    def __call__(self, x):
        return array.unique(x)


class Range(WithAttrs):
    """`Range(maxlen)(start, limit, delta)`: the 1-D sequence start, start + delta, ... (limit excluded)."""

    _defaults = {"maxlen": 1000000}

    def __call__(self, start, limit, delta):
        values = [float(v.asnumpy()) if isinstance(v, Tensor) else v for v in (start, limit, delta)]
        dtype = start.dtype if isinstance(start, Tensor) else None
        out = np.arange(*values)
        return Tensor(out, dtype=dtype) if dtype is not None else Tensor(out)


__all__ += ["Unique", "Range"]


class MaxPoolWithArgmax(WithAttrs):
    """2-D max pooling ('valid' or 'same' padding) that also returns the flat (H * W) index of each maximum."""

    _defaults = {"kernel_size": 1, "strides": 1, "pad_mode": "valid", "data_format": "NCHW"}

    def __call__(self, x):
        name = "MaxPoolWithArgmax"
        kernel = ntuple(name, "kernel_size", self.kernel_size, 2)
        strides = ntuple(name, "strides", self.strides, 2)
        mode = str(self.pad_mode).lower()
        if mode not in ("valid", "same"):
            raise op_error(name, f"'pad_mode' must be 'valid' or 'same', but got {self.pad_mode!r}.")
        if self.data_format != "NCHW":
            raise op_error(name, f"'data_format' must be 'NCHW', but got {self.data_format!r}.")
        out, index = apply(prim("MaxPoolWithArgmax"), (x,), (kernel, strides, mode, pad_pairs(name, 0, 2), (1, 1),
                                                             False))  # fmt: skip
        return out, math.cast(index, mstype.int32)


def _hooked(args, rule_for, owner):
    """`args` passed through unchanged as new Tensors whose backward is `rule_for(cotangents)`."""
    single = len(args) == 1
    tensors = tuple(a for a in args if isinstance(a, Tensor))
    trace = G.current()
    if trace is not None and any(G.is_symbolic(t._data) for t in tensors):
        # In a graph: an identity with a custom backward in which the hook runs on the symbolic gradients
        def construct(*a):
            return a[0] if single else tuple(a)

        def bprop(*a):
            dout = a[-1]
            grads = rule_for((dout,) if single else tuple(dout))
            return tuple(g if g is not None else array.zeros_like(x) for g, x in zip(grads, a, strict=False))

        return _custom_bprop_in_graph(trace, owner, bprop, construct, args)
    if not tape.recording:
        return args[0] if single else args
    fresh = tuple(Tensor._wrap(t._data) for t in tensors)
    tape.record_custom(tensors, fresh, rule_for)
    it = iter(fresh)
    out = tuple(next(it) if isinstance(a, Tensor) else a for a in args)
    return out[0] if single else out


class HookBackward(Primitive):
    """Identity in the forward pass; in the backward pass `hook_fn(grads)` gets the tuple of the inputs'
    gradients and may return replacements (a tuple of as many Tensors; None keeps them).

    In a compiled graph (GRAPH_MODE, @jit) the hook is traced into the backward graph: it applies as in
    PyNative (MindSpore 2.10 skips it there), and its Python side effects run when the graph is compiled.
    """

    def __init__(self, hook_fn, cell_id: str = "") -> None:
        super().__init__("HookBackward")
        if not callable(hook_fn):
            raise TypeError(f"HookBackward: 'hook_fn' must be callable, but got {type(hook_fn).__name__}.")
        self.hook_fn, self.cell_id = hook_fn, cell_id

    def __call__(self, *args):
        def rule(cots):
            # As MindSpore: one call with the tuple of the inputs' gradients; None keeps them
            new = self.hook_fn(tuple(cots))
            if new is None:
                return tuple(cots)
            new = (new,) if isinstance(new, Tensor) else new
            if not isinstance(new, (tuple, list)) or len(new) != len(cots):
                name = getattr(self.hook_fn, "__qualname__", type(self.hook_fn).__name__)
                raise TypeError(
                    f"HookBackward: hook_fn {name} receives the tuple of {len(cots)} gradient(s) and must return "
                    f"a tuple of as many Tensors (or None), but it returned "
                    f"{type(new).__name__ if not isinstance(new, (tuple, list)) else f'{len(new)} item(s)'}."
                )
            return tuple(new)

        return _hooked(args, rule, self)


class InsertGradientOf(Primitive):
    """Identity in the forward pass; the gradient flowing back through it becomes `f(gradient)`."""

    def __init__(self, f) -> None:
        super().__init__("InsertGradientOf")
        if not callable(f):
            raise TypeError(f"InsertGradientOf: 'f' must be callable, but got {type(f).__name__}.")
        self.f = f

    def __call__(self, *args):
        return _hooked(args, lambda cots: tuple(self.f(c) for c in cots), self)


__all__ += ["HookBackward", "InsertGradientOf", "MaxPoolWithArgmax"]


def _nearest_index(n_in: int, n_out: int, align_corners: bool) -> np.ndarray:
    if align_corners and n_out > 1:
        return np.floor(np.arange(n_out) * (n_in - 1) / (n_out - 1) + 0.5).astype(np.int64)
    return np.minimum(np.floor(np.arange(n_out) * n_in / n_out), n_in - 1).astype(np.int64)


class ResizeNearestNeighbor(WithAttrs):
    """Nearest-neighbour resize of (N, C, H, W) to `size` (MindSpore's CPU index rule)."""

    _defaults = {"size": None, "align_corners": False, "half_pixel_centers": False}

    def __call__(self, input_x):
        h, w = (int(s) for s in self.size)
        rows = _nearest_index(input_x.shape[-2], h, self.align_corners)
        cols = _nearest_index(input_x.shape[-1], w, self.align_corners)
        out = array.gather(input_x, Tensor(rows), input_x.ndim - 2)
        return array.gather(out, Tensor(cols), input_x.ndim - 1)


_attr_class(
    "TensorScatterElements",
    {"axis": 0, "reduction": "none"},
    lambda self, x, indices, updates: array.tensor_scatter_elements(x, indices, updates, self.axis, self.reduction),
)
_attr_class("CeLU", {"alpha": 1.0}, lambda self, x: nn_ops.celu(x, self.alpha))
_attr_class(
    "LpNorm",
    {"axis": 0, "p": 2, "keep_dims": False, "epsilon": 1e-12},
    lambda self, x: math.pow(math.sum(math.pow(math.abs(x), self.p), self.axis, self.keep_dims), 1.0 / self.p),
)
_simple("LinSpace", lambda start, stop, num: array.linspace(start, stop, int(num)))
_simple("MaskedSelect", lambda input, mask: array.masked_select(input, mask))
_simple("NextAfter", lambda x, y: math.nextafter(x, y))
_simple(
    "EqualCount",
    lambda x, y: array.reshape(math.cast(math.sum(math.cast(math.equal(x, y), mstype.int32)), x.dtype), (1,)),
)
__all__ += ["ResizeNearestNeighbor"]
