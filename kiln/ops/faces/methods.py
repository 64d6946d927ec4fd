"""Tensor-method adapters: MindSpore's (and NumPy's and PyTorch's) method forms over the functional ops, read
by the rows that own each method."""

from __future__ import annotations

from collections.abc import Callable

from kiln._core import dtype as mstype
from kiln._core.tensor import Tensor
from kiln.ops._helpers import make_binary
from kiln.ops._indexing import snapshot
from kiln.ops.faces.row import FUNCTIONAL, ops

__all__ = [
    "_CAST_METHODS",
    "_METHOD_ADAPTERS",
    "_argmax_method",
    "_argmin_method",
    "_bool_reduction_method",
    "_cumsum_method",
    "_div_method",
    "_index_select_method",
    "_log_softmax_method",
    "_number_in_tensor_dtype",
    "_max_method",
    "_mean_method",
    "_min_method",
    "_prod_method",
    "_relu_method",
    "_repeat_method",
    "_round_method",
    "_sigmoid_method",
    "_softmax_method",
    "_sort_method",
    "_std_method",
    "_take_method",
    "_sum_method",
    "_var_method",
]


# ---- Tensor-method adapters: MindSpore's (and NumPy's) method forms over the functional ops -------------------------
def _shape_args(shape):
    """`t.reshape(2, 3)` and `t.reshape((2, 3))` both name the shape (2, 3)."""
    return shape[0] if len(shape) == 1 and not isinstance(shape[0], int) else shape


def _transpose_method(self, axes: tuple, dim0: int | None, dim1: int | None) -> Tensor:
    """Tensor.transpose: MindSpore 2.10's `transpose(dim0, dim1)` (two axes given as two integers, or as the keywords,
    are exchanged: `t.transpose(0, 1)` of a matrix is its transpose, as in its PyNative and its documentation) and its
    older `transpose(*axes)` (a full permutation, as one tuple or as three or more integers; none reverses the axes)."""
    if dim0 is not None or dim1 is not None:
        axes = (*axes, *(d for d in (dim0, dim1) if d is not None))
        if len(axes) != 2:
            raise TypeError(
                f"Tensor.transpose(dim0, dim1) exchanges two axes, but got {len(axes)} axes {axes} for a Tensor of "
                f"shape {list(self.shape)}."
            )
    if len(axes) == 2 and all(isinstance(a, int) for a in axes):
        return ops.swapaxes(self, *axes)
    return ops.transpose(self, _shape_args(axes) or tuple(reversed(range(self.ndim))))


def _cast_to(dtype) -> Callable:
    """`t.float()`, `t.half()`, ...: a cast to a fixed dtype."""

    def method(self):
        return ops.cast(self, dtype)

    return method


def _astype_to(dtype) -> Callable:
    """`t.byte()`, `t.short()`, `t.bfloat16()`: `t.astype(dtype)`."""

    def method(self):
        return self.astype(dtype)

    return method


def _not_numeric(other) -> bool:
    """None, a str, a dict, a tuple or a list: a value no Tensor equals (MindSpore 2.10 compares a Tensor with a
    tuple or list of numbers as unequal objects too, in PyNative and in graphs)."""
    return other is None or isinstance(other, (str, dict, tuple, list))


def _equality(name: str, unequal: bool) -> Callable:
    """`t == other` / `t != other` (the op `name`): a str, None, dict, tuple or list is never equal to a Tensor: a
    Python bool, as MindSpore gives and as Python compares unrelated objects (`list.count(t)`)."""

    def method(self, other):
        if _not_numeric(other):
            return unequal
        return FUNCTIONAL[name](self, other)

    return method


def _copy_source(self, src) -> Tensor:
    """`src` (a Tensor, array or number) broadcast to `self`'s shape: what `t.copy_(src)` writes."""
    src = src if isinstance(src, Tensor) else Tensor(src, dtype=self.dtype)
    return ops.broadcast_to(src, self.shape)


