"""Operators and methods of `Tensor` and `Parameter`, installed by `install` when `kiln.ops` is imported.

`kiln._core.tensor` sits below `kiln.ops` and cannot import it; this module
completes the class when `kiln.ops` is imported.
"""

from __future__ import annotations

import numpy as np

from kiln._core import dtype as mstype
from kiln._core.tensor import Parameter, Tensor
from kiln.ops import _indexing, array, linalg, math
from kiln.ops import nn as nn_ops
from kiln.ops.faces import METHODS as FACE_METHODS


def _swap(fn):
    return lambda self, other: fn(other, self)


def _not_numeric(other) -> bool:
    """None, a str or a dict, or a tuple/list holding one: a value no Tensor equals."""
    if other is None or isinstance(other, (str, dict)):
        return True
    return isinstance(other, (tuple, list)) and any(_not_numeric(x) for x in other)


def _equality(compare, unequal: bool):
    """`t == other` / `t != other`: a str, None or dict (or a sequence holding one) is never equal to a Tensor: a
    Python bool, as MindSpore gives and as Python compares unrelated objects (`list.count(t)` compares this way)."""

    def method(self, other):
        if _not_numeric(other):
            return unequal
        return compare(self, other)

    return method


def _logical_or_bitwise(logical, bitwise):
    def op(a, b):  # either side may be the Python value (`1 & t` swaps the operands)
        t, other = (a, b) if isinstance(a, Tensor) else (b, a)
        if t.dtype is mstype.bool_ and (not isinstance(other, Tensor) or other.dtype is mstype.bool_):
            return logical(a, b)
        return bitwise(a, b)

    return op


def _shape_args(shape):
    return shape[0] if len(shape) == 1 and not isinstance(shape[0], int) else shape


def _extremum(self, kind: str, axis, keepdims, initial, where, return_indices):
    """Tensor.max/min: `where` limits the elements compared and `initial` joins every result (as NumPy)."""
    if where is not None:
        if initial is None:
            raise ValueError(f"Tensor.{kind}(): 'where' needs 'initial' (the value of an output with no element).")
        self = array.select(where, self, Tensor(initial, self.dtype))
    if initial is not None and return_indices:
        raise ValueError(f"Tensor.{kind}(): 'initial' and 'return_indices' cannot be used together.")
    if axis is None:
        out = (math.amax if kind == "max" else math.amin)(self, None, keepdims)
    else:
        out = (math.max if kind == "max" else math.min)(self, axis, keepdims)
        if return_indices:
            return out
        out = out[0]
    if initial is not None:
        out = (math.maximum if kind == "max" else math.minimum)(out, Tensor(initial, self.dtype))
    return out


def _max(self, axis=None, keepdims=False, *, initial=None, where=None, return_indices=False):
    return _extremum(self, "max", axis, keepdims, initial, where, return_indices)


def _min(self, axis=None, keepdims=False, *, initial=None, where=None, return_indices=False):
    return _extremum(self, "min", axis, keepdims, initial, where, return_indices)


def _sum(self, axis=None, dtype=None, keepdims=False, initial=None, out=None):
    if out is not None:  # NumPy's np.sum(tensor) passes out=None
        raise TypeError("Tensor.sum(): 'out' is not supported; use the returned Tensor.")
    out = math.sum(self, axis, keepdims, dtype=dtype)
    return out if initial is None else out + initial


def _assign_value(self, value):
    self._data = value._data if isinstance(value, Tensor) else Tensor(value, dtype=self.dtype)._data
    return self


def _fill_(self, value):
    return _assign_value(self, array.full(self.shape, value, dtype=self.dtype))


def _softmax(self, axis=-1):
    return nn_ops.softmax(self, axis)


def _log_softmax(self, axis=-1):
    return nn_ops.log_softmax(self, axis)


def _relu(self):
    return nn_ops.relu(self)


def _sigmoid(self):
    return nn_ops.sigmoid(self)


