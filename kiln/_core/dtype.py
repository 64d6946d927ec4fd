"""MindSpore's dtype objects (`kiln.float32`, `mstype.int64`, ...) and promotion."""

from __future__ import annotations

import enum

import numpy as np

from kiln._backend import jnp


class DType:
    """A tensor element type. Compared by identity; converts to NumPy with `.np`."""

    __slots__ = ("name", "np", "kind", "itemsize")

    def __init__(self, name: str, np_dtype) -> None:
        self.name = name
        self.np = np.dtype(np_dtype)
        self.kind = self.np.kind  # 'f', 'i', 'u', 'b', 'c' (bfloat16 reports 'V')
        if name == "bfloat16":
            self.kind = "f"
        self.itemsize = self.np.itemsize

    def __repr__(self) -> str:
        return _DISPLAY.get(self.name, self.name.capitalize())

    __str__ = __repr__

    def __reduce__(self):
        return (dtype_from_name, (self.name,))

    @property
    def is_floating(self) -> bool:
        return self.kind == "f"

    @property
    def is_complex(self) -> bool:
        return self.kind == "c"

    @property
    def is_integer(self) -> bool:
        return self.kind in "iu"


_DISPLAY = {
    "bool_": "Bool",
    "bfloat16": "BFloat16",
    "complex64": "Complex64",
    "complex128": "Complex128",
    "uint8": "UInt8",
    "uint16": "UInt16",
    "uint32": "UInt32",
    "uint64": "UInt64",
}

bool_ = DType("bool_", np.bool_)
int8 = DType("int8", np.int8)
int16 = DType("int16", np.int16)
int32 = DType("int32", np.int32)
int64 = DType("int64", np.int64)
uint8 = DType("uint8", np.uint8)
uint16 = DType("uint16", np.uint16)
uint32 = DType("uint32", np.uint32)
uint64 = DType("uint64", np.uint64)
float16 = DType("float16", np.float16)
float32 = DType("float32", np.float32)
float64 = DType("float64", np.float64)
bfloat16 = DType("bfloat16", jnp.bfloat16)
complex64 = DType("complex64", np.complex64)
complex128 = DType("complex128", np.complex128)

# MindSpore's aliases.
half, single, double = float16, float32, float64
int_, uint, float_ = int32, uint32, float32
short, intc, intp = int16, int32, int64
ushort, uintc, uintp = uint16, uint32, uint64

ALL = (
    bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
    float16, float32, float64, bfloat16, complex64, complex128,
)  # fmt: skip
_BY_NP = {d.np: d for d in ALL}
_BY_NAME = {d.name: d for d in ALL} | {"bool": bool_, "float": float32, "int": int64}

float_types = (float16, float32, float64, bfloat16)
int_types = (int8, int16, int32, int64)
uint_types = (uint8, uint16, uint32, uint64)
number_type = int_types + uint_types + float_types + (complex64, complex128)


def dtype_from_name(name: str) -> DType:
    return _BY_NAME[name]


def to_dtype(value) -> DType:
    """Accept a DType, a NumPy dtype or type, a Python type or a name."""
    if isinstance(value, DType):
        return value
    if value is bool:
        return bool_
    if value is int:
        return int64
    if value is float:
        return float32
    if value is complex:
        return complex64
    # MindSpore reads a dtype's name in any case: the zoo writes astype("Int32"), MindSpore's display name
    if isinstance(value, str) and value.lower() in _BY_NAME:
        return _BY_NAME[value.lower()]
    try:
        return _BY_NP[np.dtype(value)]
    except (TypeError, KeyError):
        raise TypeError(f"'{value!r}' is not a Kiln dtype; expected e.g. kiln.float32 or kiln.int64.") from None


def from_np(np_dtype) -> DType:
    """The Kiln dtype of a NumPy/JAX dtype."""
    return _BY_NP[np.dtype(np_dtype)]


def promote(a: DType, b: DType) -> DType:
    """The result dtype of a binary op on two tensors (JAX's promotion lattice)."""
    if a is b:
        return a
    return _BY_NP[np.dtype(jnp.promote_types(a.np, b.np))]


# Python scalar types and MindSpore's dtype for each; bool comes before int, which it subclasses
_PYTHON_SCALAR_DTYPES = (((bool, np.bool_), bool_), (int, int64), (float, float32), (complex, complex64))


def scalar_dtype(value) -> DType:
    """The dtype of a Python scalar in an op: bool, int64, float32, complex64 (MindSpore's `pytype_to_dtype`, which
    maps a type, is `kiln.common.types.pytype_to_dtype`)."""
    for types, dtype in _PYTHON_SCALAR_DTYPES:
        if isinstance(value, types):
            return dtype
    raise TypeError(f"expected a Python number, but got {type(value).__name__}")


# Bit widths of quantized integers, as quantization-aware zoo networks name them (MindSpore's values: INTn is
# n - 1, UINTn is 99 + n). A label only: Kiln's tensors have no sub-byte dtypes.
QuantDtype = enum.Enum(
    "QuantDtype",
    {**{f"INT{bits}": bits - 1 for bits in range(1, 17)}, **{f"UINT{bits}": 99 + bits for bits in range(1, 17)}},
)
