"""Elementwise primitives (math, activations, comparison, logic, integer and complex ops) and pairwise distances,
counting and sorted search (Cdist, Bincount, SearchSorted)."""

from __future__ import annotations

import functools

import numpy as np

from kiln._backend import jax, jnp, lax
from kiln._core.primitive import PrimitiveDef, op_error
from kiln._prims._checks import check_binary
from kiln._prims._division import true_divide
from kiln._prims._low_precision import HALF_DTYPES, rounded, rounds_once_from_float32, sums_broadcasts_in_float32
from kiln._prims._promote import float32_scalars, number_operand_in_float32


def float_of(x):
    """Integer and bool inputs of a float-valued function compute in float32."""
    x = jnp.asarray(x)
    return x if jnp.issubdtype(x.dtype, jnp.inexact) else x.astype(jnp.float32)


@jax.custom_jvp
def _quotient(x, y):
    """x / y with MindSpore 2.10's derivative for the divisor, -dout * (out / y), from the rounded quotient, where the
    backend's is -dout * x / y^2: float32 249 of 512 elements off MindSpore's bits, mean error against float64 0.53
    ulps where MindSpore's order gives 0.41 (half precision: `_division._half_quotient`, the same rule). The
    dividend's derivative stays dout / y."""
    return jnp.true_divide(x, y)


def _quotient_jvp(primals, tangents):
    # written as a tangent whose transpose is MindSpore's order: dx = dout / y, dy = (-dout) * (out / y), the quotient
    # held rounded (XLA's simplifier otherwise divides x by y * y). An operand not differentiated (a constant divisor)
    # comes as a symbolic zero and costs nothing.
    (x, y), (tx, ty) = primals, tangents
    out = jnp.true_divide(x, y)
    parts = []
    if not isinstance(tx, jax.custom_derivatives.SymbolicZero):
        parts.append(jnp.true_divide(tx, y))
    if not isinstance(ty, jax.custom_derivatives.SymbolicZero):
        parts.append(-(ty * jnp.true_divide(rounded(out), y)))
    return out, functools.reduce(jnp.add, parts) if parts else jnp.zeros_like(out)


_quotient.defjvp(_quotient_jvp, symbolic_zeros=True)


def _divide(x, y):
    """The division of two broadcast operands: real floating ones with MindSpore's derivative (`_quotient`)."""
    if jnp.issubdtype(jnp.asarray(x).dtype, jnp.floating) and jnp.issubdtype(jnp.asarray(y).dtype, jnp.floating):
        return _quotient(x, y)
    return jnp.true_divide(x, y)


def _true_div(x, y):
    x, y = jnp.asarray(x), jnp.asarray(y)
    if not (jnp.issubdtype(x.dtype, jnp.inexact) or jnp.issubdtype(y.dtype, jnp.inexact)):
        x, y = x.astype(jnp.float32), y.astype(jnp.float32)
    return true_divide(x, y, divide=_divide)


def _float_fn(fn):
    return lambda x: fn(float_of(x))


def _sign(x):
    # MindSpore's Sign (like PyTorch's) gives 0 for NaN where jnp.sign propagates it; complex NaN stays NaN.
    if jnp.issubdtype(x.dtype, jnp.floating):
        return jnp.where(jnp.isnan(x), jnp.zeros_like(x), jnp.sign(x))
    return jnp.sign(x)


@jax.custom_jvp
def absolute(x):
    """|x| whose derivative at 0 is 0 (the sign), as MindSpore's Abs, L1Loss and 1-norm take it."""
    return jnp.abs(x)


@absolute.defjvp
def _abs_jvp(primals, tangents):
    # at 0 the derivative is 0 (sign), as MindSpore and PyTorch give; the backend's own rule gives 1 there
    (x,), (t,) = primals, tangents
    if not jnp.issubdtype(x.dtype, jnp.floating):  # complex and integer inputs keep the backend's rule
        return jax.jvp(jnp.abs, (x,), (t,))
    return jnp.abs(x), jnp.sign(x) * t


@functools.partial(jax.custom_jvp, nondiff_argnums=(1,))
def _leaky_relu(x, alpha):
    """x where x >= 0, alpha * x elsewhere, with MindSpore's derivative (max(x, alpha x)'s): alpha and 1 share the
    tie at 0, (1 + alpha) / 2. Integer input stays integer, its slope truncated toward zero first (MindSpore 2.10:
    alpha 0.2 sends negatives to 0, 2.7 doubles them)."""
    if not jnp.issubdtype(x.dtype, jnp.inexact):
        return jnp.where(x >= 0, x, x * jnp.asarray(alpha).astype(x.dtype))
    return jnp.where(x >= 0, x, x * alpha)


@_leaky_relu.defjvp
def _leaky_relu_jvp(alpha, primals, tangents):
    # The slope tests x's sign, not x == max(x, alpha x) as the backend's maximum rule does: XLA recomputes x (a
    # BatchNorm's affine) in the fusions of that test with another FMA contraction, so the test failed on elements
    # off the tie and gave them gradient 0 (the zoo's DKT and Pix2Pix left MindSpore's numbers).
    (x,), (t,) = primals, tangents
    slope = jnp.where(x > 0, 1.0, jnp.where(x < 0, alpha, (1 + alpha) / 2))
    return _leaky_relu(x, alpha), t * slope.astype(t.dtype)


