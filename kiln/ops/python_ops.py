"""MindSpore's functional names for Python-level operations (`ops.scalar_add`, `ops.tuple_getitem`, `ops.bool_and`,
`ops.make_list`, `ops.typeof`, ...); it also exports the custom-op registration helpers (`op_info_register`,
`CpuRegOp`, ...) defined in `kiln.ops.op_info_register`.

MindSpore's graph compiler uses these as the nodes for Python values; programs call some of them directly. In Kiln
they are the Python operations themselves: on Python values they fold to constants while a graph is compiled, and on
Tensors they dispatch the matching tensor ops.
"""

from __future__ import annotations

import copy as _copy
import math as _pymath
import operator as _op

from kiln._compiler.ir import graph as G
from kiln._core import dtype as mstype
from kiln._core.mutable import has_dynamic_length
from kiln._core.tensor import Tensor
from kiln.ops.op_info_register import (
    AiCPURegOp,
    AkgAscendRegOp,
    AkgGpuRegOp,
    CpuRegOp,
    CustomRegOp,
    DataType,
    TBERegOp,
    custom_info_register,
    kernel,
    op_info_register,
)

__all__ = [
    "scalar_add", "scalar_sub", "scalar_mul", "scalar_div", "scalar_floordiv", "scalar_mod", "scalar_pow",
    "scalar_eq", "scalar_ne", "scalar_lt", "scalar_le", "scalar_gt", "scalar_ge", "scalar_max", "scalar_min",
    "scalar_cast",
    "scalar_log", "scalar_uadd", "scalar_usub", "scalar_to_tensor", "scalar_to_array", "tuple_to_array",
    "bool_and", "bool_or", "bool_not", "bool_eq", "string_concat", "string_eq", "tuple_getitem", "list_getitem",
    "dict_getitem", "tuple_setitem", "list_setitem", "dict_setitem", "tuple_len", "list_len", "tuple_equal",
    "list_equal", "tuple_reversed", "tuple_div", "make_list", "make_dict", "make_range", "make_slice", "in_dict",
    "not_in_dict", "is_", "is_not", "typeof", "hastype", "isconstant", "dtype", "shape_", "dyn_shape", "shape_mul",
    "deepcopy", "print_", "zip_operation", "tail", "array_to_scalar", "augassign_add", "augassign_sub",
    "augassign_mul", "augassign_div", "augassign_floordiv", "augassign_mod", "mixed_precision_cast", "hyper_add",
    "op_info_register", "custom_info_register", "kernel", "DataType", "CpuRegOp", "AiCPURegOp", "AkgGpuRegOp",
    "AkgAscendRegOp", "TBERegOp", "CustomRegOp", "add_flags", "ms_next", "ms_hasnext", "iter_converter",
    "reduced_shape", "array_reduce", "env_get", "environ_get", "environ_set", "environ_add", "environ_create",
    "is_sequence_value_unknown", "is_sequence_shape_unknown",
]  # fmt: skip

scalar_add, scalar_sub, scalar_mul, scalar_div = _op.add, _op.sub, _op.mul, _op.truediv
scalar_floordiv, scalar_mod, scalar_pow = _op.floordiv, _op.mod, _op.pow
scalar_eq, scalar_ne, scalar_lt, scalar_le, scalar_gt, scalar_ge = _op.eq, _op.ne, _op.lt, _op.le, _op.gt, _op.ge
scalar_uadd, scalar_usub = _op.pos, _op.neg
augassign_add, augassign_sub, augassign_mul, augassign_div = _op.iadd, _op.isub, _op.imul, _op.itruediv
augassign_floordiv, augassign_mod = _op.ifloordiv, _op.imod
tuple_getitem = list_getitem = dict_getitem = _op.getitem
tuple_equal = list_equal = bool_eq = string_eq = _op.eq
string_concat = _op.add
is_, is_not = _op.is_, _op.is_not


# MindSpore's ScalarCast converts to these three types only
_SCALAR_CASTS = {mstype.int64: int, mstype.float64: float, mstype.bool_: bool}


def scalar_cast(x, t):
    """The Python number `x` as int64 (an int, truncated toward zero), float64 (a float) or bool_ (a bool).

    Args:
        x (Union[bool, int, float]): the number.
        t (mindspore.dtype): int64, float64 or bool_.

    Raises:
        TypeError: `x` is not a Python number.
        ValueError: `t` is another dtype.
    """
    if not isinstance(x, (bool, int, float)):
        raise TypeError(f"For 'ScalarCast', 'x' must be a bool or a number, but got {type(x).__name__}.")
    if t not in _SCALAR_CASTS:
        raise ValueError(f"For 'ScalarCast', 't' must be int64, float64 or bool_, but got {t}.")
    return _SCALAR_CASTS[t](x)


