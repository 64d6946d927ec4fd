"""Activations with a parameter or an axis: Softmax, LogSoftmax, Softmin, PReLU, Hardtanh."""

from __future__ import annotations

import functools

from kiln._backend import jax, jnp
from kiln._core.primitive import PrimitiveDef, op_error
from kiln._prims._checks import normalize_axis, shape_of
from kiln._prims._division import true_divide
from kiln._prims._low_precision import HALF_DTYPES, broadcast_in_float32, rounds_once_from_float32
from kiln._prims.math import maximum, minimum
from kiln._prims.nn._common import declare, require_float


def _check_softmax(op):
    def check(x, axis):
        for a in axis:
            normalize_axis(op, a, len(shape_of(x)))

    return check


def _shifted(x, axis):
    """x - max(x) along `axis`, exactly 0 at the maximum. XLA may compute x again inside the fusion that subtracts (a
    scaled logit a * b becomes a fused multiply-add with -max), which leaves the maximum a rounding error from 0: a
    saturated row then sums to 1 - ulp, and its gradient, scaled by a small temperature, is no longer 0."""
    m = jnp.max(x, axis=axis, keepdims=True)
    return jnp.where(x == m, m - m, x - m)  # m - m: NaN where the maximum is infinite, as x - m is


@functools.partial(jax.custom_jvp, nondiff_argnums=(1,))
def _float_softmax(x, axis):
    # MindSpore's float32 kernel's exp is an approximation (up to 55 ulps from exp): float32 keeps XLA's exp and
    # product by the reciprocal of the sum, as jax.nn.softmax does
    e = jnp.exp(_shifted(x, axis))
    return e / jnp.sum(e, axis=axis, keepdims=True)


@functools.partial(jax.custom_jvp, nondiff_argnums=(1,))
def _half_softmax(x, axis):
    """MindSpore's float16 Softmax: exp(x - max) in float16, their sum rounded once, then a division (jax.nn.softmax
    multiplies by a float16 reciprocal of the sum: one ulp off in 28% of the outputs)."""
    e = jnp.exp(_shifted(x, axis))
    return true_divide(e, jnp.sum(e.astype(jnp.float32), axis=axis, keepdims=True).astype(x.dtype))


def _float_jvp(axis, primals, tangents):
    """jax.nn.softmax's rule, written with the output: only the forward's rounding differs."""
    (x,), (t,) = primals, tangents
    y = _float_softmax(x, axis)
    return y, y * (t - jnp.sum(y * t, axis=axis, keepdims=True))


def _half_jvp(axis, primals, tangents):
    """A tangent whose transpose is MindSpore 2.10's CPU rule, y * (dout - sum(y * dout)), each step rounded to the
    half-precision dtype and the rounded products summed in float32, rounded once (the sum broadcast in float32, so
    that its transpose sums in float32). The rule written as y * (t - sum(y * t)) transposes to y * dout - y * sum(y *
    dout): 216-284 of 512 float16 elements off MindSpore's bits (up to 1,024 ulps), mean error against float64 1.8-6.1
    ulps where MindSpore's order gives 1.3-5.5 (rows of 8 and 128, along axis 0 and a middle axis, softmin)."""
    (x,), (t,) = primals, tangents
    y = _half_softmax(x, axis)
    u = y * t
    total = jnp.sum(u.astype(jnp.float32), axis=axis, keepdims=True)
    return y, (u - y * jnp.broadcast_to(total, u.shape).astype(u.dtype)).astype(y.dtype)


