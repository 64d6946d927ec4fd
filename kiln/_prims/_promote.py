"""MindSpore's promotion of Python scalars, on top of JAX's weak types.

JAX runs with 64-bit types enabled (Python ints are int64, as in MindSpore),
so a Python float arrives as a weak float64. Next to a float tensor it adopts
that tensor's dtype, as MindSpore's does; next to integer tensors or other
scalars MindSpore gives float32, which is what `float32_scalars` restores.
"""

from __future__ import annotations

from kiln._backend import jnp
from kiln._prims._low_precision import HALF_DTYPES


def _weak_float64(x) -> bool:
    aval = getattr(x, "aval", x)
    return getattr(aval, "weak_type", False) and getattr(x, "dtype", None) == jnp.float64


def _strong_float(x) -> bool:
    aval = getattr(x, "aval", x)
    dt = getattr(x, "dtype", None)
    return dt is not None and jnp.issubdtype(dt, jnp.inexact) and not getattr(aval, "weak_type", False)


def float32_scalars(fn):
    """Wrap an elementwise impl so Python floats default to float32 where no float tensor decides."""

    def impl(*args, **attrs):
        if any(_weak_float64(a) for a in args) and not any(_strong_float(a) for a in args):
            args = tuple(a.astype(jnp.float32) if _weak_float64(a) else a for a in args)
        return fn(*args, **attrs)

    impl.__name__ = getattr(fn, "__name__", "impl")
    return impl


def _kind(dtype) -> int:
    """The promotion category of `dtype`: bool 0, integer 1, floating 2, complex 3."""
    if jnp.issubdtype(dtype, jnp.complexfloating):
        return 3
    if jnp.issubdtype(dtype, jnp.floating):
        return 2
    return 0 if dtype == jnp.bool_ else 1


def _is_number(x, other) -> bool:
    """`x` is a Python number (a weak-typed value) or a 0-d tensor beside a tensor of one or more dimensions."""
    aval = getattr(x, "aval", x)
    return getattr(aval, "weak_type", False) or (jnp.ndim(x) == 0 and jnp.ndim(other) > 0)


def number_operand_in_float32(fn, float32_fn=None):
    """Wrap Mul's or Div's impl with MindSpore 2.10's rule for a number beside a tensor.

    Mul and Div are the elementwise primitives MindSpore 2.10 declares without a dtype group: a Python number or a
    0-d tensor beside a tensor of higher rank takes the tensor's dtype when its category (bool, integer, float,
    complex) is not above the tensor's (a float32 tensor times a 0-d float64 one is float32, an int32 tensor times a
    0-d int64 one int32), and a float16/bfloat16 tensor computes with that number in float32 and rounds once
    (`x16 * 0.1` by `ops.mul` is the exact product rounded, not the product by 0.1 rounded to float16 first).
    Two tensors of any rank, or two numbers, promote as every other primitive does. `float32_fn`: the impl that
    computes the float32 case, when it differs from `fn` (Div's division kept a division).
    """

    def impl(x, y, **attrs):
        x, y = jnp.asarray(x), jnp.asarray(y)
        x_number, y_number = _is_number(x, y), _is_number(y, x)
        if x_number == y_number:
            return fn(x, y, **attrs)
        tensor, number = (y, x) if x_number else (x, y)
        if _kind(number.dtype) > _kind(tensor.dtype) or number.dtype == tensor.dtype:
            return fn(x, y, **attrs)
        dtype = tensor.dtype
        if dtype in HALF_DTYPES and _kind(number.dtype) == 2:
            out = (float32_fn or fn)(x.astype(jnp.float32), y.astype(jnp.float32), **attrs)
            return out.astype(dtype)
        x, y = (x.astype(dtype), y) if x_number else (x, y.astype(dtype))
        return fn(x, y, **attrs)

    impl.__name__ = getattr(fn, "__name__", "impl")
    return impl