def _operand(self, other):
    """A list or tuple operand of a Tensor method becomes a Tensor of the method's dtype."""
    return Tensor(other, dtype=self.dtype) if isinstance(other, (list, tuple)) else other


def _sub(self, other, *, alpha=1):
    other = _operand(self, other)
    return math.sub(self, other if alpha == 1 else math.mul(other, alpha))


def _reduce_bool(fn):
    def method(self, axis=None, keep_dims=False, *, dim=None, keepdim=None):
        axis = dim if dim is not None else axis
        keep = keepdim if keepdim is not None else keep_dims
        return fn(self, axis, keep)

    return method


def _round(self, decimals=0):
    if decimals == 0:
        return math.round(self)
    scale = 10.0**decimals
    return math.div(math.round(math.mul(self, scale)), scale)


def _index_select(self, axis=None, index=None, *, dim=None):
    return array.index_select(self, dim if dim is not None else axis, index)


METHODS = {
    # Python operators
    "__sub__": math.sub,
    "__rsub__": _swap(math.sub),
    "__mul__": math.mul,
    "__rmul__": _swap(math.mul),
    "__truediv__": math.div,
    "__rtruediv__": _swap(math.div),
    "__floordiv__": math.floor_divide,
    "__rfloordiv__": _swap(math.floor_divide),
    "__mod__": math.floor_mod,
    "__rmod__": _swap(math.floor_mod),
    "__pow__": math.pow,
    "__rpow__": _swap(math.pow),
    "__matmul__": math.matmul,
    "__rmatmul__": _swap(math.matmul),
    "__neg__": math.neg,
    "__pos__": lambda self: self,
    "__abs__": math.abs,
    "__invert__": lambda self: math.logical_not(self) if self.dtype is mstype.bool_ else math.bitwise_not(self),
    "__and__": _logical_or_bitwise(math.logical_and, math.bitwise_and),
    "__rand__": _swap(_logical_or_bitwise(math.logical_and, math.bitwise_and)),
    "__or__": _logical_or_bitwise(math.logical_or, math.bitwise_or),
    "__ror__": _swap(_logical_or_bitwise(math.logical_or, math.bitwise_or)),
    "__xor__": _logical_or_bitwise(math.logical_xor, math.bitwise_xor),
    "__rxor__": _swap(_logical_or_bitwise(math.logical_xor, math.bitwise_xor)),
    "__lshift__": math.bitwise_left_shift,
    "__rshift__": math.bitwise_right_shift,
    "__eq__": _equality(math.equal, False),
    "__ne__": _equality(math.not_equal, True),
    "__lt__": math.less,
    "__le__": math.less_equal,
    "__gt__": math.greater,
    "__ge__": math.greater_equal,
    "__getitem__": _indexing.getitem,
    "__setitem__": _indexing.setitem,
    # conversions
    "astype": lambda self, dtype, copy=True: math.cast(self, dtype),
    "to": lambda self, dtype: math.cast(self, dtype),
    "float": lambda self: math.cast(self, mstype.float32),
    "half": lambda self: math.cast(self, mstype.float16),
    "double": lambda self: math.cast(self, mstype.float64),
    "int": lambda self: math.cast(self, mstype.int32),
    "long": lambda self: math.cast(self, mstype.int64),
    "bool": lambda self: math.cast(self, mstype.bool_),
    "copy": lambda self: math.identity(self),  # a recorded op: gradients flow through the copy
    "clone": lambda self: math.identity(self),
    "contiguous": lambda self: self,
    "is_contiguous": lambda self: True,
    "assign_value": _assign_value,
    "fill_": _fill_,
    "zero_": lambda self: _fill_(self, 0),
    "dim": lambda self: self.ndim,
    "ndimension": lambda self: self.ndim,
    "numel": lambda self: self.size,
    "nelement": lambda self: self.size,
    "T": property(lambda self: array.transpose(self, tuple(reversed(range(self.ndim))))),
    "mT": property(lambda self: array.swapaxes(self, -1, -2)),
    # shapes
    "reshape": lambda self, *shape: array.reshape(self, _shape_args(shape)),
    "view": lambda self, *shape: array.view(self, *shape),
    "view_as": lambda self, other: array.reshape(self, other.shape),
    "reshape_as": lambda self, other: array.reshape(self, other.shape),
    "transpose": lambda self, *axes: array.transpose(self, _shape_args(axes) or tuple(reversed(range(self.ndim)))),
    "permute": lambda self, *axes: array.transpose(self, _shape_args(axes)),
    "swapaxes": array.swapaxes,
    "moveaxis": array.moveaxis,
    "squeeze": array.squeeze,
    "unsqueeze": array.unsqueeze,
    "expand_dims": array.expand_dims,
    "flatten": lambda self, order="C", *, start_dim=0, end_dim=-1: array.flatten(
        self, order, start_dim=start_dim, end_dim=end_dim
    ),
    "ravel": lambda self: array.reshape(self, (-1,)),
    "broadcast_to": array.broadcast_to,
    "expand_as": lambda self, other: array.broadcast_to(self, other.shape),
    "tile": lambda self, *reps: array.tile(self, _shape_args(reps)),
    "repeat": lambda self, repeats, axis=None: array.repeat_interleave(self, repeats, axis),
    "repeat_interleave": array.repeat_interleave,
    "split": lambda self, split_size_or_sections, axis=0: array.split(self, split_size_or_sections, axis),
    "chunk": array.chunk,
    "unbind": array.unbind,
    "narrow": array.narrow,
    "flip": array.flip,
    "roll": array.roll,
    "tril": array.tril,
    "triu": array.triu,
    "index_select": _index_select,
    "masked_fill": array.masked_fill,
    "masked_select": array.masked_select,
    "nonzero": array.nonzero,
    "where": lambda self, condition, y: array.select(condition, self, y),
    "scatter": array.scatter,
    "scatter_add": array.scatter_add,
    # math
    "sum": _sum,
    "mean": lambda self, axis=None, keep_dims=False: math.mean(self, axis, keep_dims),
    "prod": lambda self, axis=None, keep_dims=False: math.prod(self, axis, keep_dims),
    "max": _max,
    "min": _min,
    "amax": math.amax,
    "amin": math.amin,
    "all": _reduce_bool(math.all),
    "any": _reduce_bool(math.any),
    "argmax": lambda self, axis=None, keepdims=False: math.argmax(self, axis, keepdims),
    "argmin": lambda self, axis=None, keepdims=False: math.argmin(self, axis, keepdims),
    "std": lambda self, axis=None, ddof=0, keepdims=False: math.std(self, axis, ddof, keepdims),
    "var": lambda self, axis=None, ddof=0, keepdims=False: math.var(self, axis, ddof, keepdims),
    "logsumexp": math.logsumexp,
    "cumsum": lambda self, axis=None, dtype=None: math.cumsum(
        self if axis is not None else self.ravel(), axis or 0, dtype
    ),
    "cumprod": math.cumprod,
    "sort": lambda self, axis=-1, descending=False: math.sort(self, axis, descending),
    "argsort": math.argsort,
    "topk": math.topk,
    "clip": lambda self, xmin=None, xmax=None: math.clamp(self, xmin, xmax),
    "clamp": lambda self, min=None, max=None: math.clamp(self, min, max),
    "matmul": math.matmul,
    "norm": math.norm,
    "isclose": math.isclose,
    "allclose": math.allclose,
    "equal": math.equal,
    "softmax": _softmax,
    "log_softmax": _log_softmax,
    "relu": _relu,
    "sigmoid": _sigmoid,
    "div": math.div,
    "pow": math.pow,
    "sub": _sub,
    "round": _round,
    "mul": math.mul,
    "maximum": math.maximum,
    "minimum": math.minimum,
    "lerp": math.lerp,
    "addn": math.addn,
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


# MindSpore Tensor methods that are `ops.<name>(self, ...)`.
FROM_OPS = (
    "absolute", "acosh", "arccosh", "arcsinh", "arctan2", "arctanh", "asinh", "atanh", "bernoulli", "bincount",
    "bitwise_left_shift", "bitwise_right_shift", "bmm", "cummax", "cummin", "diag", "digamma", "divide", "dot",
    "erfinv", "gather_nd", "hardshrink", "inner", "inverse", "lgamma", "mm", "multinomial", "outer", "searchsorted",
    "trace", "unique", "xdivy", "diagonal", "frac", "baddbmm", "addbmm", "addmm", "addmv", "addr", "heaviside",
    "isposinf", "isneginf", "det", "slogdet", "logdet", "msort", "fliplr", "flipud", "argwhere", "nextafter",
    "adjoint", "angle", "cholesky", "cholesky_inverse", "cholesky_solve", "copysign", "cov", "cross", "diagflat",
    "diagonal_scatter", "diff", "dsplit", "hsplit", "vsplit", "tensor_split", "eigvals", "fills", "float_power",
    "fmax", "fmin", "gcd", "lcm", "geqrf", "histc", "i0", "igamma", "igammac", "index_fill", "inplace_update", "inv",
    "invert", "isreal", "ldexp", "logaddexp", "logaddexp2", "logcumsumexp", "logit", "lstsq", "lu_solve",
    "masked_scatter", "matrix_determinant", "log_matrix_determinant", "matrix_power", "mvlgamma", "nan_to_num",
    "nanmean", "nanmedian", "median", "orgqr", "ormqr", "renorm", "reverse", "reverse_sequence", "rot90",
    "select_scatter", "slice_scatter", "sgn", "signbit", "sinc", "soft_shrink", "svd", "take", "top_k",
    "unique_consecutive", "unsorted_segment_max", "unsorted_segment_min", "unsorted_segment_prod", "addcmul",
    "aminmax", "unfold", "deg2rad", "rad2deg",
)  # fmt: skip


def _method(fn, name: str):
    def method(self, *args, **kwargs):
        return fn(self, *args, **kwargs)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"`ops.{name}(self, ...)`."
    return method


def _more_linalg():

    return linalg


def _not_2d(name):
    raise ValueError(f"Tensor.{name} is defined for 2-D tensors only; use Tensor.mH for batches of matrices.")


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


def _inplace(fn):
    """A method `t.op_(...)`: `t` takes the value of `fn(t, ...)` (its dtype kept) and is returned."""

    def method(self, *args, **kwargs):
        out = fn(self, *args, **kwargs)
        return self.assign_value(out.astype(self.dtype) if out.dtype != self.dtype else out)

    return method


def _index_put(self, indices, values, accumulate=False):
    """`self` with `values` written (or added) at the positions given by a tuple of index Tensors."""
    shape = np.broadcast_shapes(*(tuple(i.shape) for i in indices))
    idx = array.stack([array.broadcast_to(math.cast(i, mstype.int64), shape) for i in indices], -1)
    vals = array.broadcast_to(math.cast(values, self.dtype), idx.shape[:-1] + self.shape[len(indices) :])
    if accumulate:
        return array.tensor_scatter_add(self, idx, vals)
    return array.tensor_scatter_update(self, idx, vals)


def _quantile(self, q, axis=None, keepdims=False, *, ignore_nan=False):
    """Quantiles `q` (a float or a 1-D Tensor in [0, 1]) with linear interpolation, along `axis` (None: all)."""
    x = array.reshape(self, (-1,)) if axis is None else self
    ax = 0 if axis is None else axis % x.ndim
    scalar_q = not isinstance(q, Tensor)
    qt = Tensor([float(q)], x.dtype) if scalar_q else array.reshape(math.cast(q, x.dtype), (-1,))
    values = math.sort(x, ax)[0]
    n = x.shape[ax]
    if ignore_nan:
        count = math.sum(math.cast(math.logical_not(math.isnan(x)), x.dtype), ax, True)
    else:
        count = Tensor(float(n), x.dtype)
    pos = qt.reshape((-1,) + (1,) * x.ndim) * (count - 1)  # (Q, ...)
    lo = math.floor(pos)
    hi = math.minimum(math.ceil(pos), math.maximum(count - 1, 0))
    frac = pos - lo
    vals = array.broadcast_to(array.expand_dims(values, 0), (qt.shape[0], *values.shape))

    def take(p):
        idx = math.cast(math.maximum(p, 0), mstype.int64)
        idx = array.broadcast_to(idx, (qt.shape[0],) + tuple(1 if i == ax else s for i, s in enumerate(x.shape)))
        return array.gather_elements(vals, ax + 1, idx)

    out = take(lo) + (take(hi) - take(lo)) * frac.broadcast_to(take(lo).shape)
    if not ignore_nan:
        has_nan = math.any(math.isnan(x), ax, True)
        out = array.select(
            array.broadcast_to(array.expand_dims(has_nan, 0), out.shape), array.full_like(out, float("nan")), out
        )
    if axis is None:
        out = array.reshape(out, (qt.shape[0],) + ((1,) * self.ndim if keepdims else ()))
    elif not keepdims:
        out = array.squeeze(out, ax + 1)
    return out[0] if scalar_q else out


def _stride(self, dim=None):
    strides = tuple(int(np.prod(self.shape[i + 1 :])) for i in range(self.ndim))
    return strides if dim is None else strides[dim]


def _sum_to_size(self, *size):

    size = tuple(size[0]) if len(size) == 1 and not isinstance(size[0], int) else tuple(size)
    lead = self.ndim - len(size)
    out = math.sum(self, tuple(range(lead)), False) if lead > 0 else self
    axes = tuple(i for i, s in enumerate(size) if s == 1 and out.shape[i] != 1)
    return math.sum(out, axes, True) if axes else out


def _unique_with_pad(self, pad_num):

    values, idx = array.unique(self)
    n = self.shape[0]
    pad = array.full((n - values.shape[0],), pad_num, dtype=values.dtype)
    return array.concat((values, pad), 0), idx


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
    for name in FROM_OPS:
        if not hasattr(Tensor, name) and callable(getattr(ops, name, None)):
            setattr(Tensor, name, _method(getattr(ops, name), name))
    extra = {
        "type_as": lambda self, other: self.astype(other.dtype),
        "new_zeros": lambda self, size, dtype=None: ops.zeros(size, dtype or self.dtype),
        "new_ones": lambda self, size, dtype=None: ops.ones(size, dtype or self.dtype),
        "new_full": lambda self, size, fill_value, dtype=None: ops.full(size, fill_value, dtype=dtype or self.dtype),
        "new_empty": lambda self, size, dtype=None, device=None: ops.zeros(size, dtype or self.dtype),
        "swapdims": lambda self, dim0, dim1: ops.swapaxes(self, dim0, dim1),
        "movedim": lambda self, source, destination: ops.moveaxis(self, source, destination),
        "t": lambda self: self if self.ndim < 2 else ops.transpose(self, (1, 0)),
        "positive": lambda self: self,
        "is_floating_point": lambda self: self.dtype.is_floating,
        "is_complex": lambda self: self.dtype.is_complex,
        "is_signed": lambda self: self.dtype.kind in "fic",
        "expand": lambda self, size: ops.broadcast_to(self, tuple(size) if not isinstance(size, int) else (size,)),
        "ger": lambda self, vec2: ops.outer(self, vec2),
        "ptp": lambda self, axis=None, keepdims=False: ops.amax(self, axis, keepdims) - ops.amin(self, axis, keepdims),
        "clip_by_value": lambda self, clip_value_min=None, clip_value_max=None: ops.clip_by_value(
            self, clip_value_min, clip_value_max
        ),
        "approximate_equal": lambda self, other, tolerance=1e-05: ops.abs(self - other) < tolerance,
        "argmax_with_value": lambda self, axis=0, keep_dims=False: ops.ArgMaxWithValue(axis, keep_dims)(self)[::-1],
        "argmin_with_value": lambda self, axis=0, keep_dims=False: ops.ArgMinWithValue(axis, keep_dims)(self)[::-1],
        "byte": lambda self: self.astype(mstype.uint8),
        "short": lambda self: self.astype(mstype.int16),
        "bfloat16": lambda self: self.astype(mstype.bfloat16),
        "fill": lambda self, value: ops.full_like(self, value),
        "index_add": lambda self, dim, index, source, *, alpha=1: ops.index_add(self, index, source * alpha, dim),
        "index_put": _index_put,
        "qr": lambda self, some=True: ops.qr(self, "reduced" if some else "complete"),
        "quantile": lambda self, q, axis=None, keepdims=False: _quantile(self, q, axis, keepdims),
        "nanquantile": lambda self, q, axis=None, keepdims=False: _quantile(self, q, axis, keepdims, ignore_nan=True),
        "random_categorical": lambda self, num_sample, seed=0, dtype=mstype.int64: ops.RandomCategorical(dtype)(
            self, num_sample, seed
        ),
        "scatter_sub": lambda self, indices, updates: ops.tensor_scatter_add(self, indices, -updates),
        "scatter_mul": lambda self, indices, updates: ops.tensor_scatter_update(
            self, indices, ops.gather_nd(self, indices) * updates
        ),
        "scatter_div": lambda self, indices, updates: ops.tensor_scatter_update(
            self, indices, ops.gather_nd(self, indices) / updates
        ),
        "scatter_max": lambda self, indices, updates: ops.tensor_scatter_max(self, indices, updates),
        "scatter_min": lambda self, indices, updates: ops.tensor_scatter_min(self, indices, updates),
        "triangular_solve": lambda self, A, upper=True, transpose=False, unitriangular=False: (
            _more_linalg().triangular_solve(self, A, upper, transpose, unitriangular)
        ),
        "stride": _stride,
        "storage_offset": lambda self: 0,
        "sum_to_size": _sum_to_size,
        "unique_with_pad": _unique_with_pad,
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
        "add_": _inplace(lambda self, other, *, alpha=1: ops.add(self, other * alpha if alpha != 1 else other)),
        "sub_": _inplace(lambda self, other, *, alpha=1: ops.sub(self, other * alpha if alpha != 1 else other)),
        "div_": _inplace(lambda self, value, *, rounding_mode=None: ops.div(self, value, rounding_mode=rounding_mode)),
        "addmm_": _inplace(
            lambda self, mat1, mat2, *, beta=1, alpha=1: ops.addmm(self, mat1, mat2, beta=beta, alpha=alpha)
        ),
        "clamp_": _inplace(lambda self, min=None, max=None: ops.clamp(self, min, max)),
        "masked_fill_": _inplace(lambda self, mask, value: ops.masked_fill(self, mask, value)),
        "erfinv_": _inplace(lambda self: ops.erfinv(self)),
        "exp_": _inplace(lambda self: ops.exp(self)),
        "floor_": _inplace(lambda self: ops.floor(self)),
        "log_": _inplace(lambda self: ops.log(self)),
        "sigmoid_": _inplace(lambda self: ops.sigmoid(self)),
        "sign_": _inplace(lambda self: ops.sign(self)),
    }
    for name, fn in extra.items():
        if not hasattr(Tensor, name):
            fn.__name__ = fn.__qualname__ = name
            setattr(Tensor, name, fn)
    for name, prop in {
        "H": property(lambda self: ops.adjoint(self) if self.ndim == 2 else _not_2d("H")),
        "mH": property(lambda self: ops.adjoint(self)),
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

    The methods listed here and by the faces table are set; the `FROM_OPS` names and the rest are added only where
    the class has no attribute of that name yet (the classes' own methods stay).
    """
    _install_methods()
    _install_from_ops(ops)
