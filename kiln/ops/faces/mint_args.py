"""The argument conversions mint's faces share: PyTorch's dims and sizes, int64 results, dtypes, in-place writes."""

from __future__ import annotations

import builtins

from kiln._compiler.ir import graph as G
from kiln._core import dtype as mstype
from kiln._core.tensor import Parameter, Tensor
from kiln.ops._helpers import write_back
from kiln.ops.faces.row import ops

__all__ = [
    "_arg_extreme",
    "_cast",
    "_channel_shape",
    "_default_float",
    "_dims",
    "_extreme",
    "_float_dtype",
    "_inplace",
    "_int64",
    "_int_accumulator",
    "_norm_dim",
    "_size",
]


def _dims(dim):
    """None, an int, or a tuple/list of ints -> what Kiln's reductions take as `axis`."""
    if dim is None:
        return None
    if isinstance(dim, int):
        return dim
    dim = tuple(int(d) for d in dim)
    return dim if dim else None


def _norm_dim(dim: int, ndim: int) -> int:
    nd = builtins.max(ndim, 1)
    if not -nd <= dim < nd:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got {dim})")
    return dim % nd


def _cast(x, dtype):
    return x if dtype is None else ops.cast(x, dtype)


def _size(args, name: str) -> tuple[int, ...]:
    """`f(2, 3)`, `f((2, 3))`, `f([2, 3])` -> (2, 3)."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = tuple(args[0])
    if len(args) == 1 and isinstance(args[0], Tensor):
        return tuple(int(s) for s in args[0].tolist()) if args[0].ndim else (int(args[0].item()),)
    for a in args:
        if not isinstance(a, int) or isinstance(a, bool):
            raise TypeError(f"{name}(): 'size' must be ints or a tuple of ints, but got {type(a).__name__}.")
    return tuple(args)


def _inplace(target, value):
    """Write `value` into `target` (the in-place `x_` ops) and return `target`."""
    if isinstance(target, Parameter):  # the result keeps the target's dtype, as PyTorch's in-place ops
        ops.assign(target, ops.cast(value, target.dtype) if isinstance(value, Tensor) else value)
    elif G.is_symbolic(target._data) or G.is_symbolic(value._data):
        raise RuntimeError("an in-place mint op on a tensor that is not a Parameter is not supported in graph mode")
    else:
        write_back([target], [value])
    return target


def _int64(x):
    return x if x.dtype == mstype.int64 else ops.cast(x, mstype.int64)


def _int_accumulator(x, dtype):
    if dtype is None and (x.dtype == mstype.bool_ or x.dtype.is_integer):
        return mstype.int64
    return dtype


def _float_dtype(x):
    return x.dtype if x.dtype.is_floating else mstype.float32


def _extreme(op_all, op_dim, op_pair, input, dim, keepdim, name):
    # a float or bool second argument is `other`, as a Tensor is (MindSpore 2.10: max(int32, 0.5) is float32)
    if isinstance(dim, (Tensor, float, bool)):
        return op_pair(input, dim)
    if dim is None:
        if keepdim:
            raise TypeError(f"{name}() with 'keepdim' needs 'dim'.")
        return op_all(input)
    values, indices = op_dim(input, dim, keepdim)
    return values, _int64(indices)


def _arg_extreme(find, input, dim, keepdim: bool) -> Tensor:
    """`find` (ops.argmax or ops.argmin) along `dim`, over the flattened input for None; as int64."""
    if dim is None:
        out = find(ops.reshape(input, (-1,)), 0)
        out = ops.reshape(out, (1,) * input.ndim) if keepdim else out
    else:
        out = find(input, dim, keepdim)
    return _int64(out)


def _default_float(dtype):
    return mstype.float32 if dtype is None else dtype


def _channel_shape(x, v):
    shape = [1] * x.ndim
    shape[1] = -1
    return ops.reshape(v, tuple(shape))