def _scatter(self, dim, index, src, reduce) -> Tensor:
    """`t.scatter_(dim, index, src)`: `src` a Tensor or a number written at every index; `reduce` None, "add" or
    "multiply"."""
    if not isinstance(src, Tensor):
        src = ops.full(tuple(index.shape), src, dtype=self.dtype)
    if reduce is None:
        return ops.scatter(self, dim, index, src)
    if reduce == "add":
        return ops.scatter_add(self, dim, index, src)
    if reduce == "multiply":
        return ops.tensor_scatter_elements(self, index, src, dim, "multiply")
    raise ValueError(f"Tensor.scatter_: reduce must be None, 'add' or 'multiply', but got {reduce!r}.")


def _scatter_(self, dim, index, src=None, *, value=None, reduce=None) -> Tensor:
    """MindSpore's overloads: `scatter_(dim, index, src)` and `scatter_(dim, index, value)` (a number, also by
    keyword), each with an optional `reduce`."""
    if (src is None) == (value is None):
        raise TypeError("Tensor.scatter_: give one of `src` and `value`.")
    return _scatter(self, dim, index, value if src is None else src, reduce)


def _inplace_method(fn: Callable) -> Callable:
    """A method `t.op_(...)`: `t` takes the value of `fn(t, ...)` (its dtype kept) and is returned."""

    def method(self, *args, **kwargs):
        # computed from a separate handle on `self`'s current value: the tape keeps that value, not the tensor the
        # write changes (a gradient through `y.mul_(x)` needs y as it was)
        out = fn(snapshot(self), *args, **kwargs)
        return self.assign_value(out.astype(self.dtype) if out.dtype != self.dtype else out)

    return method


_CAST_METHODS = {
    "astype": lambda self, dtype, copy=True: ops.cast(self, dtype),
    "to": lambda self, dtype: ops.cast(self, dtype),
    "float": _cast_to(mstype.float32),
    "half": _cast_to(mstype.float16),
    "double": _cast_to(mstype.float64),
    "int": _cast_to(mstype.int32),
    "long": _cast_to(mstype.int64),
    "bool": _cast_to(mstype.bool_),
    "type_as": lambda self, other: self.astype(other.dtype),
    "byte": _astype_to(mstype.uint8),
    "short": _astype_to(mstype.int16),
    "bfloat16": _astype_to(mstype.bfloat16),
}


def _not_2d(name):
    raise ValueError(f"Tensor.{name} is defined for 2-D tensors only; use Tensor.mH for batches of matrices.")


def _round_method(self, decimals=0):
    """Tensor.round: `decimals` places (MindSpore's method takes them, the functional face does not)."""
    if decimals == 0:
        return ops.round(self)
    scale = 10.0**decimals
    return ops.div(ops.round(ops.mul(self, scale)), scale)


def _index_select_method(self, axis=None, index=None, *, dim=None):
    """Tensor.index_select: MindSpore's `axis` or PyTorch's `dim`."""
    return ops.index_select(self, dim if dim is not None else axis, index)


def _softmax_method(self, axis=-1):
    return ops.softmax(self, axis)


def _log_softmax_method(self, axis=-1):
    return ops.log_softmax(self, axis)


def _relu_method(self):
    return ops.relu(self)


def _sigmoid_method(self):
    return ops.sigmoid(self)


def _number_in_tensor_dtype(prim_name: str, name: str, *, reflected: bool = False) -> Callable:
    """Tensor's `*` and `/` operators and its `mul`/`div` methods: the functional face `name` of `prim_name`, except
    that a Python float beside a float16/bfloat16 Tensor is rounded to the Tensor's dtype first, as MindSpore 2.10's
    operators and methods convert it (`ops.mul`, `ops.div` and their Primitive classes compute with it in float32:
    number_operand_in_float32). `reflected`: the operands swapped (`0.5 * t` calls `t.__rmul__(0.5)`)."""
    op = make_binary(prim_name, name, float_in_tensor_dtype=True)
    if not reflected:
        return op

    def reflected_op(self, other):
        return op(other, self)

    return reflected_op


_true_div_of_rounded_float = _number_in_tensor_dtype("Div", "div")


