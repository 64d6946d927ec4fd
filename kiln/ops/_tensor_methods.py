"""Operators and methods of `Tensor`, installed here because they call ops.

`kiln._core.tensor` sits below `kiln.ops` and cannot import it; this module
completes the class when `kiln.ops` is imported.
"""

from __future__ import annotations

from kiln._core import dtype as mstype
from kiln._core.tensor import Tensor
from kiln.ops import _indexing, array, math


def _swap(fn):
    return lambda self, other: fn(other, self)


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
    from kiln.ops import nn  # noqa: PLC0415  (nn ops are registered after this module)

    return nn.softmax(self, axis)


def _log_softmax(self, axis=-1):
    from kiln.ops import nn  # noqa: PLC0415

    return nn.log_softmax(self, axis)


def _relu(self):
    from kiln.ops import nn  # noqa: PLC0415

    return nn.relu(self)


def _sigmoid(self):
    from kiln.ops import nn  # noqa: PLC0415

    return nn.sigmoid(self)


def _operand(self, other):
    """A list or tuple operand of a Tensor method becomes a Tensor of the method's dtype."""
    return Tensor(other, dtype=self.dtype) if isinstance(other, (list, tuple)) else other


def _add(self, other, *, alpha=1):
    other = _operand(self, other)
    return math.add(self, other if alpha == 1 else math.mul(other, alpha))


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
    "__add__": math.add,
    "__radd__": _swap(math.add),
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
    "__eq__": math.equal,
    "__ne__": math.not_equal,
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
    "copy": lambda self: Tensor._wrap(self._data),
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
    "gather": lambda self, input_indices, axis, batch_dims=0: array.gather(self, input_indices, axis, batch_dims),
    "gather_elements": array.gather_elements,
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
    "add": _add,
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
    METHODS.setdefault(_name, getattr(math, _name))


def install() -> None:
    for name, fn in METHODS.items():
        setattr(Tensor, name, fn)
