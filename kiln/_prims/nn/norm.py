"""Normalisation: BatchNorm (with moving statistics), LayerNorm, GroupNorm, InstanceNorm, and L2/Lp normalisation.

Statistics are computed in at least float32 (half-precision inputs are
upcast and the result cast back), variances are biased for normalising; the
moving variance of BatchNorm is updated with the unbiased batch variance.
"""

from __future__ import annotations

import functools
import math

from kiln._backend import jax, jnp, lax
from kiln._prims.math import maximum
from kiln._prims.nn._common import declare, op_error, require_float, shape_of
from kiln._prims.recurrent import reverse_only_state


def _compute_dtype(dt):
    return jnp.promote_types(dt, jnp.float32)


# ---- BatchNorm ------------------------------------------------------------------------------
def _channel_axis(ndim: int, data_format: str) -> int:
    return ndim - 1 if data_format in ("NHWC", "NDHWC") and ndim > 2 else 1


def _check_batch_norm(x, scale, bias, mean, variance, *, is_training, epsilon, momentum, data_format):
    op = "BatchNorm"
    xs = shape_of(x)
    if len(xs) < 2:
        raise op_error(op, f"'input_x' must have at least 2 dimensions (N, C, ...), but got shape {list(xs)}.")
    require_float(op, "input_x", x)
    if not 0.0 <= momentum <= 1.0:
        raise op_error(op, f"'momentum' must be in [0, 1], but got {momentum}.")
    if epsilon <= 0:
        raise op_error(op, f"'epsilon' must be positive, but got {epsilon}.")
    c = xs[_channel_axis(len(xs), data_format)]
    for name, t in (("scale", scale), ("bias", bias), ("mean", mean), ("variance", variance)):
        if t is not None and tuple(shape_of(t)) != (c,):
            raise op_error(
                op,
                f"'{name}' must have shape [{c}] (the channel dimension of input_x {list(xs)}), "
                f"but got {list(shape_of(t))}.",
            )


def _batch_norm(x, scale, bias, mean, variance, *, is_training, epsilon, momentum, data_format):
    """(y, batch mean, batch variance, new moving mean, new moving variance)."""
    ax = _channel_axis(x.ndim, data_format)
    ct = _compute_dtype(x.dtype)
    xc = x.astype(ct)
    axes = tuple(i for i in range(x.ndim) if i != ax)
    shape = [1] * x.ndim
    shape[ax] = x.shape[ax]
    if is_training:
        b_mean = jnp.mean(xc, axis=axes)
        b_var = jnp.mean(jnp.square(xc - b_mean.reshape(shape)), axis=axes)
        n = x.size // x.shape[ax]
        unbiased = lax.stop_gradient(b_var) * (n / max(n - 1, 1))
        new_mean = (1 - momentum) * mean.astype(ct) + momentum * lax.stop_gradient(b_mean)
        new_var = (1 - momentum) * variance.astype(ct) + momentum * unbiased
        use_mean, use_var = b_mean, b_var
    else:
        use_mean, use_var = mean.astype(ct), variance.astype(ct)
        b_mean, b_var, new_mean, new_var = use_mean, use_var, use_mean, use_var
    y = (xc - use_mean.reshape(shape)) * lax.rsqrt(use_var.reshape(shape) + epsilon)
    if scale is not None:
        y = y * scale.astype(ct).reshape(shape)
    if bias is not None:
        y = y + bias.astype(ct).reshape(shape)
    sd = mean.dtype
    return y.astype(x.dtype), b_mean.astype(sd), b_var.astype(sd), new_mean.astype(sd), new_var.astype(sd)


def _batch_norm_kept(*, is_training, **_) -> tuple[int, ...]:
    """The inputs a float16 Cell leaves in their dtype. MindSpore 2.10's training BatchNorm marks its scale, bias and
    moving statistics written, so it normalises with the float32 scale and bias; its inference BatchNorm marks none,
    so all four are rounded to float16 first (both modes, measured: tests/nn/test_amp_cells.py)."""
    return (1, 2, 3, 4) if is_training else ()


BatchNorm = declare(
    "BatchNorm",
    _batch_norm,
    _check_batch_norm,
    attrs={"is_training": False, "epsilon": 1e-5, "momentum": 0.1, "data_format": "NCHW"},
    nondiff=(3, 4),
    multiple_results=True,
    amp_keep=_batch_norm_kept,
)


