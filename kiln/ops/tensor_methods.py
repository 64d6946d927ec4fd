"""Operators and methods of `Tensor` and `Parameter`, installed by `install` when `kiln.ops` is imported.

`kiln._core.tensor` sits below `kiln.ops` and cannot import it; this module
completes the class when `kiln.ops` is imported.
"""

from __future__ import annotations

import numpy as np

from kiln._core import dtype as mstype
from kiln._core.tensor import Parameter, Tensor
from kiln._pynative import tape
from kiln.ops import _indexing, array, linalg, math, state
from kiln.ops.faces import METHODS as FACE_METHODS
from kiln.ops.faces import ROWS as FACE_ROWS


def _swap(fn):
    return lambda self, other: fn(other, self)


def _logical_or_bitwise(logical, bitwise):
    def op(a, b):  # either side may be the Python value (`1 & t` swaps the operands)
        t, other = (a, b) if isinstance(a, Tensor) else (b, a)
        if t.dtype is mstype.bool_ and (not isinstance(other, Tensor) or other.dtype is mstype.bool_):
            return logical(a, b)
        return bitwise(a, b)

    return op


def _assign_value(self, value):
    if state.assigned_in_graph(self, value):
        return self
    new = value._data if isinstance(value, Tensor) else Tensor(value, dtype=self.dtype)._data
    if tuple(new.shape) != self.shape or new.dtype != self.dtype.np:
        _new_storage(self)
    if tape.recording and not isinstance(self, Parameter):
        # under a gradient a Tensor takes the value's history too (the write is differentiable, as in MindSpore); a
        # Parameter stays a leaf: MindSpore's gradient does not flow through its assign_value, and its history would
        # chain every step's graph to the next
        self._nodes = value._nodes if isinstance(value, Tensor) else None
    self._data = new
    return self


def _new_storage(t) -> None:
    """`t` takes a value of another shape or dtype (new storage, as in MindSpore): it is no longer a view, and the
    views read from it keep their values, instead of receiving entries they no longer fit."""
    link = getattr(t, "_view_of", None)
    if type(link) is list:
        for ref in link:
            view = ref()
            if view is not None and type(view._view_of) is tuple and view._view_of[0] is t:
                view._view_of = None
    t._view_of = None


# Rows one Unstack gives at most when a Tensor is iterated: a longer first axis is unstacked in slices of this many
# rows, so no program gets thousands of outputs
ROWS_PER_UNSTACK = 1024


def _iter(self):
    """The rows of `self` (`for row in t`, `list(t)`, `a, b = t`): one Unstack per ROWS_PER_UNSTACK rows, not a
    getitem per row (SGCN's `list(weight)` of 192 rows was 192 ops, in PyNative 192 kernels or lazy ops)."""
    if self.ndim == 0:
        raise TypeError("iteration over a 0-d Tensor")
    n = self.shape[0]
    for start in range(0, n, ROWS_PER_UNSTACK):
        part = self if n <= ROWS_PER_UNSTACK else self[start : start + ROWS_PER_UNSTACK]
        yield from array.unstack(part, 0)


def _fill_(self, value):
    return _assign_value(self, array.full(self.shape, value, dtype=self.dtype))