def _div_method(self, value, *, rounding_mode=None):
    """Tensor.div: `ops.div`, a Python float beside a float16/bfloat16 Tensor first rounded to its dtype (as `/`)."""
    if rounding_mode is None:
        return _true_div_of_rounded_float(self, value)
    return ops.div(self, value, rounding_mode=rounding_mode)


# {functional name: {Tensor method: adapter}}, read by that op's row: MindSpore's methods take the shape as
# varargs (`t.reshape(2, 3)`) or another Tensor's shape, PyTorch's spellings (`permute`, `expand`), or write in place
_METHOD_ADAPTERS = {
    "reshape": {"reshape": lambda self, *shape: ops.reshape(self, _shape_args(shape)),
                "view_as": lambda self, other: ops.reshape(self, other.shape),
                "reshape_as": lambda self, other: ops.reshape(self, other.shape),
                "ravel": lambda self: ops.reshape(self, (-1,))},
    "view": {"view": lambda self, *shape: ops.view(self, *shape)},
    "transpose": {
        "transpose": lambda self, *axes, dim0=None, dim1=None: _transpose_method(self, axes, dim0, dim1),
        "permute": lambda self, *axes: ops.transpose(self, _shape_args(axes)),
        "T": property(lambda self: ops.transpose(self, tuple(reversed(range(self.ndim))))),
        "t": lambda self: self if self.ndim < 2 else ops.transpose(self, (1, 0)),
    },
    "swapaxes": {"mT": property(lambda self: ops.swapaxes(self, -1, -2)),
                 "swapdims": lambda self, dim0, dim1: ops.swapaxes(self, dim0, dim1)},
    "moveaxis": {"movedim": lambda self, source, destination: ops.moveaxis(self, source, destination)},
    "flatten": {"flatten": lambda self, order="C", *, start_dim=0, end_dim=-1: ops.flatten(
        self, order, start_dim=start_dim, end_dim=end_dim
    )},
    "broadcast_to": {
        "expand_as": lambda self, other: ops.broadcast_to(self, other.shape),
        "expand": lambda self, size: ops.broadcast_to(self, tuple(size) if not isinstance(size, int) else (size,)),
    },
    "tile": {"tile": lambda self, *reps: ops.tile(self, _shape_args(reps))},
    "split": {"split": lambda self, split_size_or_sections, axis=0: ops.split(self, split_size_or_sections, axis)},
    "select": {"where": lambda self, condition, y: ops.select(condition, self, y)},
    "clamp": {"clip": lambda self, min=None, max=None: ops.clamp(self, min, max),  # MindSpore 2.x's names
              "clamp": lambda self, min=None, max=None: ops.clamp(self, min, max),
              "clamp_": _inplace_method(lambda self, min=None, max=None: ops.clamp(self, min, max))},
    "identity": {"copy": lambda self: ops.identity(self),  # a recorded op: gradients flow through the copy
                 "clone": lambda self: ops.identity(self),
                 "copy_": _inplace_method(lambda self, src, non_blocking=False: _copy_source(self, src))},
    "zeros": {"new_zeros": lambda self, size, dtype=None: ops.zeros(size, dtype or self.dtype),
              "new_empty": lambda self, size, dtype=None, device=None: ops.zeros(size, dtype or self.dtype)},
    "ones": {"new_ones": lambda self, size, dtype=None: ops.ones(size, dtype or self.dtype)},
    "full": {
        "new_full": lambda self, size, fill_value, dtype=None: ops.full(size, fill_value, dtype=dtype or self.dtype)
    },
    "full_like": {"fill": lambda self, value: ops.full_like(self, value)},
    "outer": {"ger": lambda self, vec2: ops.outer(self, vec2)},
    "index_add": {
        "index_add": lambda self, dim, index, source, *, alpha=1: ops.index_add(self, index, source * alpha, dim),
        "index_add_": _inplace_method(
            lambda self, dim, index, source, *, alpha=1: ops.index_add(self, index, source * alpha, dim)
        ),
    },
    "index_fill": {
        "index_fill_": _inplace_method(lambda self, dim, index, value: ops.index_fill(self, dim, index, value))
    },
    "masked_scatter": {
        "masked_scatter_": _inplace_method(lambda self, mask, source: ops.masked_scatter(self, mask, source))
    },
    "scatter": {
        "scatter_": _inplace_method(_scatter_)
    },
    "scatter_add": {
        "scatter_add_": _inplace_method(lambda self, dim, index, src: ops.scatter_add(self, dim, index, src))
    },
    "mul": {"mul_": _inplace_method(lambda self, other: ops.mul(self, other))},
    "equal": {"__eq__": _equality("equal", False)},
    "not_equal": {"__ne__": _equality("not_equal", True)},
    "tanh": {"tanh_": _inplace_method(lambda self: ops.tanh(self))},
    "floor_divide": {"floor_divide_": _inplace_method(lambda self, other: ops.floor_divide(self, other))},
    "remainder": {"remainder_": _inplace_method(lambda self, other: ops.remainder(self, other))},
    "qr": {"qr": lambda self, some=True: ops.qr(self, "reduced" if some else "complete")},
    "clip_by_value": {"clip_by_value": lambda self, clip_value_min=None, clip_value_max=None: ops.clip_by_value(
        self, clip_value_min, clip_value_max
    )},
    "masked_fill": {"masked_fill_": _inplace_method(lambda self, mask, value: ops.masked_fill(self, mask, value))},
    "addmm": {"addmm_": _inplace_method(
        lambda self, mat1, mat2, *, beta=1, alpha=1: ops.addmm(self, mat1, mat2, beta=beta, alpha=alpha)
    )},
    "div": {"div_": _inplace_method(
        lambda self, value, *, rounding_mode=None: ops.div(self, value, rounding_mode=rounding_mode)
    )},
    "sigmoid": {"sigmoid_": _inplace_method(lambda self: ops.sigmoid(self))},
    "add": {
        "add_": _inplace_method(lambda self, other, *, alpha=1: ops.add(self, other * alpha if alpha != 1 else other))
    },
    "sub": {
        "sub_": _inplace_method(lambda self, other, *, alpha=1: ops.sub(self, other * alpha if alpha != 1 else other))
    },
    "erfinv": {"erfinv_": _inplace_method(lambda self: ops.erfinv(self))},
    "exp": {"exp_": _inplace_method(lambda self: ops.exp(self))},
    "floor": {"floor_": _inplace_method(lambda self: ops.floor(self))},
    "log": {"log_": _inplace_method(lambda self: ops.log(self))},
    "sign": {"sign_": _inplace_method(lambda self: ops.sign(self))},
    "is_complex": {"is_complex": lambda self: self.dtype.is_complex},
    "is_floating_point": {"is_floating_point": lambda self: self.dtype.is_floating},
    "numel": {"numel": lambda self: self.size},
    "positive": {"positive": lambda self: self},
    "random_categorical": {
        "random_categorical": lambda self, num_sample, seed=0, dtype=mstype.int64: ops.RandomCategorical(dtype)(
            self, num_sample, seed
        )
    },
    "tensor_scatter_sub": {
        "scatter_sub": lambda self, indices, updates: ops.tensor_scatter_sub(self, indices, updates)
    },
    "tensor_scatter_mul": {
        "scatter_mul": lambda self, indices, updates: ops.tensor_scatter_mul(self, indices, updates)
    },
    "tensor_scatter_div": {
        "scatter_div": lambda self, indices, updates: ops.tensor_scatter_div(self, indices, updates)
    },
    "tensor_scatter_max": {
        "scatter_max": lambda self, indices, updates: ops.tensor_scatter_max(self, indices, updates)
    },
    "tensor_scatter_min": {
        "scatter_min": lambda self, indices, updates: ops.tensor_scatter_min(self, indices, updates)
    },
    "adjoint": {
        "H": property(lambda self: ops.adjoint(self) if self.ndim == 2 else _not_2d("H")),
        "mH": property(lambda self: ops.adjoint(self)),
    },
}  # fmt: skip