def scalar_max(x, y):
    """The larger of two Python numbers."""
    return max(x, y)


def scalar_min(x, y):
    """The smaller of two Python numbers."""
    return min(x, y)


def scalar_log(x):
    """Natural log of a Python number."""
    return _pymath.log(x)


def scalar_to_tensor(input_x, dtype=mstype.float32) -> Tensor:
    """A 0-D Tensor holding the Python number `input_x`."""
    return Tensor(input_x, dtype)


def scalar_to_array(input_x) -> Tensor:
    """A 0-D Tensor holding the Python number `input_x` (its natural dtype)."""
    return Tensor(input_x)


def tuple_to_array(input_x) -> Tensor:
    """A 1-D Tensor of the numbers in a tuple (int32 for ints, float32 for floats, as MindSpore)."""
    if any(isinstance(v, float) for v in input_x):
        return Tensor(list(input_x), mstype.float32)
    return Tensor(list(input_x), mstype.int32)


def array_to_scalar(x):
    """The Python number held by a one-element Tensor."""
    return x.asnumpy().item() if isinstance(x, Tensor) else x


def bool_and(x, y):
    """`x and y` of Python bools."""
    return x and y


def bool_or(x, y):
    """`x or y` of Python bools."""
    return x or y


def bool_not(x):
    """`not x` of a Python bool."""
    return not x


def tuple_setitem(seq, index, value):
    """A copy of the tuple `seq` with `seq[index] = value`."""
    out = list(seq)
    out[index] = value
    return tuple(out)


def list_setitem(seq, index, value):
    """A copy of the list `seq` with `seq[index] = value`."""
    out = list(seq)
    out[index] = value
    return out


def dict_setitem(d, key, value):
    """A copy of the dict `d` with `d[key] = value`."""
    out = dict(d)
    out[key] = value
    return out


def tuple_len(seq):
    """`len(seq)`."""
    return len(seq)


list_len = tuple_len


def tuple_reversed(seq):
    """The tuple reversed."""
    return tuple(reversed(seq))