# ---- LayerNorm ------------------------------------------------------------------------------
def _check_layer_norm(x, gamma, beta, *, begin_norm_axis, begin_params_axis, epsilon):
    op = "LayerNorm"
    xs = shape_of(x)
    nd = len(xs)
    require_float(op, "input_x", x)
    for name, a in (("begin_norm_axis", begin_norm_axis), ("begin_params_axis", begin_params_axis)):
        if not -nd <= a < max(nd, 1):
            raise op_error(op, f"'{name}' must be in [{-nd}, {nd}) for input shape {list(xs)}, but got {a}.")
    want = tuple(xs[begin_params_axis % nd :]) if nd else ()
    for name, t in (("gamma", gamma), ("beta", beta)):
        if t is not None and tuple(shape_of(t)) != want:
            raise op_error(
                op,
                f"'{name}' must have shape {list(want)} (input_x {list(xs)} from "
                f"begin_params_axis={begin_params_axis}), but got {list(shape_of(t))}.",
            )


def _layer_norm(x, gamma, beta, *, begin_norm_axis, begin_params_axis, epsilon):
    """(y, mean, variance); the statistics keep the normalised axes as size 1."""
    attrs = {"begin_norm_axis": begin_norm_axis, "begin_params_axis": begin_params_axis, "epsilon": epsilon}
    if reverse_only_state():
        return _with_written_derivative(attrs)(x, gamma, beta)
    return _layer_norm_values(x, gamma, beta, **attrs)


def _with_written_derivative(attrs: dict):
    """LayerNorm with `_layer_norm_vjp` as its derivative, for a compiled gradient that reverse mode alone
    differentiates (`reverse_only_state`): a backend custom derivative has no forward mode, so ops.jvp, jacfwd
    and the Taylor modes keep the backend's derivative of `_layer_norm_values`."""

    @jax.custom_vjp
    def layer_norm(x, gamma, beta):
        return _layer_norm_values(x, gamma, beta, **attrs)

    def forward(x, gamma, beta):
        out = _layer_norm_values(x, gamma, beta, **attrs)
        return out, (x, gamma, beta, out)

    def backward(saved, dout):
        x, gamma, beta, out = saved
        return _layer_norm_vjp(x, gamma, beta, out=out, dout=dout, **attrs)

    layer_norm.defvjp(forward, backward)
    return layer_norm


def _layer_norm_values(x, gamma, beta, *, begin_norm_axis, begin_params_axis, epsilon):
    nd = x.ndim
    first = begin_norm_axis % nd if nd else 0
    if nd > 2 and first == begin_params_axis % nd and all(type(d) is int for d in x.shape):
        # Normalised as a matrix of rows (one per position), the view Dense's dots take: on the CPU, XLA then
        # computes each residual gradient once. Over (batch, tokens, features) its fusion built it twice, for the
        # bias and LayerNorm parameter sums in 3-D and for the dots in 2-D (the transformer step: 334 -> 331
        # kernels, 0.92-0.93x the step's CPU and wall time, interleaved in one process).
        lead, norm = x.shape[:first], x.shape[first:]
        rows = (math.prod(lead), math.prod(norm))
        flat = [None if t is None else t.reshape(rows[1:]) for t in (gamma, beta)]
        y, mean, var = _layer_norm_values(
            x.reshape(rows), *flat, begin_norm_axis=1, begin_params_axis=1, epsilon=epsilon
        )
        kept = lead + (1,) * len(norm)
        return y.reshape(x.shape), mean.reshape(kept), var.reshape(kept)
    ct = _compute_dtype(x.dtype)
    xc = x.astype(ct)
    axes = tuple(range(begin_norm_axis % x.ndim, x.ndim))
    mean = jnp.mean(xc, axis=axes, keepdims=True)
    var = jnp.mean(jnp.square(xc - mean), axis=axes, keepdims=True)
    y = (xc - mean) * lax.rsqrt(var + epsilon)
    if gamma is not None:
        y = y * gamma.astype(ct)
    if beta is not None:
        y = y + beta.astype(ct)
    # The statistics stay in the compute dtype: float32 for a float16 x, as MindSpore's CPU and GPU LayerNorm give
    # them (they give float32 for a float64 x too, rounded: Kiln keeps float64 there).
    return y.astype(x.dtype), mean, var


