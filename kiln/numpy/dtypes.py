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
    return mstype.promote(mstype.to_dtype(type1), mstype.to_dtype(type2))


def result_type(*arrays_and_dtypes):
    """The dtype a function combining these arrays, dtypes and Python scalars returns.

    Python ints and floats count as int32 and float32 (mindspore.numpy's defaults), and do not widen a tensor of
    the same kind.

    Returns:
        The Kiln dtype.
    """
    strong, weak = [], []
    for a in arrays_and_dtypes:
        if isinstance(a, Tensor):
            strong.append(a.dtype)
        elif isinstance(a, bool):
            weak.append(mstype.bool_)
        elif isinstance(a, int):
            weak.append(mstype.int32)
        elif isinstance(a, float):
            weak.append(mstype.float32)
        elif isinstance(a, np.ndarray):
            strong.append(mstype.from_np(a.dtype))
        else:
            strong.append(mstype.to_dtype(a))
    if not strong and not weak:
        raise ValueError("kiln.numpy.result_type: at least one array or dtype is needed.")
    out = strong[0] if strong else weak[0]
    for d in strong[1:]:
        out = mstype.promote(out, d)
    for d in weak:
        if _kind(d) > _kind(out):
            out = mstype.promote(out, d)
    return out


def _kind(dt) -> int:
    np_dt = np.dtype(dt.np)
    return 0 if np_dt == np.bool_ else 1 if np.issubdtype(np_dt, np.integer) else 2
