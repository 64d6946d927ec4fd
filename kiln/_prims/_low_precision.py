"""Half-precision arithmetic as MindSpore's CPU kernels do it: gradients of broadcast inputs summed in float32, and
the activations and losses built from exp/log computed in float32 and rounded once (`rounds_once_from_float32`).

The gradient of an input that an op broadcasts is the sum of the output gradient over the broadcast axes. JAX's
derivative of a broadcast sums in the input's dtype, and XLA's CPU backend then runs a float16 running sum (480
float16 terms came out 0.043 from the exact sum rounded once); MindSpore's kernels sum in float32 and round once.
Broadcasting a float16/bfloat16 input explicitly through float32 moves that sum to float32: the forward values are
unchanged (float16 -> float32 -> float16 is exact), and the derivative of the two casts is the float32 sum rounded once.
"""

from __future__ import annotations

from collections.abc import Callable

from kiln._backend import jnp, lax

HALF_DTYPES = (jnp.float16, jnp.bfloat16)  # the dtypes MindSpore's CPU kernels compute in float32 and round once


def _is_half(x) -> bool:
    return getattr(x, "dtype", None) in HALF_DTYPES


def rounded(x):
    """`x` held rounded to its dtype, as when it is stored and read back. Inside one compiled step XLA's CPU code
    may fuse a product with the subtraction that uses it into one multiply-add, skipping the product's rounding:
    `p - lr * g` gave 1 - 0.1 * 7 = 0.29999998 where MindSpore's kernels give 0.30000001 (8.8% of float32 updates
    one ulp apart), and Adam's 1 - beta2^t differed from 1 - (the stored beta2^t) by up to 7e-6 relative at t = 2;
    its simplifier rewrites (x / y) / y as x / (y * y). Neither reduce_precision nor an optimization barrier survive
    to the machine code; a select on the value itself does. Its other arm is taken only for a NaN, and gives NaN."""
    x = jnp.asarray(x)
    # lax, not jnp.where: jnp's functions are jitted, and each call inside a trace is a nested jit traced and lowered
    # of its own (an optimizer step rounds twice per parameter)
    return lax.select(lax.eq(x, x), x, lax.add(x, x))


def broadcast_in_float32(x, shape: tuple[int, ...]):
    """`x` broadcast to `shape`; a half-precision `x` through float32, so that its gradient sums in float32."""
    x = jnp.asarray(x)
    if x.dtype not in HALF_DTYPES or x.shape == tuple(shape):
        return x
    return jnp.broadcast_to(x.astype(jnp.float32), shape).astype(x.dtype)


def sums_broadcasts_in_float32(fn: Callable) -> Callable:
    """Wrap an elementwise (NumPy-broadcasting) impl so that its half-precision inputs' gradients sum in float32."""

    def impl(*args, **attrs):
        if not any(_is_half(a) for a in args):
            return fn(*args, **attrs)
        shape = jnp.broadcast_shapes(*(jnp.shape(a) for a in args))
        return fn(*(broadcast_in_float32(a, shape) if hasattr(a, "dtype") else a for a in args), **attrs)

    impl.__name__ = getattr(fn, "__name__", "impl")
    return impl


def rounds_once_from_float32(fn: Callable) -> Callable:
    """Wrap an impl so that, when its result is float16/bfloat16, it computes in float32 and rounds its result once.

    XLA's two CPU emitters compute several float16 functions in different arithmetic: the classic one (PyNative's
    kernels, the quick tier) runs log1p, tan and the formulas of asinh, acosh, atanh and logaddexp in float16, the
    fusion emitters (GRAPH_MODE's optimised programs) extend them to float32 first, 1-2 ulps apart; in float32 both
    agree on every float16 input. MindSpore's CPU kernels of the activations and losses built from exp/log (Softplus,
    Mish, Elu, Softsign, LogSoftmax, GeLU, SmoothL1Loss, SoftmaxCrossEntropyWithLogits) compute a half-precision input
    in float32: each output is the exact value rounded once. JAX runs their steps in half precision, one ulp off in
    10-30% of the outputs. The derivative of the casts is the float32 derivative rounded once, as MindSpore's
    GRAPH_MODE gives it.
    """

    def impl(*args, **attrs):
        arrays = [a for a in args if hasattr(a, "dtype")]
        # the dtype the op gives (a float16 beside a float32 input gives float32: computed as it is)
        half = jnp.result_type(*arrays) if arrays and any(_is_half(a) for a in arrays) else None
        if half not in HALF_DTYPES:
            return fn(*args, **attrs)
        out = fn(*(jnp.asarray(a).astype(jnp.float32) if _is_half(a) else a for a in args), **attrs)
        if isinstance(out, tuple):
            return tuple(o.astype(half) if o.dtype == jnp.float32 else o for o in out)
        return out.astype(half) if out.dtype == jnp.float32 else out

    impl.__name__ = getattr(fn, "__name__", "impl")
    return impl