# Float32 keeps the first rule: MindSpore's kernel adds 8 interleaved partial sums (a loop XLA would not keep), its
# forward's exp differs from Kiln's, and its order is no nearer float64 (rows of 8-1,000 from correctly rounded values).
# Along any other axis MindSpore 2.10's CPU Softmax (both modes) is another kernel: exp(x - max) correctly rounded to
# float32, summed one element after the other in float32, then a division (bit-equal on rows of 4 and 7; 3-43 of
# 3,564-60,000 off on longer rows). Against float64, mean ulps over 6 inputs N(0, 9) with a N(0, 1) sensitivity, Kiln
# / MindSpore, forward then backward: (4, 7, 5) axis 1 1.36 / 1.33, 6.4 / 13.9 (217 and 551 of 840 elements differ);
# axis 0 1.09 / 1.06, 15.1 / 13.0; (3, 33, 6) axis 1 1.90 / 2.00, 4.5 / 5.1; (2, 128, 3) 2.38 / 2.67, 8.6 / 10.2;
# (5, 1000, 2) 2.62 / 6.20, 6.2 / 20.4. Its forward is nearer only on the shortest rows (by 2%), further from 33 on
# (the sequential sum), and its backward further in 4 of the 5: Kiln keeps its rule along every axis.
_float_softmax.defjvp(_float_jvp)
_half_softmax.defjvp(_half_jvp)


def _softmax(x, axis):
    if getattr(x, "dtype", None) in HALF_DTYPES:
        return _half_softmax(x, axis)
    return _float_softmax(x, axis)


Softmax = PrimitiveDef("Softmax", _softmax, attrs={"axis": (-1,)}, check=_check_softmax("Softmax"))


# LogSoftmax keeps the backend's rule: MindSpore 2.10's CPU kernel (oneDNN's, with its approximate exp) is further from
# float64 (rows of 8 / 128: float16 0.71 / 0.22 ulps mean against 0.25 / 0.18, float32 20 / 1.2 against 0.81 / 0.37)
LogSoftmax = PrimitiveDef(
    "LogSoftmax",
    rounds_once_from_float32(lambda x, axis: jax.nn.log_softmax(x, axis=axis)),
    attrs={"axis": (-1,)},
    check=_check_softmax("LogSoftmax"),
)
Softmin = PrimitiveDef(
    "Softmin",
    lambda x, axis: _softmax(-jnp.asarray(x), axis),
    attrs={"axis": (-1,)},
    check=_check_softmax("Softmin"),  # MindSpore's softmin is Softmax(-1 * x): the same rule, negated
)


def _check_prelu(x, w):
    xs, ws = shape_of(x), shape_of(w)
    require_float("PReLU", "x", x)
    c = xs[1] if len(xs) >= 2 else (xs[0] if xs else 1)
    if len(ws) > 1 or (ws and ws[0] not in (1, c)):
        raise op_error(
            "PReLU", f"'weight' must have shape [1] or [{c}] (the channels of x {list(xs)}), but got {list(ws)}."
        )


def _prelu(x, w):
    if x.ndim >= 2 and w.ndim == 1:
        w = w.reshape((1, -1) + (1,) * (x.ndim - 2))
    elif w.size == 1:
        w = w.reshape(())  # the output keeps x's shape (a scalar x stays a scalar)
    # float16: the weight's gradient sums its rounded products in float32 and rounds once, as MindSpore's kernel does
    w = broadcast_in_float32(w.astype(x.dtype), x.shape)
    return jnp.where(x > 0, x, w * x)  # at 0: the slope side, so d/dx(0) = weight (MindSpore)


PReLU = declare("PReLU", _prelu, _check_prelu)


def _check_hardtanh(x, *, min_val, max_val):
    if min_val > max_val:
        raise op_error("Hardtanh", f"'min_val' must not exceed 'max_val', but got {min_val} and {max_val}.")


Hardtanh = declare(
    "Hardtanh",
    # jnp.clip's maximum and minimum, in its argument order (the same bits), with the rule that compares x with the
    # bounds: the backend's compared x with max(lo, x), which fails off the bounds where XLA recomputes x differently
    lambda x, *, min_val, max_val: minimum(max_val, maximum(min_val, x)).astype(x.dtype),
    _check_hardtanh,
    attrs={"min_val": -1.0, "max_val": 1.0},
)