def _sixth(x):
    """x / 6 correctly rounded, as MindSpore's kernels divide. XLA turns a division by a constant into a product by
    its rounded reciprocal (one ulp off in a third of float32 quotients). For float32 and narrower that product is
    taken in float64 and rounded once: its error (2**-53) is far below the distance from x / 6 to a float32 rounding
    boundary (x / 3 repeats forever or is exact), and it fuses, where a divisor behind a barrier is an array."""
    if x.dtype == jnp.float64:
        return true_divide(x, jnp.asarray(6, x.dtype), exact=True)
    return (x.astype(jnp.float64) / 6).astype(x.dtype)


@jax.custom_jvp
def _hard_sigmoid(x):
    """MindSpore's HSigmoid kernel on a floating x: 0 where x + 3 <= 0, 1 from x = 3, (x + 3) / 6 between."""
    return jnp.where(x + 3 <= 0, 0, jnp.where(x >= 3, 1, _sixth(x + 3))).astype(x.dtype)


@_hard_sigmoid.defjvp
def _hard_sigmoid_jvp(primals, tangents):
    # MindSpore's HSigmoidGrad: dy / 6 strictly inside (-3, 3), 0 at and beyond the ends
    (x,), (t,) = primals, tangents
    return _hard_sigmoid(x), jnp.where((x + 3 > 0) & (x < 3), _sixth(t), 0).astype(t.dtype)


def _hsigmoid(x):
    # An integer x divides as integers, as MindSpore's integer kernels: (x + 3) / 6 is 0 on (-3, 3), so 0 or 1.
    # float16/bfloat16 compute in float32 and round once (MindSpore has no float16 kernel: it casts).
    x = jnp.asarray(x)
    if jnp.issubdtype(x.dtype, jnp.integer):
        return (x >= 3).astype(x.dtype)
    return rounds_once_from_float32(_hard_sigmoid)(float_of(x))


@jax.custom_jvp
def _expm1(x):
    """exp(x) - 1 (the backend's value) with the slope exp(x) written out."""
    return jnp.expm1(x)


@_expm1.defjvp
def _expm1_jvp(primals, tangents):
    # the backend's slope expm1(x) + 1 keeps expm1's absolute error, large beside a small exp(x): float32 slopes were
    # 2.8% off at x = -13.8; exp(x) is exact to its own rounding
    (x,), (t,) = primals, tangents
    return _expm1(x), t * jnp.exp(x)


def _elu(x, alpha):
    """x where x > 0, else alpha * (exp(x) - 1): the backend's elu formula, its slope alpha * exp(x)."""
    return jnp.where(x > 0, x, alpha * _expm1(jnp.where(x > 0, 0.0, x)))


def _celu(x, alpha):
    """max(x, 0) + alpha * (exp(min(x, 0) / alpha) - 1): the backend's celu formula, its slope exp(x / alpha)."""
    return jnp.maximum(x, 0.0) + alpha * _expm1(jnp.minimum(x, 0.0) / alpha)


def _selu(x):
    """scale * elu(x, alpha) with the self-normalising constants (the backend's selu formula)."""
    return 1.0507009873554804934193349852946 * _elu(x, 1.6732632423543772848170429916717)


# (x - tanh x) / x^3 as a polynomial in x^2 for |x| < 1.5: a Chebyshev least-squares fit of degree 9 against float64
# (tests/_prims/fit_tanhshrink_polynomial.py); float32 x - tanh x is within 3 ulps of exact beyond 1.5
_TANHSHRINK_SMALL = 1.5
_TANHSHRINK_COEFFICIENTS = (
    0.3333333134651184, -0.1333327293395996, 0.05395901948213577, -0.021813400089740753, 0.008686376735568047,
    -0.0032605768647044897, 0.0010553436586633325, -0.00025937004829756916, 4.086177796125412e-05,
    -2.9985778837726684e-06,
)  # fmt: skip


@jax.custom_jvp
def _tanhshrink_float32(x):
    """x - tanh(x) of a float32 x; below 1.5 in size the polynomial form, as the difference cancels there (it lost
    all its digits near 0: up to 5e6 ulps)."""
    small = jnp.abs(x) < _TANHSHRINK_SMALL
    xs = jnp.where(small, x, 0)  # keeps the unused branch finite
    u = xs * xs
    p = jnp.float32(_TANHSHRINK_COEFFICIENTS[-1])
    for c in reversed(_TANHSHRINK_COEFFICIENTS[:-1]):
        p = p * u + c
    return jnp.where(small, xs * u * p, x - jnp.tanh(x))


@_tanhshrink_float32.defjvp
def _tanhshrink_float32_jvp(primals, tangents):
    # the slope tanh(x)^2 written out: the polynomial's own slope was 5e-6 relative off near 1.5, and the
    # backend's 1 - (1 - tanh(x)^2) cancels near 0
    (x,), (t,) = primals, tangents
    th = jnp.tanh(x)
    return _tanhshrink_float32(x), t * (th * th)


