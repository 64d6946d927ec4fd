"""Shared input checks for primitive declarations, in MindSpore's wording."""

from __future__ import annotations

from kiln._core import dtype as mstype
from kiln._core.primitive import op_error


def broadcast_shapes(op: str, x_shape: tuple, y_shape: tuple) -> tuple:
    """NumPy broadcasting of two shapes, or an error naming both."""
    out = []
    for i in range(1, max(len(x_shape), len(y_shape)) + 1):
        a = x_shape[-i] if i <= len(x_shape) else 1
        b = y_shape[-i] if i <= len(y_shape) else 1
        if a != b and a != 1 and b != 1:
            raise op_error(
                op,
                f"x.shape and y.shape need to broadcast. The value of x.shape[{-i}] or y.shape[{-i}] "
                f"must be 1 or equal to each other, but got x.shape={list(x_shape)}, y.shape={list(y_shape)}.",
            )
        out.append(max(a, b) if a != 1 and b != 1 else a * b)
    return tuple(reversed(out))


def shape_of(x) -> tuple:
    return tuple(getattr(x, "shape", ()))


def check_binary(op: str):
    def check(x, y, **_):
        broadcast_shapes(op, shape_of(x), shape_of(y))

    return check


def normalize_axis(op: str, axis: int, ndim: int, name: str = "axis") -> int:
    lo, hi = -max(ndim, 1), max(ndim, 1)
    if not isinstance(axis, int) or isinstance(axis, bool):
        raise op_error(op, f"the '{name}' must be an int, but got {type(axis).__name__}.", TypeError)
    if not lo <= axis < hi:
        raise op_error(op, f"the '{name}' must be in range [{lo}, {hi}), but got {axis}.")
    return axis % max(ndim, 1)


def same_float_dtype(op: str, **named) -> None:
    """A TypeError naming both inputs and their dtypes when two floating-point inputs of `op` differ in dtype.

    MindSpore 2.10 converts no input of MatMul, BatchMatMul, BiasAdd, Dense or the convolutions (float64 data into an
    nn.Dense of float32 weights raises there, both modes), where elementwise ops promote; Kiln follows it rather
    than run the product silently in float64."""
    seen = None
    for name, x in named.items():
        dt = getattr(x, "dtype", None)
        if dt is None:
            continue
        dt = mstype.from_np(getattr(dt, "np", dt))  # Kiln's dtype: bfloat16 is a float, its name as users read it
        if not dt.is_floating:
            continue
        if seen is not None and dt is not seen[1]:
            raise op_error(
                op,
                f"'{seen[0]}' ({seen[1]}) and '{name}' ({dt}) must have the same dtype; it converts "
                f"neither (as MindSpore's {op}): cast one to the other's dtype, e.g. {seen[0]}.astype(kiln.{dt.name}).",
                TypeError,
            )
        seen = seen or (name, dt)