def _layer_norm_vjp(x, gamma, beta, *, out, dout, begin_norm_axis, begin_params_axis, epsilon):
    """LayerNorm's derivative written out: dx = rstd * (g - mean(g) - xhat * mean(g * xhat)), g = dy * gamma.

    The backend's own derivative of `_layer_norm` differentiates the mean and the variance separately (three row
    reductions and their broadcasts per LayerNorm); this form needs two. The cotangents of the mean and variance
    outputs (MindSpore's LayerNorm returns them) add their own terms.
    """
    nd = x.ndim
    first = begin_norm_axis % nd if nd else 0
    params = begin_params_axis % nd if nd else 0
    _, mean, var = out
    dy, dmean, dvar = dout
    ct = _compute_dtype(x.dtype)
    shape, params_shape = x.shape, None if gamma is None else gamma.shape
    if nd > 2 and first == params and all(type(d) is int for d in shape):
        # over rows, as the forward (see `_layer_norm`)
        rows = (math.prod(shape[:first]), math.prod(shape[first:]))
        x, dy = x.reshape(rows), dy.reshape(rows)
        mean, var, dmean, dvar = (t.reshape(rows[0], 1) for t in (mean, var, dmean, dvar))
        gamma = None if gamma is None else gamma.reshape(rows[1:])
        first = params = 1
        nd = 2
    axes = tuple(range(first, nd))
    count = math.prod(x.shape[first:])
    xc = x.astype(ct)
    centred = xc - mean.astype(ct)
    rstd = lax.rsqrt(var.astype(ct) + epsilon)
    xhat = centred * rstd
    dyc = dy.astype(ct)
    g = dyc if gamma is None else dyc * gamma.astype(ct)
    dx = rstd * (g - jnp.mean(g, axis=axes, keepdims=True) - xhat * jnp.mean(g * xhat, axis=axes, keepdims=True))
    dx = dx + (dmean.astype(ct) + 2.0 * centred * dvar.astype(ct)) / count
    lead = tuple(range(params))
    dgamma = None if gamma is None else jnp.sum(dyc * xhat, axis=lead).astype(gamma.dtype).reshape(params_shape)
    dbeta = None if beta is None else jnp.sum(dyc, axis=lead).astype(beta.dtype).reshape(beta.shape)
    return dx.astype(x.dtype).reshape(shape), dgamma, dbeta


LayerNorm = declare(
    "LayerNorm",
    _layer_norm,
    _check_layer_norm,
    attrs={"begin_norm_axis": 1, "begin_params_axis": 1, "epsilon": 1e-7},
    multiple_results=True,
)


# ---- GroupNorm ------------------------------------------------------------------------------
def _check_group_norm(x, gamma, beta, *, num_groups, eps):
    op = "GroupNorm"
    xs = shape_of(x)
    require_float(op, "input", x)
    if len(xs) < 2:
        raise op_error(op, f"'input' must have at least 2 dimensions (N, C, ...), but got shape {list(xs)}.")
    if not isinstance(num_groups, int) or num_groups <= 0 or xs[1] % num_groups:
        raise op_error(
            op,
            f"'num_groups' must be a positive int dividing the channel count {xs[1]} of input "
            f"{list(xs)}, but got {num_groups}.",
        )
    for name, t in (("weight", gamma), ("bias", beta)):
        if t is not None and tuple(shape_of(t)) != (xs[1],):
            raise op_error(op, f"'{name}' must have shape [{xs[1]}], but got {list(shape_of(t))}.")


def _group_norm(x, gamma, beta, *, num_groups, eps):
    ct = _compute_dtype(x.dtype)
    n, c = x.shape[:2]
    xg = x.astype(ct).reshape((n, num_groups, -1))
    mean = jnp.mean(xg, axis=-1, keepdims=True)
    var = jnp.mean(jnp.square(xg - mean), axis=-1, keepdims=True)
    y = ((xg - mean) * lax.rsqrt(var + eps)).reshape(x.shape)
    shape = (1, c) + (1,) * (x.ndim - 2)
    if gamma is not None:
        y = y * gamma.astype(ct).reshape(shape)
    if beta is not None:
        y = y + beta.astype(ct).reshape(shape)
    return y.astype(x.dtype)


GroupNorm = declare("GroupNorm", _group_norm, _check_group_norm, attrs={"num_groups": 1, "eps": 1e-5})


# ---- InstanceNorm ---------------------------------------------------------------------------
def _check_instance_norm(x, gamma, beta, mean, variance, *, epsilon, momentum):
    op = "InstanceNorm"
    xs = shape_of(x)
    require_float(op, "input_x", x)
    if len(xs) < 3:
        raise op_error(op, f"'input_x' must be (N, C, ...) with at least one spatial axis, but got shape {list(xs)}.")
    for name, t in (("gamma", gamma), ("beta", beta), ("mean", mean), ("variance", variance)):
        if tuple(shape_of(t)) != (xs[1],):
            raise op_error(op, f"'{name}' must have shape [{xs[1]}] (the channels of input_x {list(xs)}), but got "
                               f"{list(shape_of(t))}.")  # fmt: skip