def _tanhshrink(x):
    # other dtypes keep the difference (float16 steps: MindSpore 2.10's bits but for 8 of 63,488 inputs)
    return _tanhshrink_float32(x) if x.dtype == jnp.float32 else x - jnp.tanh(x)


@jax.custom_jvp
def _soft_sign(x):
    """x / (1 + |x|) (the backend's value) with the slope 1 / (1 + |x|)^2 written out."""
    return jax.nn.soft_sign(x)


@_soft_sign.defjvp
def _soft_sign_jvp(primals, tangents):
    # the quotient rule's numerator (1 + |x|) - x sign(x) cancels to 1 with the rounding error of 1 + |x|: float32
    # slopes were 3.1e-6 relative off near |x| = 20 (MindSpore 2.10's kernel 2e-7)
    (x,), (t,) = primals, tangents
    d = 1 + jnp.abs(x)
    return _soft_sign(x), t / (d * d)


@jax.custom_jvp
def _hard_swish(x):
    """MindSpore's HSwish kernel on a floating x: 0 where x + 3 <= 0, x from x = 3, x * (x + 3) / 6 between (in
    the input's precision, each step rounded: MindSpore's float16 kernel computes in float16)."""
    return jnp.where(x + 3 <= 0, 0, jnp.where(x >= 3, x, _sixth(x * (x + 3)))).astype(x.dtype)


@_hard_swish.defjvp
def _hard_swish_jvp(primals, tangents):
    # MindSpore's HSwishGrad: (dy * (2x + 3)) / 6 on [-3, 3], ends included (-0.5 dy and 1.5 dy), dy beyond 3; a
    # float16 gradient is computed in float32 and rounded once (its float16 inputs are cast). Written t / 6 first:
    # the gradient runs this linear map transposed, last step first, so it multiplies first and divides last.
    (x,), (t,) = primals, tangents
    x32, t32 = x.astype(jnp.promote_types(x.dtype, jnp.float32)), t.astype(jnp.promote_types(t.dtype, jnp.float32))
    slope = jnp.where(x32 + 3 < 0, 0, jnp.where(x32 > 3, t32, _sixth(t32) * (2 * x32 + 3)))
    return _hard_swish(x), slope.astype(t.dtype)


def _hswish(x):
    # An integer x divides as integers (truncating, as MindSpore's integer kernels): x * (x + 3) / 6 on (-3, 3)
    x = jnp.asarray(x)
    if jnp.issubdtype(x.dtype, jnp.integer):
        inside = lax.div(x * (x + 3), jnp.asarray(6, x.dtype))
        return jnp.where(x + 3 <= 0, 0, jnp.where(x >= 3, x, inside)).astype(x.dtype)
    return _hard_swish(float_of(x))


@jax.custom_jvp
def _clamp(x, lo, hi):
    """x clipped into [lo, hi] (hi wins when lo > hi), the backend's clip value (a NaN bound gives NaN), with
    MindSpore's derivative: x takes the gradient inside [lo, hi], bounds included, and a bound takes it where x
    passes it (no sharing at a tie)."""
    return jnp.clip(x, lo, hi)


@_clamp.defjvp
def _clamp_jvp(primals, tangents):
    (x, lo, hi), (t_x, t_lo, t_hi) = primals, tangents
    out = _clamp(x, lo, hi)
    if not jnp.issubdtype(out.dtype, jnp.inexact):
        return out, jnp.zeros(out.shape, jax.dtypes.float0)
    t, passed = _tangent_like(t_x, out), x
    if lo is not None:
        below = x < lo
        t, passed = jnp.where(below, _tangent_like(t_lo, out), t), jnp.where(below, lo, x)
    if hi is not None:
        t = jnp.where(passed > hi, _tangent_like(t_hi, out), t)
    return out, jnp.broadcast_to(t, out.shape).astype(out.dtype)


@jax.custom_jvp
def maximum(x, y):
    """The backend's maximum (values unchanged) with MindSpore 2.10's derivative, which compares x with y."""
    return jnp.maximum(x, y)


@jax.custom_jvp
def minimum(x, y):
    """The backend's minimum (values unchanged) with MindSpore 2.10's derivative, which compares x with y."""
    return jnp.minimum(x, y)


def _extremum_jvp(pick, wins, ignores_nan, primals, tangents):
    # The backend's rule tests x == max(x, y): XLA recomputed x (a BatchNorm's affine) in that test's fusion with
    # another FMA contraction, both tests failed and the element got no gradient. x against y flips only at a tie.
    # Maximum/Minimum, as MindSpore: the winner takes the tangent, a tie (x == y) shares it equally, a NaN in either
    # passes both. Fmax/Fmin (ignores_nan): y's tangent where y wins or only x is NaN, x's elsewhere, a tie included
    # (MindSpore's Fmax; the backend's gives a tie to y).
    (x, y), (t_x, t_y) = primals, tangents
    out = pick(x, y)
    if not jnp.issubdtype(out.dtype, jnp.floating):  # integer (float0 tangents) and complex keep the backend's rule
        return jax.jvp(pick, (x, y), (t_x, t_y))
    t_x, t_y = _tangent_like(t_x, out), _tangent_like(t_y, out)
    if ignores_nan:
        t = jnp.where(wins(y, x) | (jnp.isnan(x) & ~jnp.isnan(y)), t_y, t_x)
    else:
        tie = jnp.where(x == y, (t_x + t_y) / 2, t_x + t_y)
        t = jnp.where(wins(x, y), t_x, jnp.where(wins(y, x), t_y, tie))
    return out, jnp.broadcast_to(t, out.shape).astype(out.dtype)


