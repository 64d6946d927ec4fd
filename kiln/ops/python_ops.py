"""MindSpore's functional names for Python-level operations (`ops.scalar_add`, `ops.tuple_getitem`, `ops.bool_and`,
`ops.make_list`, `ops.typeof`, ...) and the custom-op registration helpers (`op_info_register`, `CpuRegOp`, ...).

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
from kiln._core.tensor import Tensor

__all__ = [
    "scalar_add", "scalar_sub", "scalar_mul", "scalar_div", "scalar_floordiv", "scalar_mod", "scalar_pow",
    "scalar_eq", "scalar_ne", "scalar_lt", "scalar_le", "scalar_gt", "scalar_ge", "scalar_max", "scalar_min",
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
        False: Kiln compiles a graph for each length it meets (`mutable(..., dynamic_len=True)` included).
    """
    if not isinstance(seq, (tuple, list)):
        raise TypeError(f"is_sequence_shape_unknown expects a tuple or list, but got {type(seq).__name__}.")
    return False


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


# Custom-op registration. Kiln compiles every op through XLA, so the kernel information these builders collect
# describes nothing that Kiln uses: they keep MindSpore's builder interface and return the collected description.
class _RegOp:
    """Builder of a custom op's kernel description (`.input(...)`, `.output(...)`, `.attr(...)`, `.get_op_info()`)."""

    def __init__(self, op_name: str = "Custom") -> None:
        self.op_name = op_name
        self.info: dict = {"op_name": op_name, "inputs": [], "outputs": [], "attr": [], "dtype_format": []}

    def _add(self, key, *args, **kwargs):
        self.info[key].append({"args": args, **kwargs})
        return self

    def input(self, *args, **kwargs):  # noqa: A003
        return self._add("inputs", *args, **kwargs)

    def output(self, *args, **kwargs):
        return self._add("outputs", *args, **kwargs)

    def attr(self, *args, **kwargs):
        return self._add("attr", *args, **kwargs)

    def dtype_format(self, *args):
        self.info["dtype_format"].append(args)
        return self

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)

        def setter(*args, **kwargs):
            self.info[name] = args[0] if len(args) == 1 and not kwargs else (args, kwargs)
            return self

        return setter

    def get_op_info(self) -> dict:
        return self.info


class CpuRegOp(_RegOp):
    """Kernel description builder for a CPU custom op."""


class AiCPURegOp(_RegOp):
    """Kernel description builder for an AICPU custom op."""


class AkgGpuRegOp(_RegOp):
    """Kernel description builder for an AKG GPU custom op."""


class AkgAscendRegOp(_RegOp):
    """Kernel description builder for an AKG Ascend custom op."""


class TBERegOp(_RegOp):
    """Kernel description builder for a TBE custom op."""


class CustomRegOp(_RegOp):
    """Kernel description builder for `ops.Custom`."""


class DataType:
    """Names of (dtype, format) pairs used in kernel descriptions (`DataType.F32_Default`)."""

    def __getattr__(self, name):
        return (name,)


for _n in ("None", "BOOL", "I8", "U8", "I16", "U16", "I32", "U32", "I64", "U64", "F16", "F32", "F64", "BF16", "C64",
           "C128"):  # fmt: skip
    for _f in ("None", "Default", "5HD", "FracZ", "FracNZ", "C1HWNCoC0", "NCHW", "NHWC", "ChannelLast", "NDHWC"):
        setattr(DataType, f"{_n}_{_f}", (_n, _f))


def op_info_register(op_info):
    """Decorator recording a kernel description on the decorated function (`fn.op_info`)."""

    def register(fn):
        try:
            fn.op_info = op_info
        except AttributeError:
            pass
        return fn

    return register


def custom_info_register(*reg_info):
    """Decorator recording kernel descriptions on a custom op's function (`fn.reg_info`)."""

    def register(fn):
        try:
            fn.reg_info = list(reg_info)
        except AttributeError:
            pass
        return fn

    return register


def kernel(fn=None, reg_info=None, compile_attrs=None):
    """Decorator marking a function as a custom kernel; Kiln runs it as ordinary Python on Tensors."""

    def mark(f):
        try:
            f.reg_info, f.compile_attrs = reg_info, compile_attrs
        except AttributeError:
            pass
        return f

    return mark if fn is None else mark(fn)
