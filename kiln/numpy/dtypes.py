"""The dtype names of `mindspore.numpy` and its promotion helpers."""

from __future__ import annotations

import math as _math

import numpy as np

from kiln._core import dtype as mstype
from kiln._core.tensor import Tensor

__all__ = [
    "bool_", "int_", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "float_",
    "float16", "float32", "float64", "promote_types", "result_type", "inf", "nan", "pi", "e", "PINF", "NINF",
    "numeric_types",
]  # fmt: skip

bool_ = mstype.bool_
int8, int16, int32, int64 = mstype.int8, mstype.int16, mstype.int32, mstype.int64
uint8, uint16, uint32, uint64 = mstype.uint8, mstype.uint16, mstype.uint32, mstype.uint64
float16, float32, float64 = mstype.float16, mstype.float32, mstype.float64
int_, uint, float_ = int32, uint32, float32
inf = PINF = float("inf")
NINF = float("-inf")
nan = float("nan")
pi = _math.pi
e = _math.e
numeric_types = ["int_", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64",
                 "float_", "float16", "float32", "float64", "bool_"]  # fmt: skip


def promote_types(type1, type2):
    """The smallest dtype both `type1` and `type2` convert to safely.

    Args:
        type1, type2: Kiln dtypes, NumPy dtypes or names ('float32').

    Returns:
        The Kiln dtype.
    """
    return mstype.promote(_dtype(type1), _dtype(type2))


def _dtype(t):
    """A dtype; Python's int and float stand for int32 and float32 (mindspore.numpy's defaults)."""
    if t is int:
        return mstype.int32
    if t is float:
        return mstype.float32
    return mstype.to_dtype(t)


def result_type(*arrays_and_dtypes):
    """The dtype a function combining these arrays, dtypes and Python scalars returns.

    Python bools, ints and floats count as bool, int32 and float32 (mindspore.numpy turns them into such
    Tensors first), so `result_type(int8_tensor, 1)` is int32.

    Returns:
        The Kiln dtype.
    """
    dts = []
    for a in arrays_and_dtypes:
        if isinstance(a, Tensor):
            dts.append(a.dtype)
        elif isinstance(a, bool):
            dts.append(mstype.bool_)
        elif isinstance(a, int):
            dts.append(mstype.int32)
        elif isinstance(a, float):
            dts.append(mstype.float32)
        elif isinstance(a, np.ndarray):
            dts.append(mstype.from_np(a.dtype))
        else:
            dts.append(_dtype(a))
    if not dts:
        raise ValueError("kiln.numpy.result_type: at least one array or dtype is needed.")
    out = dts[0]
    for d in dts[1:]:
        out = mstype.promote(out, d)
    return out