def tuple_div(x, y):
    """Elementwise integer division of two shape tuples (each must divide evenly)."""
    if len(x) != len(y):
        raise ValueError(f"tuple_div: the tuples must have the same length, but got {len(x)} and {len(y)}.")
    for a, b in zip(x, y):
        if b == 0 or a % b:
            raise ValueError(f"tuple_div: {a} is not divisible by {b}.")
    return tuple(a // b for a, b in zip(x, y))


def make_list(*elements):
    """A list of the arguments."""
    return list(elements)


def make_dict(keys, values):
    """A dict from a tuple of keys and a tuple of values."""
    return dict(zip(keys, values))


def make_range(*args):
    """`range(*args)` as a tuple."""
    return tuple(range(*args))


def make_slice(start, stop, step):
    """`slice(start, stop, step)`."""
    return slice(start, stop, step)


def in_dict(key, d):
    """`key in d`."""
    return key in d


def not_in_dict(key, d):
    """`key not in d`."""
    return key not in d


def typeof(x):
    """Kiln's type of a value: the dtype of a Tensor, else the Python type."""
    return x.dtype if isinstance(x, Tensor) else type(x)


def hastype(x, t):
    """Whether `x` is of type `t` (a dtype for Tensors)."""
    return x.dtype == t if isinstance(x, Tensor) and isinstance(t, mstype.DType) else isinstance(x, t)


def isconstant(x):
    """Whether `x` is a constant of the program (a Python value, not a Tensor)."""
    return not isinstance(x, Tensor)


def is_sequence_value_unknown(seq) -> bool:
    """Whether some item of a tuple or list is known only when the compiled graph runs.

    Args:
        seq: a tuple or list.

    Returns:
        True inside a graph when an item is a Tensor (or `mutable` number) computed or passed in at run time;
        False for constant items, and always in PyNative (every value is known there).
    """
    if not isinstance(seq, (tuple, list)):
        raise TypeError(f"is_sequence_value_unknown expects a tuple or list, but got {type(seq).__name__}.")
    return any(isinstance(x, Tensor) and G.is_symbolic(x._data) for x in seq)


def is_sequence_shape_unknown(seq) -> bool:
    """Whether the length of a tuple or list is known only when the compiled graph runs.

    Args:
        seq: a tuple or list.

    Returns:
        True inside a graph for a sequence the program declared variable-length (`mutable(..., dynamic_len=True)`
        and the `tuple()`, `list()`, `+` and slices of one); False otherwise, and always in PyNative. Kiln
        compiles a graph for each length it meets either way.
    """
    if not isinstance(seq, (tuple, list)):
        raise TypeError(f"is_sequence_shape_unknown expects a tuple or list, but got {type(seq).__name__}.")
    return has_dynamic_length(seq) and G.current() is not None


def dtype(x):
    """The dtype of a Tensor."""
    return x.dtype


def shape_(x):
    """The shape of a Tensor."""
    return x.shape


def dyn_shape(input_x) -> Tensor:
    """The shape of a Tensor, as an int64 Tensor."""
    return Tensor(list(input_x.shape), mstype.int64)


def shape_mul(input_data):
    """The product of a shape tuple."""
    return _pymath.prod(input_data)


def reduced_shape(shape, axis):
    """`shape` with the reduced axes set to 1."""
    axes = (axis,) if isinstance(axis, int) else tuple(axis) or tuple(range(len(shape)))
    axes = {a % max(len(shape), 1) for a in axes}
    return tuple(1 if i in axes else s for i, s in enumerate(shape))


def array_reduce(fn, shape, axis):
    """Reduce a shape over `axis` with `fn` (MindSpore's shape helper)."""
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    out = 1
    for a in axes:
        out = fn(out, shape[a])
    return out


def deepcopy(input_x):
    """A deep copy (a new Tensor for a Tensor)."""
    if isinstance(input_x, Tensor):
        return input_x.copy()
    return _copy.deepcopy(input_x)


def print_(*input_x):
    """Print the arguments (Tensors as their values)."""
    print(*(a.asnumpy() if isinstance(a, Tensor) else a for a in input_x))


def zip_operation(*sequences):
    """`tuple(zip(*sequences))`."""
    return tuple(zip(*sequences))


def tail(seq):
    """All but the first element of a tuple."""
    return tuple(seq[1:])


def hyper_add(x, y):
    """Add two values of the same structure (Tensors, numbers, tuples, lists), leaf by leaf."""
    if isinstance(x, (tuple, list)):
        return type(x)(hyper_add(a, b) for a, b in zip(x, y))
    return x + y


def mixed_precision_cast(dst_dtype, x):
    """Cast the float Tensors in `x` (a Tensor or a nested tuple/list/dict) to `dst_dtype`."""
    if isinstance(x, Tensor):
        return x.astype(dst_dtype) if x.dtype.is_floating else x
    if isinstance(x, (tuple, list)):
        return type(x)(mixed_precision_cast(dst_dtype, v) for v in x)
    if isinstance(x, dict):
        return {k: mixed_precision_cast(dst_dtype, v) for k, v in x.items()}
    return x


def ms_next(it):
    """(next element, the rest) of a tuple iterated by MindSpore's graph compiler."""
    return it[0], tuple(it[1:])


def ms_hasnext(it):
    """Whether a tuple iterated by the graph compiler has elements left."""
    return len(it) > 0


def iter_converter(x):
    """The iterable as a tuple (the graph compiler's iteration source)."""
    return tuple(x)


def add_flags(fn=None, **flags):
    """Set attributes on a function or Cell (`fn._kiln_flags`); usable as a decorator."""

    def apply(f):
        existing = dict(getattr(f, "_kiln_flags", {}))
        existing.update(flags)
        try:
            f._kiln_flags = existing
        except AttributeError:
            pass
        return f

    return apply if fn is None else apply(fn)


def core(fn=None, **flags):
    """MindSpore's `ops.composite.base.core`: `add_flags` with `core=True` (a core graph; flags such as
    `loop_can_uroll` ask its compiler to unroll loops, which Kiln's graph frontend does for Python loops anyway)."""
    return add_flags(fn, **{"core": True, **flags})


_ENV: dict = {}


def environ_create():
    """A new environment (a dict) for `environ_set`/`environ_get`."""
    return {}


def environ_set(env, key, value):
    """A copy of `env` with `key` set."""
    out = dict(env)
    out[key] = value
    return out


def environ_get(env, key, default):
    """`env[key]`, or `default`."""
    return env.get(key, default)


def environ_add(a, b):
    """The union of two environments (`b` wins)."""
    return {**a, **b}


env_get = environ_get
