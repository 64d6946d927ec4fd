"""Half-precision gradients summed as MindSpore sums them.

The gradient of an input that an op broadcasts is the sum of the output gradient over the broadcast axes. JAX's
derivative of a broadcast sums in the input's dtype, and XLA's CPU backend then runs a float16 running sum (480
float16 terms came out 0.043 from the exact sum rounded once); MindSpore's kernels sum in float32 and round once.
Broadcasting a float16/bfloat16 input explicitly through float32 moves that sum to float32: the forward values are
unchanged (float16 -> float32 -> float16 is exact), and the derivative of the two casts is the float32 sum rounded once.
"""

from __future__ import annotations

from collections.abc import Callable

from kiln._backend import jnp

_HALF = (jnp.float16, jnp.bfloat16)


def broadcast_in_float32(x, shape: tuple[int, ...]):
    """`x` broadcast to `shape`; a half-precision `x` through float32, so that its gradient sums in float32."""
    x = jnp.asarray(x)
    if x.dtype not in _HALF or x.shape == tuple(shape):
        return x
    return jnp.broadcast_to(x.astype(jnp.float32), shape).astype(x.dtype)


def sums_broadcasts_in_float32(fn: Callable) -> Callable:
    """Wrap an elementwise (NumPy-broadcasting) impl so that its half-precision inputs' gradients sum in float32."""

    def impl(*args, **attrs):
        if not any(getattr(a, "dtype", None) in _HALF for a in args):
            return fn(*args, **attrs)
        shape = jnp.broadcast_shapes(*(jnp.shape(a) for a in args))
        return fn(*(broadcast_in_float32(a, shape) if hasattr(a, "dtype") else a for a in args), **attrs)

    impl.__name__ = getattr(fn, "__name__", "impl")
    return impl