maximum.defjvp(functools.partial(_extremum_jvp, jnp.maximum, jnp.greater, False))
minimum.defjvp(functools.partial(_extremum_jvp, jnp.minimum, jnp.less, False))


@jax.custom_jvp
def _fmax(x, y):
    """The backend's fmax (values unchanged) with MindSpore 2.10's derivative: x's where x >= y or y is NaN."""
    return jnp.fmax(x, y)


@jax.custom_jvp
def _fmin(x, y):
    """The backend's fmin (values unchanged) with Fmax's derivative mirrored: x's where x <= y or y is NaN (PyTorch's;
    MindSpore 2.10 has no CPU Fmin)."""
    return jnp.fmin(x, y)


_fmax.defjvp(functools.partial(_extremum_jvp, jnp.fmax, jnp.greater, True))
_fmin.defjvp(functools.partial(_extremum_jvp, jnp.fmin, jnp.less, True))


def _tangent_like(t, out):
    # an integer input's tangent (float0) contributes nothing
    return jnp.zeros((), out.dtype) if t.dtype == jax.dtypes.float0 else t.astype(out.dtype)


def _tan(x):
    # A float16/bfloat16 tan is sin / cos in float32, rounded once: XLA's two CPU emitters give a float16 tan in
    # different arithmetic (up to 2 ulps apart), and even a float32 tan differently for large inputs (+-29856);
    # their float32 sin and cos agree on every float16 input
    if x.dtype in HALF_DTYPES:
        x32 = x.astype(jnp.float32)
        return (jnp.sin(x32) / jnp.cos(x32)).astype(x.dtype)
    return jnp.tan(x)


UNARY = {
    "Abs": absolute,
    "Neg": jnp.negative,
    "Exp": _float_fn(jnp.exp),
    "Log": _float_fn(jnp.log),
    "Log1p": rounds_once_from_float32(_float_fn(jnp.log1p)),
    "Expm1": rounds_once_from_float32(_float_fn(_expm1)),
    "Log2": rounds_once_from_float32(_float_fn(jnp.log2)),
    "Log10": rounds_once_from_float32(_float_fn(jnp.log10)),
    "Exp2": rounds_once_from_float32(_float_fn(jnp.exp2)),
    "Sqrt": _float_fn(jnp.sqrt),
    "Rsqrt": rounds_once_from_float32(_float_fn(lax.rsqrt)),
    "Square": jnp.square,
    "Sin": _float_fn(jnp.sin),
    "Cos": _float_fn(jnp.cos),
    "Tan": _float_fn(_tan),
    "Asin": rounds_once_from_float32(_float_fn(jnp.arcsin)),
    "ACos": rounds_once_from_float32(_float_fn(jnp.arccos)),
    "Atan": _float_fn(jnp.arctan),
    "Sinh": _float_fn(jnp.sinh),
    "Cosh": _float_fn(jnp.cosh),
    "Tanh": _float_fn(jnp.tanh),
    "Asinh": rounds_once_from_float32(_float_fn(jnp.arcsinh)),
    "Acosh": rounds_once_from_float32(_float_fn(jnp.arccosh)),
    "Atanh": rounds_once_from_float32(_float_fn(jnp.arctanh)),
    "Erf": _float_fn(jax.scipy.special.erf),
    "Erfc": _float_fn(jax.scipy.special.erfc),
    "Erfinv": rounds_once_from_float32(_float_fn(jax.scipy.special.erfinv)),
    "Lgamma": rounds_once_from_float32(_float_fn(jax.scipy.special.gammaln)),
    "Digamma": rounds_once_from_float32(_float_fn(jax.scipy.special.digamma)),
    "Floor": jnp.floor,
    "Ceil": jnp.ceil,
    "Round": jnp.round,
    "Trunc": jnp.trunc,
    "Sign": _sign,
    "Reciprocal": _float_fn(jnp.reciprocal),
    "LogicalNot": jnp.logical_not,
    "BitwiseNot": jnp.bitwise_not,
    "IsNan": jnp.isnan,
    "IsInf": jnp.isinf,
    "IsFinite": jnp.isfinite,
    "Real": jnp.real,
    "Imag": jnp.imag,
    "Conj": jnp.conj,
    # activations
    "Sigmoid": _float_fn(jax.nn.sigmoid),
    "ReLU": jax.nn.relu,
    "ReLU6": lambda x: jnp.where(x <= 6, jax.nn.relu(x), jax.nn.relu6(x)),  # MindSpore's derivative: 1 at x = 6
    "SiLU": _float_fn(jax.nn.silu),
    "Softsign": rounds_once_from_float32(_float_fn(_soft_sign)),
    "HSwish": _hswish,
    "HSigmoid": _hsigmoid,
    "Mish": rounds_once_from_float32(_float_fn(lambda x: x * jnp.tanh(jax.nn.softplus(x)))),
    "SeLU": rounds_once_from_float32(_float_fn(_selu)),
    "LogSigmoid": rounds_once_from_float32(_float_fn(jax.nn.log_sigmoid)),
    "Tanhshrink": _float_fn(_tanhshrink),
}