# ---- Tensor-method adapters of the reductions: MindSpore's methods take NumPy's extra arguments ----------------------
def _extremum(self, kind: str, axis, keepdims, initial, where, return_indices):
    """Tensor.max/min: `where` limits the elements compared and `initial` joins every result (as NumPy)."""
    if where is not None:
        if initial is None:
            raise ValueError(f"Tensor.{kind}(): 'where' needs 'initial' (the value of an output with no element).")
        self = FUNCTIONAL["select"](where, self, Tensor(initial, self.dtype))
    if initial is not None and return_indices:
        raise ValueError(f"Tensor.{kind}(): 'initial' and 'return_indices' cannot be used together.")
    if axis is None:
        out = FUNCTIONAL["amax" if kind == "max" else "amin"](self, None, keepdims)
    else:
        out = FUNCTIONAL[kind](self, axis, keepdims)
        if return_indices:
            return out
        out = out[0]
    if initial is not None:
        out = FUNCTIONAL["maximum" if kind == "max" else "minimum"](out, Tensor(initial, self.dtype))
    return out


def _refuse_out(name: str, out) -> None:
    # NumPy's np.max/min/sum/all/any(tensor) call the method with out=None; an array to write into is refused
    if out is not None:
        raise TypeError(f"Tensor.{name}(): 'out' is not supported; use the returned Tensor.")


