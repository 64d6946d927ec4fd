"""MindSpore's non-tensor types and dtype helpers (`mindspore.common.dtype`): `Type`, `TensorType`, `Int`,
`string`, `number`, `list_`, `tuple_`, `type_none`, the PyTorch-style aliases (`float`, `long`, `cfloat`...),
`dtype_to_nptype`, `dtype_to_pytype`, `get_py_obj_dtype`; and the buffer converters `frombuffer`,
`from_dlpack`, `to_dlpack`.
"""

from __future__ import annotations

import builtins

import numpy as np

from kiln._backend import jnp
from kiln._core import dtype as mstype
from kiln._core.tensor import Tensor

__all__ = [
    "Int", "TensorType", "Type", "ALIASES", "dtype_to_nptype", "dtype_to_pytype", "from_dlpack", "frombuffer",
    "get_py_obj_dtype", "list_", "number", "string", "tensor_type", "to_dlpack", "tuple_", "type_none",
]  # fmt: skip


class _TypeMeta(type):
    def __instancecheck__(cls, obj) -> bool:
        if type.__instancecheck__(cls, obj):
            return True
        if isinstance(obj, mstype.DType):
            return cls._accepts(obj)
        return False


class Type(metaclass=_TypeMeta):
    """A MindSpore type object: tensor element types (kiln.float32...) are Types, and so are the types of
    Python values in graphs (`string`, `list_`, `tuple_`, `type_none`, `number`, `TensorType(...)`)."""

    @classmethod
    def _accepts(cls, dtype: mstype.DType) -> bool:
        return True

    def __init__(self, name: str = "Type") -> None:
        self._name = name

    def __repr__(self) -> str:
        return self._name

    __str__ = __repr__

    def __eq__(self, other) -> bool:
        return type(other) is type(self) and repr(other) == repr(self)

    def __hash__(self) -> int:
        return hash((type(self).__name__, repr(self)))


class Number(Type):
    """The type of numbers (every tensor element type is one)."""

    @classmethod
    def _accepts(cls, dtype: mstype.DType) -> bool:
        return dtype.kind in "biufc"


class Int(Number):
    """Signed integer types: `Int(32)` is kiln.int32; isinstance(kiln.int64, Int) is True."""

    @classmethod
    def _accepts(cls, dtype: mstype.DType) -> bool:
        return dtype.kind == "i"

    def __new__(cls, bits: int | None = None):
        if bits is None:
            return super().__new__(cls)
        table = {8: mstype.int8, 16: mstype.int16, 32: mstype.int32, 64: mstype.int64}
        if bits not in table:
            raise TypeError(f"Int: the number of bits must be one of 8, 16, 32, 64, but got {bits!r}.")
        return table[bits]

    def __init__(self, bits: int | None = None) -> None:
        super().__init__("Int")


class TensorType(Type):
    """The type of a Tensor, optionally with its element type: `TensorType(kiln.float32)` prints
    Tensor[Float32]."""

    @classmethod
    def _accepts(cls, dtype: mstype.DType) -> bool:
        return False

    def __init__(self, element=None) -> None:
        self._element = None if element is None else mstype.to_dtype(element)
        super().__init__("Tensor" if element is None else f"Tensor[{self._element}]")

    def element_type(self):
        return self._element


class _Named(Type):
    @classmethod
    def _accepts(cls, dtype: mstype.DType) -> bool:
        return False


string = _Named("String")
number = Number("Number")
list_ = _Named("List")
tuple_ = _Named("Tuple")
type_none = _Named("None")
tensor_type = TensorType()

# PyTorch-style aliases MindSpore exports at the top level.
ALIASES = {
    "float": mstype.float32,
    "int": mstype.int32,
    "bool": mstype.bool_,
    "long": mstype.int64,
    "byte": mstype.int8,
    "ubyte": mstype.uint8,
    "cfloat": mstype.complex64,
    "cdouble": mstype.complex128,
}


def dtype_to_nptype(type_):
    """The NumPy scalar type of a Kiln dtype (kiln.float32 -> numpy.float32)."""
    return mstype.to_dtype(type_).np.type


def dtype_to_pytype(type_):
    """The Python type of a dtype: bool, int, float, complex (str for `string`, list/tuple/None for those)."""
    if type_ is string:
        return builtins.str
    if type_ is list_:
        return builtins.list
    if type_ is tuple_:
        return builtins.tuple
    if type_ is type_none:
        return type(None)
    dtype = mstype.to_dtype(type_)
    return {"b": builtins.bool, "i": builtins.int, "u": builtins.int, "f": builtins.float, "c": complex}[dtype.kind]