BINARY = {
    "Add": jnp.add,
    "Sub": jnp.subtract,
    "Mul": jnp.multiply,
    "Div": _true_div,
    "FloorDiv": jnp.floor_divide,
    "FloorMod": jnp.mod,
    "TruncateDiv": lambda x, y: _trunc_div(x, y),
    "Mod": jnp.fmod,
    "Pow": jnp.power,
    "Maximum": maximum,
    "Minimum": minimum,
    "Atan2": rounds_once_from_float32(lambda x, y: jnp.arctan2(float_of(x), float_of(y))),
    "Hypot": rounds_once_from_float32(lambda x, y: jnp.hypot(float_of(x), float_of(y))),
    "SquaredDifference": lambda x, y: jnp.square(jnp.subtract(x, y)),
    "Xdivy": lambda x, y: jnp.where(jnp.asarray(x) == 0, 0.0, _true_div(x, y)).astype(_true_div(x, y).dtype),
    "Xlogy": lambda x, y: jax.scipy.special.xlogy(float_of(x), float_of(y)),  # in float16 MindSpore 2.10's bits
    "Equal": jnp.equal,
    "NotEqual": jnp.not_equal,
    "Greater": jnp.greater,
    "GreaterEqual": jnp.greater_equal,
    "Less": jnp.less,
    "LessEqual": jnp.less_equal,
    "LogicalAnd": jnp.logical_and,
    "LogicalOr": jnp.logical_or,
    "LogicalXor": jnp.logical_xor,
    "BitwiseAnd": jnp.bitwise_and,
    "BitwiseOr": jnp.bitwise_or,
    "BitwiseXor": jnp.bitwise_xor,
    "LeftShift": jnp.left_shift,
    "RightShift": jnp.right_shift,
}


def _promote(x, y):
    x, y = jnp.asarray(x), jnp.asarray(y)
    dt = jnp.result_type(x, y)
    return x.astype(dt), y.astype(dt)


def _trunc_div(x, y):
    x, y = _promote(x, y)
    if jnp.issubdtype(x.dtype, jnp.integer):
        return lax.div(*jnp.broadcast_arrays(x, y))
    return jnp.trunc(x / y)


# Backward rules read from the forward output, in MindSpore's formula and order: a rule in another order (the
# backend's tanh rule is (dout + dout * y) * (1 - y)) rounds differently, and in float16 the difference grows through
# cancellations such as 1 - y*y (tanh's gradient 1-2 float16 ulps off in half the elements; a network that divides
# by 1 - |x|^2 amplifies it). Measured against MindSpore 2.10's CPU rules: tests/_prims/test_math.py (goldens).


def _tanh_grad(out, dout):
    if out.dtype in HALF_DTYPES:  # computed in float32 from the rounded output and rounded once
        y = out.astype(jnp.float32)
        return (dout.astype(jnp.float32) * (1 - y * y)).astype(out.dtype)
    if out.dtype == jnp.float32:  # 1 - y*y rounded once (a fused multiply-add): it cancels near saturation
        y = out.astype(jnp.float64)
        return dout * (1 - y * y).astype(jnp.float32)
    return dout * (1 - out * out)


def _sqrt_grad(out, dout):
    # a true division by 2 * out: written dout / out * 0.5 or dout * (0.5 / out), XLA's simplifier turns it into a
    # product with the reciprocal (1 ulp off in a quarter of the elements); the division costs 1.2x (float32) to
    # 3.4x (float16) the backend rule's time for a sqrt's gradient alone
    return dout / (2 * out)


def _rsqrt_grad(out, dout):
    return dout * (((-0.5 * out) * out) * out)  # each step rounded in the output's dtype


def _reciprocal_grad(out, dout):
    return dout * -(out * out)


def _from_output(impl, grad):
    """A `vjp` rule for the elementwise `impl` that computes the input gradient from the output as `grad(out,
    dout)` for real floating-point results; complex results and integer inputs keep the backend's rule."""

    def vjp(x, out, dout):
        if not (jnp.issubdtype(out.dtype, jnp.floating) and jnp.issubdtype(jnp.asarray(x).dtype, jnp.floating)):
            return jax.vjp(impl, x)[1](dout)
        return (grad(out, dout),)

    return vjp