def _max_method(self, axis=None, keepdims=False, *, initial=None, where=None, return_indices=False, out=None):
    _refuse_out("max", out)
    return _extremum(self, "max", axis, keepdims, initial, where, return_indices)


def _min_method(self, axis=None, keepdims=False, *, initial=None, where=None, return_indices=False, out=None):
    _refuse_out("min", out)
    return _extremum(self, "min", axis, keepdims, initial, where, return_indices)


def _sum_method(self, axis=None, dtype=None, keepdims=False, initial=None, out=None):
    _refuse_out("sum", out)
    out = FUNCTIONAL["sum"](self, axis, keepdims, dtype=dtype)
    return out if initial is None else out + initial


def _searchsorted_method(self, v, side="left", sorter=None):
    """Tensor.searchsorted, NumPy's signature: where `v` would go in this sorted tensor, as int32 indices (MindSpore
    2.10's method; the functional `searchsorted` gives int64 unless `out_int32`)."""
    return FUNCTIONAL["searchsorted"](self, v, out_int32=True, side=side, sorter=sorter)


def _trace_method(self, offset=0, axis1=0, axis2=1, dtype=None):
    """Tensor.trace, NumPy's: the sum along diagonal `offset` of the planes (`axis1`, `axis2`); bool and small
    integers sum to int64, as MindSpore 2.10's method does (its `ops.trace` keeps an int32 input's dtype)."""
    return FUNCTIONAL["sum"](FUNCTIONAL["diagonal"](self, offset, axis1, axis2), -1, dtype=dtype)


def _bool_reduction_method(name: str) -> Callable:
    """Tensor.all / Tensor.any: MindSpore's `keep_dims`, PyTorch's `dim`/`keepdim` and NumPy's `keepdims` spellings
    all work (`np.all(tensor)` calls the method with `out=None`)."""

    def method(self, axis=None, keep_dims=False, *, dim=None, keepdim=None, keepdims=None, out=None):
        _refuse_out(name, out)
        axis = dim if dim is not None else axis
        keep = next((k for k in (keepdim, keepdims) if k is not None), keep_dims)
        return FUNCTIONAL[name](self, axis, keep)

    return method


# MindSpore's Tensor methods name the reduction arguments positionally (axis, keep_dims / keepdims, ddof)
def _mean_method(self, axis=None, keep_dims=False):
    return FUNCTIONAL["mean"](self, axis, keep_dims)


def _prod_method(self, axis=None, keep_dims=False):
    return FUNCTIONAL["prod"](self, axis, keep_dims)


def _argmax_method(self, axis=None, keepdims=False, *, dim=None, keepdim=None):
    """Tensor.argmax: MindSpore's `axis`/`keepdims` or its PyTorch-style overload's `dim`/`keepdim`."""
    return FUNCTIONAL["argmax"](self, dim if dim is not None else axis, keepdims if keepdim is None else keepdim)