METHODS = {
    # Python operators
    "__pos__": lambda self: self,
    "__invert__": lambda self: math.logical_not(self) if self.dtype is mstype.bool_ else math.bitwise_not(self),
    "__and__": _logical_or_bitwise(math.logical_and, math.bitwise_and),
    "__rand__": _swap(_logical_or_bitwise(math.logical_and, math.bitwise_and)),
    "__or__": _logical_or_bitwise(math.logical_or, math.bitwise_or),
    "__ror__": _swap(_logical_or_bitwise(math.logical_or, math.bitwise_or)),
    "__xor__": _logical_or_bitwise(math.logical_xor, math.bitwise_xor),
    "__rxor__": _swap(_logical_or_bitwise(math.logical_xor, math.bitwise_xor)),
    "__getitem__": _indexing.getitem,
    "__setitem__": _indexing.setitem,
    "__iter__": _iter,
    # conversions
    "contiguous": lambda self: self,
    "is_contiguous": lambda self: True,
    "assign_value": _assign_value,
    "fill_": _fill_,
    "zero_": lambda self: _fill_(self, 0),
    "dim": lambda self: self.ndim,
    "ndimension": lambda self: self.ndim,
    "nelement": lambda self: self.size,
    # shapes
    # math
}
# Elementwise unary functions are methods of the same name (x.exp(), x.abs(), ...).
for _name in (
    "abs", "neg", "negative", "exp", "log", "log1p", "expm1", "log2", "log10", "sqrt", "rsqrt", "square", "sin",
    "cos", "tan", "sinh", "cosh", "tanh", "asin", "acos", "atan", "arcsin", "arccos", "arctan", "erf", "erfc",
    "floor", "ceil", "round", "trunc", "sign", "reciprocal", "logical_not", "isnan", "isinf", "isfinite",
    "real", "imag", "conj", "logical_and", "logical_or", "logical_xor", "atan2", "floor_divide", "remainder",
    "fmod", "eq", "ne", "gt", "ge", "lt", "le", "greater", "less", "greater_equal", "less_equal", "not_equal",
    "true_divide", "subtract", "multiply", "squared_difference", "xlogy", "hypot", "bitwise_and", "bitwise_or",
    "bitwise_xor", "bitwise_not",
):  # fmt: skip
    if _name not in FACE_METHODS:
        METHODS.setdefault(_name, getattr(math, _name))


def _install_methods() -> None:
    for name, fn in {**METHODS, **FACE_METHODS}.items():  # the faces table's methods and operators
        setattr(Tensor, name, fn)


# MindSpore Tensor methods that are `ops.<name>(self, ...)`: the faces table builds them (its rows' `forwarded`).
FROM_OPS = tuple(name for row in FACE_ROWS for name in row.forwarded)


def _more_linalg():

    return linalg


def _set_data(self, value):
    self.assign_value(value)


def _requires_grad_(self, requires_grad=True):
    """A Parameter's `requires_grad` flag set; a plain Tensor has none in Kiln (gradients are taken by position)."""
    if isinstance(self, Parameter):
        self.requires_grad = requires_grad
    return self


def _set_dtype(self, dtype):
    """Change the Parameter's dtype in place (its values cast)."""
    self._data = self._data.astype(mstype.to_dtype(dtype).np)
    return self


def _index_put(self, indices, values, accumulate=False):
    """`self` with `values` written (or added) at the positions given by a tuple of index Tensors."""
    shape = np.broadcast_shapes(*(tuple(i.shape) for i in indices))
    idx = array.stack([array.broadcast_to(math.cast(i, mstype.int64), shape) for i in indices], -1)
    vals = array.broadcast_to(math.cast(values, self.dtype), idx.shape[:-1] + self.shape[len(indices) :])
    if accumulate:
        return array.tensor_scatter_add(self, idx, vals)
    return array.tensor_scatter_update(self, idx, vals)


def _stride(self, dim=None):
    strides = tuple(int(np.prod(self.shape[i + 1 :])) for i in range(self.ndim))
    return strides if dim is None else strides[dim]


def _sum_to_size(self, *size):

    size = tuple(size[0]) if len(size) == 1 and not isinstance(size[0], int) else tuple(size)
    lead = self.ndim - len(size)
    out = math.sum(self, tuple(range(lead)), False) if lead > 0 else self
    axes = tuple(i for i, s in enumerate(size) if s == 1 and out.shape[i] != 1)
    return math.sum(out, axes, True) if axes else out


def _choose(self, choices, mode="clip"):

    stacked = array.stack([c if isinstance(c, Tensor) else Tensor(c) for c in choices], 0)
    n = stacked.shape[0]
    idx = math.clamp(self, 0, n - 1) if mode == "clip" else (math.floor_mod(self, n) if mode == "wrap" else self)
    shape = np.broadcast_shapes(tuple(idx.shape), tuple(stacked.shape[1:]))
    idx = array.broadcast_to(math.cast(idx, mstype.int64), shape)
    stacked = array.broadcast_to(stacked, (n, *shape))
    return array.squeeze(array.gather_elements(stacked, 0, array.expand_dims(idx, 0)), 0)