# (Sigmoid's and Exp's backend rules, dout * y * (1 - y) and dout * y, already give MindSpore's bits.) Erf, Pow and
# GeLU keep the backend's rules, nearer float64 than MindSpore 2.10's CPU ones (mean error, 512 random inputs;
# derivative_from_output_goldens_mindspore.json): Erf float16 (dout * c) * exp(-x^2) 0.656 ulps where MindSpore's
# dout * (c * exp(-x^2)) gives 0.670 (every float16 input in [-4.5, 4.5]), float32 2.6 against 31 (its exp); Pow
# float16 equal, float32 0.54 / 0.51 ulps (base / exponent) against 0.60 / 22; GeLU's tanh form float16 0.23 against
# 0.33 ulps (max 0.5 against 11.7), float32 7.7 against 4.5e6 float32 epsilons of relative error beyond |x| = 4 (its
# 1 - tanh^2 cancels); ops.gelu's erf form, which MindSpore composes of Div, Erf, Add and Mul: 0.23 against 5.8 ulps
# (float16), 2.3 against 9,114 (float32, 1 + erf cancels on the negative tail).
FROM_OUTPUT = {"Tanh": _tanh_grad, "Sqrt": _sqrt_grad, "Rsqrt": _rsqrt_grad, "Reciprocal": _reciprocal_grad}

DEFS: dict[str, PrimitiveDef] = {}
for _name, _fn in UNARY.items():
    _rule = FROM_OUTPUT.get(_name)
    DEFS[_name] = PrimitiveDef(_name, _fn, vjp=None if _rule is None else _from_output(_fn, _rule))
for _name, _fn in BINARY.items():
    # Div broadcasts its inputs itself (true_divide: a broadcast divisor is materialised)
    _impl = _fn if _name == "Div" else sums_broadcasts_in_float32(_fn)
    _impl = float32_scalars(_impl)
    if _name == "Mul":  # Mul and Div: declared without a dtype group in MindSpore 2.10, a number keeps float32
        _impl = number_operand_in_float32(_impl)
    elif _name == "Div":  # its float32 quotient rounded to half precision is the correctly rounded one
        _impl = number_operand_in_float32(_impl, functools.partial(true_divide, exact=True, divide=_divide))
    DEFS[_name] = PrimitiveDef(_name, _impl, check=check_binary(_name))

# Activations with attributes.
DEFS["Elu"] = PrimitiveDef("Elu", rounds_once_from_float32(_elu), attrs={"alpha": 1.0})
DEFS["CeLU"] = PrimitiveDef("CeLU", _celu, attrs={"alpha": 1.0})
DEFS["LeakyReLU"] = PrimitiveDef("LeakyReLU", lambda x, alpha: _leaky_relu(x, alpha), attrs={"alpha": 0.01})


def _gelu_tanh_parts(x):
    """(sqrt(2/pi), u, tanh(u), x (1 + tanh(u)) / 2) with u = sqrt(2/pi) (x + 0.044715 x^3): the backend's
    `gelu(approximate=True)` written out term for term, so that its value keeps the backend's bits."""
    c = np.sqrt(2 / np.pi).astype(x.dtype)
    u = c * (x + 0.044715 * (x**3))
    t = jnp.tanh(u)
    return c, u, t, x * (0.5 * (1.0 + t))


@jax.custom_jvp
def _gelu_tanh(x):
    """GELU's tanh form: the backend's value, with a slope free of float32 cancellation on both tails."""
    return _gelu_tanh_parts(x)[3]


@_gelu_tanh.defjvp
def _gelu_tanh_jvp(primals, tangents):
    # The slope is s + 2 x u' s (1 - s) with s = sigmoid(2u) = (1 + tanh u) / 2. The backend's own derivative reads s
    # and 1 - s off tanh u, which saturates: float32 slopes were 3.5e-6 off near |x| = 4.9 (MindSpore's kernel 5.5e-7).
    # Here both come from e = exp(-2|u|), exact: the larger is 1 / (1 + e), the smaller e / (1 + e). The slope reads
    # no tanh, so a PyNative backward (which recomputes the forward and drops its value) runs one exp where the
    # backend's derivative ran one tanh; read off the forward's tanh (session 26) it ran both, and the transformer
    # demo's PyNative step took 5-9% more CPU (in-process A/B, session 27).
    (x,), (dx,) = primals, tangents
    c, u, _, y = _gelu_tanh_parts(x)
    e = jnp.exp(-2 * jnp.abs(u))
    big = 1 / (1 + e)
    small = e * big
    s = jnp.where(u < 0, small, big)
    # beyond |x| = 10 the bell term s (1 - s) is below 1e-37; clipping x there keeps x u' finite (no 0 * inf)
    xc = jnp.clip(x, -10, 10)
    du = c * (1 + 3 * 0.044715 * xc * xc)
    return y, dx * (s + 2 * xc * du * (small * big))


def _gelu(x, approximate: bool):
    # in half precision the tanh form's 1 + tanh(..) cancels on the negative tail (GELU(-3.1) came out -2.27e-3
    # against -2.63e-3): computed in float32 and rounded once, as MindSpore's kernel
    x = float_of(x)
    return _gelu_tanh(x) if approximate else jax.nn.gelu(x, approximate=False)


DEFS["GeLU"] = PrimitiveDef("GeLU", rounds_once_from_float32(_gelu), attrs={"approximate": False})