_PY_TYPES = {
    builtins.bool: mstype.bool_, builtins.int: mstype.int64, builtins.float: mstype.float64,
    builtins.complex: mstype.complex128,
}  # fmt: skip


def get_py_obj_dtype(obj):
    """The MindSpore type of a Python object or type: a Tensor gives TensorType(its dtype); 1 or int gives int64,
    1.0 or float float64, 1j or complex complex128, True or bool bool_; a list list_, a tuple tuple_, None
    type_none, a str string; a NumPy scalar type its dtype."""
    if isinstance(obj, Tensor):
        return TensorType(obj.dtype)
    if isinstance(obj, (mstype.DType, Type)):
        return obj
    if obj is None or obj is type(None):
        return type_none
    if isinstance(obj, type):
        if obj in _PY_TYPES:
            return _PY_TYPES[obj]
        for base, result in ((builtins.str, string), (builtins.list, list_), (builtins.tuple, tuple_)):
            if issubclass(obj, base):
                return result
        if issubclass(obj, np.generic):
            return mstype.to_dtype(obj)
        raise NotImplementedError(f"get_py_obj_dtype: no MindSpore type for the Python type {obj.__name__}.")
    for py, result in _PY_TYPES.items():  # bool before int: the table lists it first
        if isinstance(obj, py):
            return result
    if isinstance(obj, np.generic):
        return mstype.from_np(obj.dtype)
    for base, result in ((builtins.str, string), (builtins.list, list_), (builtins.tuple, tuple_)):
        if isinstance(obj, base):
            return result
    raise TypeError(f"get_py_obj_dtype: cannot give a type for an object of type {type(obj).__name__}.")


def pytype_to_dtype(obj):
    """The MindSpore type of a Python or NumPy type (MindSpore's `mstype.pytype_to_dtype`): int gives int64, float
    float64, bool bool_, complex complex128, str string, list list_, tuple tuple_, np.int8 int8; a NumPy dtype
    gives its scalar type's; a MindSpore type is returned as it is.

    Raises:
        TypeError: `obj` is not a type (a value such as 1.0).
        NotImplementedError: no MindSpore type for it.
    """
    if isinstance(obj, np.dtype):
        obj = obj.type
    if isinstance(obj, (mstype.DType, Type)):
        return obj
    if not isinstance(obj, type):
        raise TypeError(
            f"pytype_to_dtype: 'obj' must be a type such as int or np.float32, but got a {type(obj).__name__}."
        )
    return get_py_obj_dtype(obj)


def frombuffer(buffer, dtype, count: int = -1, offset: int = 0) -> Tensor:
    """A 1-D Tensor read from an object exposing the buffer protocol (bytes, bytearray, memoryview...)."""
    return Tensor(np.frombuffer(buffer, dtype=mstype.to_dtype(dtype).np, count=count, offset=offset).copy())


def from_dlpack(dlpack) -> Tensor:
    """A Tensor sharing memory with a DLPack object (an array with `__dlpack__`, e.g. a torch/cupy tensor)."""
    return Tensor._wrap(jnp.from_dlpack(dlpack))


class _Capsule:
    """The DLPack view of a Tensor: consumers call `__dlpack__()` / `__dlpack_device__()` on it."""

    def __init__(self, array) -> None:
        self._array = array

    def __dlpack__(self, *args, **kwargs):
        return self._array.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()


def to_dlpack(tensor: Tensor):
    """A DLPack object for `tensor` (give it to numpy.from_dlpack, torch.from_dlpack, kiln.from_dlpack...)."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"to_dlpack: 'tensor' must be a Tensor, but got {type(tensor).__name__}.")
    return _Capsule(tensor._data)


# MindSpore's `mindspore.common.dtype` module (Kiln's `kiln._core.dtype`, where `import mindspore.common.dtype as
# mstype` leads) serves these names too: `mstype.dtype_to_nptype(...)`, `mstype.tensor_type`, `mstype.long`...
_MSTYPE_EXTRAS = {
    "Int": Int, "Number": Number, "TensorType": TensorType, "Type": Type, "dtype_to_nptype": dtype_to_nptype,
    "dtype_to_pytype": dtype_to_pytype, "get_py_obj_dtype": get_py_obj_dtype, "list_": list_, "number": number,
    "pytype_to_dtype": pytype_to_dtype, "string": string, "tensor_type": tensor_type, "tuple_": tuple_,
    "type_none": type_none,
    # not `float`, `int`, `bool`: as module globals they would replace the builtins that module's code calls
    **{k: v for k, v in ALIASES.items() if not hasattr(builtins, k)},
}  # fmt: skip
for _name, _value in _MSTYPE_EXTRAS.items():
    if not hasattr(mstype, _name):
        setattr(mstype, _name, _value)