def _instance_norm(x, gamma, beta, mean, variance, *, epsilon, momentum):
    """(y, save_mean, save_variance): each (sample, channel) of x normalised over its spatial axes in float32, then
    scaled by float32 gamma and shifted by beta; the statistics are (N * C,), the variance as 1 / sqrt(var + eps)
    (what the cuDNN kernel under MindSpore's saves). MindSpore's GPU kernel updates a scratch copy of `mean` and
    `variance`, never the inputs, so they are read for their shapes only."""
    ct = _compute_dtype(x.dtype)
    xc = x.astype(ct)
    axes = tuple(range(2, x.ndim))
    b_mean = jnp.mean(xc, axis=axes, keepdims=True)
    inv_std = lax.rsqrt(jnp.mean(jnp.square(xc - b_mean), axis=axes, keepdims=True) + epsilon)
    shape = (1, x.shape[1]) + (1,) * len(axes)
    y = (xc - b_mean) * inv_std * gamma.astype(ct).reshape(shape) + beta.astype(ct).reshape(shape)
    stats = mean.dtype
    return y.astype(x.dtype), b_mean.reshape(-1).astype(stats), lax.stop_gradient(inv_std).reshape(-1).astype(stats)


InstanceNorm = declare(
    "InstanceNorm",
    _instance_norm,
    _check_instance_norm,
    attrs={"epsilon": 1e-5, "momentum": 0.1},
    nondiff=(3, 4),
    multiple_results=True,
    # MindSpore 2.10 marks gamma, beta and both statistics written (its signature), so a float16 Cell casts only the
    # input (GRAPH_MODE IR checked: tests/nn/test_amp_cells.py); its kernel takes float32 for all four
    amp_keep=(1, 2, 3, 4),
)


# ---- normalisation by a norm ------------------------------------------------------------------
def _check_axes(op):
    def check(x, *, axis, **_):
        nd = len(shape_of(x))
        require_float(op, "x", x)
        for a in axis:
            if not -max(nd, 1) <= a < max(nd, 1):
                raise op_error(
                    op, f"'axis' entries must be in [{-nd}, {nd}) for shape {list(shape_of(x))}, but got {a}."
                )

    return check


@functools.partial(jax.custom_jvp, nondiff_argnums=(1, 2))
def _l2_normalized(x, axis, epsilon):
    sq = jnp.sum(jnp.square(x), axis=axis, keepdims=True)
    return x * lax.rsqrt(jnp.maximum(sq, epsilon))


@_l2_normalized.defjvp
def _l2_normalized_jvp(axis, epsilon, primals, tangents):
    # MindSpore 2.10's L2NormalizeGrad, (t - y sum(y t)) / max(||x||, epsilon) with y the output: the derivative
    # above the bound; below it the norm, not its square, meets epsilon (a zero row: t / epsilon). The backend's
    # maximum rule shared the tie sum(x^2) == epsilon and tested sum(x^2) against the clamped value.
    (x,), (t,) = primals, tangents
    y = _l2_normalized(x, axis, epsilon)
    norm = jnp.sqrt(jnp.sum(jnp.square(x), axis=axis, keepdims=True))
    return y, (t - y * jnp.sum(y * t, axis=axis, keepdims=True)) / maximum(norm, jnp.asarray(epsilon, norm.dtype))


def _l2_normalize(x, *, axis, epsilon):
    return _l2_normalized(x, axis, epsilon)


def _lp_normalize(x, *, axis, p, eps):
    norm = (
        jnp.linalg.norm(x, ord=p, axis=axis[0], keepdims=True)
        if len(axis) == 1
        else jnp.sum(jnp.abs(x) ** p, axis=axis, keepdims=True) ** (1.0 / p)
    )
    return x / maximum(norm, jnp.asarray(eps, norm.dtype))  # the norm compared with eps (see math.maximum)


L2Normalize = declare("L2Normalize", _l2_normalize, _check_axes("L2Normalize"), attrs={"axis": (0,), "epsilon": 1e-4})
LpNormalize = declare(
    "LpNormalize", _lp_normalize, _check_axes("LpNormalize"), attrs={"axis": (1,), "p": 2.0, "eps": 1e-12}
)