def _clip_by_norm(x, clip_norm, axis):
    # one kernel in float32, as MindSpore's ClipByNorm: inside a float16 Cell only its inputs are rounded
    x32 = jnp.asarray(x).astype(jnp.float32)
    clip = jnp.asarray(clip_norm).astype(jnp.float32)
    l2 = jnp.sqrt(jnp.sum(x32 * x32, axis=axis, keepdims=True))
    return x32 * clip / maximum(l2, clip)  # MindSpore shares the tie l2 == clip_norm, as Maximum


DEFS["ClipByNorm"] = PrimitiveDef("ClipByNorm", _clip_by_norm, attrs={"axis": ()})
DEFS["Softplus"] = PrimitiveDef(
    "Softplus",
    rounds_once_from_float32(
        lambda x, beta, threshold: jnp.where(x * beta > threshold, x, jax.nn.softplus(float_of(x) * beta) / beta)
    ),
    attrs={"beta": 1.0, "threshold": 20.0},
)
DEFS["HShrink"] = PrimitiveDef(
    "HShrink", lambda x, lambd: jnp.where(jnp.abs(x) > lambd, x, 0).astype(jnp.asarray(x).dtype), attrs={"lambd": 0.5}
)
DEFS["SoftShrink"] = PrimitiveDef(
    "SoftShrink",
    lambda x, lambd: jnp.where(x > lambd, x - lambd, jnp.where(x < -lambd, x + lambd, 0)).astype(jnp.asarray(x).dtype),
    attrs={"lambd": 0.5},
)
DEFS["Clamp"] = PrimitiveDef("Clamp", float32_scalars(_clamp))
DEFS["Lerp"] = PrimitiveDef("Lerp", float32_scalars(lambda x, end, weight: x + weight * (end - x)))
DEFS["AddN"] = PrimitiveDef("AddN", lambda *xs: sum(xs[1:], xs[0]))
DEFS["Identity"] = PrimitiveDef("Identity", lambda x: x)
# (nondiff: the tape links nothing through it, so the op that made its input is never differentiated)
DEFS["StopGradient"] = PrimitiveDef("StopGradient", lambda x: lax.stop_gradient(x), nondiff=(0,))
DEFS["Cast"] = PrimitiveDef(
    "Cast", lambda x, dtype: jnp.asarray(x).astype(dtype), attrs={"dtype": None}, amp_cast=False
)

add_p = DEFS["Add"]


def _check_cdist(x1, x2, p):
    s1, s2 = tuple(getattr(x1, "shape", ())), tuple(getattr(x2, "shape", ()))
    if len(s1) < 2 or len(s1) != len(s2):
        raise op_error("Cdist", f"'x1' and 'x2' must have the same rank, at least 2, but got shapes {s1} and {s2}.")
    if s1[-1] != s2[-1]:
        raise op_error("Cdist", f"'x1' and 'x2' must have the same last dimension, but got shapes {s1} and {s2}.")
    if s1[:-2] != s2[:-2]:
        raise op_error("Cdist", f"the batch dimensions of 'x1' {s1[:-2]} and 'x2' {s2[:-2]} must be equal.")
    if p < 0:
        raise op_error("Cdist", f"'p' must be non-negative, but got {p}.")


@jax.custom_jvp
def _chebyshev(x1, x2):
    """The p=inf distance: max |x1 - x2| over the last axis, (..., P, M) x (..., R, M) -> (..., P, R)."""
    return jnp.max(jnp.abs(x1[..., :, None, :] - x2[..., None, :, :]), axis=-1)


@_chebyshev.defjvp
def _chebyshev_jvp(primals, tangents):
    # MindSpore 2.10's CdistGrad: each coordinate at the maximum takes the whole sign(x1 - x2) gradient (tied ones
    # too; the backend's max rule split a tie). The difference passes an optimization barrier, so the comparison
    # reads the values the maximum was taken of (see reduction._chooser_vjp), not a recomputation.
    (x1, x2), (t1, t2) = primals, tangents
    diff = lax.optimization_barrier(x1[..., :, None, :] - x2[..., None, :, :])
    d = jnp.abs(diff)
    out = jnp.max(d, axis=-1)
    t = jnp.where(d == out[..., None], jnp.sign(diff) * (t1[..., :, None, :] - t2[..., None, :, :]), 0)
    return out, jnp.sum(t, axis=-1).astype(out.dtype)


def _cdist(x1, x2, p):
    if p == float("inf"):
        return _chebyshev(x1, x2)
    d = jnp.abs(x1[..., :, None, :] - x2[..., None, :, :])
    if p == 0:
        return jnp.sum((d != 0).astype(d.dtype), axis=-1)
    s = jnp.sum(d**p, axis=-1)
    # At zero distance the p-th root has no derivative: there the gradient is 0 (as MindSpore gives), not NaN.
    pos = s > 0
    return jnp.where(pos, jnp.where(pos, s, 1) ** (1.0 / p), 0)


Cdist = PrimitiveDef("Cdist", _cdist, attrs={"p": 2.0}, check=_check_cdist)