def _type(self, dtype=None):
    if dtype is None:
        return str(self.dtype)
    return self.astype(dtype)


def _resize(self, *new_shape):

    shape = tuple(new_shape[0]) if len(new_shape) == 1 and not isinstance(new_shape[0], int) else tuple(new_shape)
    flat = array.reshape(self, (-1,))
    size = int(np.prod(shape)) if shape else 1
    if size > flat.shape[0]:
        flat = array.concat((flat, array.zeros((size - flat.shape[0],), self.dtype)), 0)
    return array.reshape(flat[:size], shape)


def _itemset(self, *args):
    """A copy with one element set (`t.itemset(value)` for one element, `t.itemset(flat_index, value)`,
    `t.itemset((i, j), value)`); `self` is unchanged, as MindSpore."""
    value = args[-1]
    arr = self.asnumpy().copy()
    if len(args) == 1:
        arr.reshape(-1)[0] = value
    elif len(args) == 2 and isinstance(args[0], int):
        arr.reshape(-1)[args[0]] = value
    else:
        arr[tuple(args[0])] = value
    return Tensor(arr, self.dtype)


def _install_from_ops(ops) -> None:
    extra = {
        "is_signed": lambda self: self.dtype.kind in "fic",
        "ptp": lambda self, axis=None, keepdims=False: ops.amax(self, axis, keepdims) - ops.amin(self, axis, keepdims),
        "approximate_equal": lambda self, other, tolerance=1e-05: ops.abs(self - other) < tolerance,
        "argmax_with_value": lambda self, axis=0, keep_dims=False: ops.ArgMaxWithValue(axis, keep_dims)(self)[::-1],
        "argmin_with_value": lambda self, axis=0, keep_dims=False: ops.ArgMinWithValue(axis, keep_dims)(self)[::-1],
        "index_put": _index_put,
        "quantile": lambda self, q, axis=None, keepdims=False: math.quantile(self, q, axis, keepdims),
        "nanquantile": lambda self, q, axis=None, keepdims=False: math.nanquantile(self, q, axis, keepdims),
        "triangular_solve": lambda self, A, upper=True, transpose=False, unitriangular=False: (
            _more_linalg().triangular_solve(self, A, upper, transpose, unitriangular)
        ),
        "stride": _stride,
        "storage_offset": lambda self: 0,
        "sum_to_size": _sum_to_size,
        "choose": _choose,
        "type": _type,
        "resize": _resize,
        "itemset": _itemset,
        "value": lambda self: self,
        "data_ptr": lambda self: id(self._data),
        "is_shared": lambda self: False,
        "is_pinned": lambda self: False,
        "pin_memory": lambda self: self,
        "to_": lambda self, device=None, non_blocking=False: self,
        "requires_grad_": _requires_grad_,
    }
    for name, fn in extra.items():
        if not hasattr(Tensor, name):
            fn.__name__ = fn.__qualname__ = name
            setattr(Tensor, name, fn)
    for name, prop in {
        "data": property(lambda self: self, _set_data),
    }.items():
        if not hasattr(Tensor, name):
            setattr(Tensor, name, prop)
    if not hasattr(Tensor, "set_dtype"):
        Tensor.set_dtype = _set_dtype
    if not hasattr(Tensor, "from_numpy"):
        Tensor.from_numpy = staticmethod(lambda array: Tensor(np.asarray(array)))
    if not hasattr(Parameter, "set_dtype"):
        Parameter.set_dtype = _set_dtype


def install(ops) -> None:
    """Complete `Tensor` and `Parameter` with their methods, once `ops` (the `kiln.ops` module) has every name.

    The methods listed here and by the faces table are set; the rest are added only where the class has no
    attribute of that name yet (the classes' own methods stay).
    """
    _install_methods()
    _install_from_ops(ops)