def _repeat_method(self, *repeats, **kwargs):
    """Tensor.repeat(*repeats) as MindSpore 2.10: PyTorch's repeat (a tile, one count per axis, at least one per
    axis of the Tensor); NumPy's element repeat is Tensor.repeat_interleave."""
    if kwargs.keys() - {"repeats"}:
        raise TypeError(f"repeat() got an unexpected keyword argument {sorted(kwargs.keys() - {'repeats'})[0]!r}.")
    if "repeats" in kwargs:
        if repeats:
            raise TypeError("repeat() got multiple values for argument 'repeats'.")
        repeats = (kwargs["repeats"],)
    counts = tuple(_shape_args(repeats)) if not isinstance(_shape_args(repeats), int) else (repeats[0],)
    if len(counts) < self.ndim:
        raise ValueError(
            f"Tensor.repeat: give one count per axis (the Tensor has {self.ndim} axes), but got {len(counts)} "
            f"count(s) {list(counts)}; NumPy's element repeat is Tensor.repeat_interleave."
        )
    return ops.tile(self, counts)


def _take_method(self, indices, axis=None, mode="clip"):
    """Tensor.take as MindSpore 2.10 (NumPy's form): the elements at `indices` along `axis` (None: of the flattened
    Tensor); 'clip' keeps indices in [-n, n) and moves the others to the nearer end, 'wrap' takes them modulo n."""
    if mode not in ("clip", "wrap", "raise"):
        raise ValueError(f"For 'Tensor.take', 'mode' must be 'raise', 'wrap' or 'clip', but got {mode!r}.")
    if mode == "raise":
        raise NotImplementedError("For 'Tensor.take', mode 'raise' is not implemented (as in MindSpore 2.10).")
    source = self.ravel() if axis is None else self
    axis = 0 if axis is None else axis
    if not -source.ndim <= axis < source.ndim:
        raise ValueError(f"For 'Tensor.take', 'axis' must be in [{-source.ndim}, {source.ndim}), but got {axis}.")
    n = source.shape[axis]
    indices = indices if isinstance(indices, Tensor) else Tensor(indices)
    if mode == "wrap":
        fixed = ops.floor_mod(indices, n)
    else:
        fixed = ops.clamp(ops.select(indices < -n, ops.zeros_like(indices), indices), None, n - 1)
    return ops.gather(source, fixed, axis)


def _argmin_method(self, axis=None, keepdims=False, *, dim=None, keepdim=None):
    """Tensor.argmin: MindSpore's `axis`/`keepdims` or its PyTorch-style overload's `dim`/`keepdim`."""
    return FUNCTIONAL["argmin"](self, dim if dim is not None else axis, keepdims if keepdim is None else keepdim)


def _std_method(self, axis=None, ddof=0, keepdims=False):
    return FUNCTIONAL["std"](self, axis, ddof, keepdims)


def _var_method(self, axis=None, ddof=0, keepdims=False):
    return FUNCTIONAL["var"](self, axis, ddof, keepdims)


# Tensor.cumsum scans these in int32 (the functional cumsum refuses bool and keeps int8's wrap-around).
_CUMSUM_TO_INT32 = frozenset(("bool_", "int8", "int16", "uint8"))


def _cumsum_method(self, axis=None, dtype=None, *, dim=None):
    """Tensor.cumsum as MindSpore 2.10's method: axis None scans the flattened Tensor (as NumPy); `dim` is its
    PyTorch-style name for the axis; bool and int8/int16/uint8 scan in int32; `dtype`, where it differs from the
    Tensor's own, casts the result (the scan runs in the input's dtype, so float16 overflows as in MindSpore)."""
    if dim is not None:
        if axis is not None:
            raise TypeError(f"Tensor.cumsum takes the axis once, but got axis={axis} and dim={dim}.")
        axis = dim
    x = self if axis is not None else self.ravel()
    if x.dtype.name in _CUMSUM_TO_INT32:
        x = ops.cast(x, mstype.int32)
    out = FUNCTIONAL["cumsum"](x, axis or 0)
    return ops.cast(out, dtype) if dtype is not None and dtype != self.dtype else out


def _sort_method(self, axis=-1, descending=False):
    return FUNCTIONAL["sort"](self, axis, descending)