def _check_bincount(x, weights, length):
    dt = getattr(x, "dtype", None)
    dt = getattr(dt, "np", dt)  # a constant Tensor in a graph carries Kiln's dtype
    if dt is not None and not jnp.issubdtype(jnp.dtype(dt), jnp.integer):
        raise op_error("Bincount", f"'input' must be an integer tensor, but got {dt}.", TypeError)
    if len(getattr(x, "shape", ())) != 1:
        raise op_error("Bincount", f"'input' must be 1-D, but got shape {tuple(getattr(x, 'shape', ()))}.")
    if weights is not None and tuple(weights.shape) != tuple(x.shape):
        raise op_error("Bincount", f"'weights' must have the shape of 'input' {tuple(x.shape)}, got {weights.shape}.")


def _bincount(x, weights, length):
    # MindSpore 2.10 counts in float32, with or without weights.
    w = None if weights is None else weights.astype(jnp.float32)
    return jnp.bincount(x, w, length=length).astype(jnp.float32)


Bincount = PrimitiveDef("Bincount", _bincount, attrs={"length": 0}, check=_check_bincount, nondiff=(0,))


def _check_searchsorted(seq, values, right, out_int32):
    s, v = tuple(getattr(seq, "shape", ())), tuple(getattr(values, "shape", ()))
    if len(s) == 0:
        raise op_error("SearchSorted", "'sorted_sequence' must have at least one dimension.")
    if len(s) > 1 and (len(v) != len(s) or v[:-1] != s[:-1]):
        raise op_error(
            "SearchSorted",
            f"the leading dimensions of 'sorted_sequence' {s} and 'values' {v} must be equal "
            "(or 'sorted_sequence' must be 1-D).",
        )


def _searchsorted(seq, values, right, out_int32):
    side = "right" if right else "left"
    if seq.ndim == 1:
        out = jnp.searchsorted(seq, values, side=side)
    else:
        rows = seq.reshape(-1, seq.shape[-1])
        vals = values.reshape(rows.shape[0], -1)
        out = jax.vmap(lambda r, q: jnp.searchsorted(r, q, side=side))(rows, vals).reshape(values.shape)
    return out.astype(jnp.int32 if out_int32 else jnp.int64)


SearchSorted = PrimitiveDef(
    "SearchSorted",
    _searchsorted,
    attrs={"right": False, "out_int32": False},
    check=_check_searchsorted,
    nondiff=(0, 1),
)


# MindSpore 2.10's derivative: the cotangent itself for x1 (the step is below the resolution of the gradient), zero
# for x2; the backend has none.
NextAfter = PrimitiveDef(
    "NextAfter", lambda x, y: jnp.nextafter(x, y), vjp=lambda x, y, out, dout: (dout, None), nondiff=(1,)
)


def _check_int(op):
    def check(x, y=None, **_):
        kinds = [getattr(getattr(v, "dtype", None), "kind", None) for v in (x, y)]
        for v, kind in zip((x, y), kinds, strict=True):
            # a bool beside an integer tensor is promoted to it, as MindSpore 2.10's gcd/lcm do (bool with bool raises)
            if kind is not None and kind not in "iu" and not (kind == "b" and any(k and k in "iu" for k in kinds)):
                raise op_error(op, f"the inputs must be integer tensors, but got {v.dtype}.", TypeError)

    return check


def _sinc(x):
    x = float_of(x)
    return jnp.sinc(x)


MATH_UNARY = {
    "Sinc": _sinc,
    "SignBit": lambda x: jnp.less(x, 0),  # MindSpore 2.10: -0.0 gives False
    "Angle": lambda x: jnp.angle(x),
    "ComplexAbs": lambda x: jnp.abs(x),
}
for _name, _fn in MATH_UNARY.items():
    DEFS[_name] = PrimitiveDef(_name, _fn)
DEFS["PopulationCount"] = PrimitiveDef(
    "PopulationCount", lambda x: lax.population_count(x).astype(jnp.uint8), check=_check_int("PopulationCount")
)

MATH_BINARY = {
    "CopySign": lambda x, y: jnp.copysign(float_of(x), float_of(y)),
    "LogAddExp": rounds_once_from_float32(lambda x, y: jnp.logaddexp(float_of(x), float_of(y))),
    "LogAddExp2": rounds_once_from_float32(lambda x, y: jnp.logaddexp2(float_of(x), float_of(y))),
    "Fmax": _fmax,
    "Fmin": _fmin,
    "Complex": lambda re, im: lax.complex(*jnp.broadcast_arrays(re, im)),
    "Polar": lambda r, theta: lax.complex(r * jnp.cos(theta), r * jnp.sin(theta)),
}
for _name, _fn in MATH_BINARY.items():
    DEFS[_name] = PrimitiveDef(_name, float32_scalars(_fn), check=check_binary(_name))
for _name, _fn in {"Gcd": jnp.gcd, "Lcm": jnp.lcm}.items():
    DEFS[_name] = PrimitiveDef(_name, _fn, check=_check_int(_name), nondiff=(0, 1))


def _check_complex(op):
    def check(x):
        dt = getattr(x, "dtype", None)
        if dt is not None and getattr(dt, "kind", "c") != "c":
            raise op_error(op, f"the input must be complex64 or complex128, but got {dt}.", TypeError)

    return check


DEFS["Angle"].check = _check_complex("Angle")
