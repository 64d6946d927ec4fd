"""Helpers shared by the neural-network primitive declarations.

Checks read only static facts (shapes, dtypes, attributes), so each impl runs
its check while it is traced: a cached call pays nothing, and a bad call fails
in the op's own words before the backend sees it.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from kiln._core.primitive import PrimitiveDef, op_error
from kiln._prims._checks import shape_of

__all__ = ["declare", "dtype_of", "require_float", "require_rank", "op_error", "shape_of", "spatial_name"]


def declare(name: str, impl: Callable, check: Callable, **kw) -> PrimitiveDef:
    """A PrimitiveDef whose impl validates its (static) inputs with `check` when traced."""

    def checked(*args, **attrs):
        check(*args, **attrs)
        return impl(*args, **attrs)

    checked.__name__ = getattr(impl, "__name__", name)
    return PrimitiveDef(name, checked, check=check, **kw)


def dtype_of(x) -> np.dtype | None:
    """NumPy dtype of an abstract, traced or concrete tensor; None for Python scalars and None."""
    dt = getattr(x, "dtype", None)
    if dt is None:
        return None
    return np.dtype(getattr(dt, "np", dt))


def dtype_name(dt: np.dtype) -> str:
    """MindSpore's spelling of a dtype in messages (Float32, Int64, BFloat16)."""
    return "BFloat16" if dt.name == "bfloat16" else dt.name.capitalize()


def require_float(op: str, name: str, x) -> None:
    """Raise a TypeError unless `x` is a floating-point tensor."""
    dt = dtype_of(x)
    if dt is not None and not (dt.kind == "f" or dt.name == "bfloat16"):
        raise op_error(op, f"'{name}' must be a floating-point tensor, but got {dtype_name(dt)}.", TypeError)


def require_rank(op: str, name: str, x, ranks: tuple[int, ...]) -> tuple[int, ...]:
    """The shape of `x`, or an error when its rank is not one of `ranks`."""
    shape = shape_of(x)
    if len(shape) not in ranks:
        want = " or ".join(f"{r}-D" for r in ranks)
        raise op_error(op, f"'{name}' must be a {want} tensor, but got shape {list(shape)} ({len(shape)}-D).")
    return shape


def spatial_name(nd: int) -> str:
    return {1: "(N, C, L)", 2: "(N, C, H, W)", 3: "(N, C, D, H, W)"}[nd]


def positive_ints(op: str, name: str, values: tuple) -> None:
    if any(not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v <= 0 for v in values):
        raise op_error(op, f"every entry of '{name}' must be a positive int, but got {_show(values)}.")


def non_negative_ints(op: str, name: str, values: tuple) -> None:
    if any(not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v < 0 for v in values):
        raise op_error(op, f"every entry of '{name}' must be a non-negative int, but got {_show(values)}.")


def one_of(op: str, name: str, value, allowed: tuple) -> None:
    if value not in allowed:
        raise op_error(op, f"'{name}' must be one of {', '.join(repr(a) for a in allowed)}, but got {value!r}.")


def _show(values):
    return values[0] if isinstance(values, tuple) and len(set(values)) == 1 else values
