"""MindSpore's promotion of Python scalars, on top of JAX's weak types.

JAX runs with 64-bit types enabled (Python ints are int64, as in MindSpore),
so a Python float arrives as a weak float64. Next to a float tensor it adopts
that tensor's dtype, as MindSpore's does; next to integer tensors or other
scalars MindSpore gives float32, which is what `float32_scalars` restores.
"""

from __future__ import annotations

from kiln._backend import jnp


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
