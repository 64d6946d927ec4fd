"""State primitives: assignments to Parameters and the fused optimizer updates.

Assign/AssignAdd/AssignSub carry effect "write0": dispatch stores the result
in input 0, which must be a Parameter. The optimizer updates change several
state tensors at once, so they return every new value (multiple_results) and
their functional wrappers write them back.
"""

from __future__ import annotations

import functools

import numpy as np

from kiln._backend import ShapeDtypeStruct, eval_shape, jit, jnp, lax
from kiln._core.primitive import Bounds, PrimitiveDef, op_error
from kiln._prims._bounds import first_outside, index_message
from kiln._prims._checks import shape_of
from kiln._prims._division import true_divide
from kiln._prims._low_precision import rounded as _rounded


def _check_assign(op: str):
    def check(variable, value):
        vs, xs = tuple(shape_of(variable)), tuple(shape_of(value))
        if len(xs) > len(vs) or any(x not in (1, v) for x, v in zip(xs[::-1], vs[::-1])):
            raise op_error(
                op,
                f"the shape of 'value' {list(xs)} must equal, or broadcast to, the shape of 'variable' {list(vs)}.",
            )

    return check


def _as_var(variable, value):
    return jnp.broadcast_to(jnp.asarray(value).astype(variable.dtype), variable.shape)


def _written_parameter_vjp(variable, value, *, out, dout):
    # A written Parameter stays the leaf it was, holding its new value (MindSpore, both modes): what reads it after the
    # write (the op's result, or a later read in a compiled graph) sends its gradient to the Parameter, none to `value`
    return (dout, None)


Assign = PrimitiveDef(
    "Assign",
    lambda variable, value: _as_var(variable, value),
    check=_check_assign("Assign"),
    vjp=_written_parameter_vjp,
    effect="write0",
)
AssignAdd = PrimitiveDef(
    "AssignAdd",
    lambda variable, value: variable + _as_var(variable, value),
    check=_check_assign("AssignAdd"),
    vjp=_written_parameter_vjp,
    effect="write0",
)
AssignSub = PrimitiveDef(
    "AssignSub",
    lambda variable, value: variable - _as_var(variable, value),
    check=_check_assign("AssignSub"),
    vjp=_written_parameter_vjp,
    effect="write0",
)


# -- fused optimizer updates ---------------------------------------------------------------


def _scalar(x, like):
    return jnp.asarray(x).astype(like.dtype)


def _fma(a, b, c):
    """a * b + c rounded once, as a fused multiply-add instruction (the compiler contracts MindSpore's vector
    kernels into them). Written plainly: XLA's CPU code contracts it the same way (test_optim_rounding checks)."""
    return a * b + c


def _fma_exact(a, b, c):
    """a * b + c rounded once whatever XLA fuses: the exact product of two float32 values fits a float64, so only
    the sum rounds (float64 then float32, which differs from one rounding only on a float64 tie). Slower than
    `_fma`; for updates whose multiply-adds XLA contracts differently between modes."""
    dt = jnp.result_type(a, b, c)
    wide = jnp.promote_types(dt, jnp.float64)
    return (jnp.asarray(a).astype(wide) * jnp.asarray(b).astype(wide) + jnp.asarray(c).astype(wide)).astype(dt)


def _mul(a, b):
    """a * b rounded before it is added to anything, as MindSpore's scalar CPU loops store their products."""
    return _rounded(a * b)


def _apply_momentum(variable, accumulation, learning_rate, gradient, momentum, use_nesterov, gradient_scale):
    lr, mom = _scalar(learning_rate, variable), _scalar(momentum, variable)
    gradient = gradient.astype(variable.dtype) * gradient_scale if gradient_scale != 1.0 else gradient
    accum = _mul(accumulation, mom) + gradient
    step = gradient * lr + accum * mom * lr if use_nesterov else _rounded(lr * accum)
    return variable - step, accum


def _check_same_shapes(op: str, **named):
    items = list(named.items())
    first_name, first = items[0]
    for name, x in items[1:]:
        if tuple(shape_of(x)) != tuple(shape_of(first)):
            raise op_error(
                op,
                f"the shape of '{name}' {list(shape_of(x))} must equal the shape of '{first_name}' "
                f"{list(shape_of(first))}.",
            )


def _check_apply_momentum(variable, accumulation, learning_rate, gradient, momentum, **_):
    _check_same_shapes("ApplyMomentum", variable=variable, accumulation=accumulation, gradient=gradient)


ApplyMomentum = PrimitiveDef(
    "ApplyMomentum",
    _apply_momentum,
    attrs={"use_nesterov": False, "gradient_scale": 1.0},
    check=_check_apply_momentum,
    multiple_results=True,
    amp_keep=(0, 1),  # the variable and its accumulation: updated in their own dtype inside a float16 Cell
)


def _adam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad, use_nesterov):
    b1, b2, eps = _scalar(beta1, var), _scalar(beta2, var), _scalar(epsilon, var)
    grad = grad.astype(var.dtype)
    m = m + (grad - m) * (1 - b1)
    v = v + (grad * grad - v) * (1 - b2)
    lr_t = _scalar(lr, var) * jnp.sqrt(1 - _scalar(beta2_power, var)) / (1 - _scalar(beta1_power, var))
    # MindSpore's vector kernel compiles the Nesterov direction m * b1 + (1 - b1) * g to one multiply-add
    direction = _fma(1 - b1, grad, _mul(m, b1)) if use_nesterov else m
    return var - lr_t * direction / (jnp.sqrt(v) + eps), m, v


def _check_adam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad, **_):
    _check_same_shapes("Adam", var=var, m=m, v=v, grad=grad)


Adam = PrimitiveDef(
    "Adam",
    _adam,
    attrs={"use_nesterov": False},
    check=_check_adam,
    multiple_results=True,
    nondiff=tuple(range(10)),
    amp_keep=(0, 1, 2),  # var, m, v
)


def _sgd(parameters, gradient, learning_rate, accum, momentum, stat, dampening, weight_decay, nesterov):
    g = gradient.astype(parameters.dtype)
    if weight_decay != 0.0:
        g = g + _mul(parameters, weight_decay)
    mom = _scalar(momentum, parameters)
    first = _scalar(stat, parameters) > 0  # the first step starts the momentum buffer at the gradient
    use_mom = mom > 0
    new_accum = jnp.where(use_mom, jnp.where(first, g, _mul(accum, mom) + _mul(1 - dampening, g)), accum)
    step = jnp.where(use_mom, g + _mul(new_accum, mom) if nesterov else new_accum, g)
    # MindSpore's kernel clears only a positive stat (the one it started the buffer from); 0 or below stays
    new_stat = jnp.where(use_mom & first, jnp.zeros_like(stat), stat)
    return parameters - _rounded(_scalar(learning_rate, parameters) * step), new_accum, new_stat


def _check_sgd(parameters, gradient, learning_rate, accum, momentum, stat, **_):
    _check_same_shapes("SGD", parameters=parameters, gradient=gradient, accum=accum)


SGD = PrimitiveDef(
    "SGD",
    _sgd,
    attrs={"dampening": 0.0, "weight_decay": 0.0, "nesterov": False},
    check=_check_sgd,
    multiple_results=True,
    nondiff=tuple(range(6)),
    amp_keep=(0, 3, 5),  # parameters, accum, stat
)


# -- per-parameter optimizer updates (MindSpore's Apply* primitives, which nn.Adagrad, nn.RMSProp, ... call) ------
#
# Each updates a variable and its state in place. The state is declared kept (`amp_keep`), so inside a float16 Cell
# the update runs in float32 on the float16-rounded gradient, learning rate and hyper-parameter Tensors, as MindSpore
# 2.10 runs these primitives (measured: nn.Adagrad's accumulator in a to_float(float16) train cell, both modes).
# The update is computed in float32 at least and each result stored in its input's dtype.


def _declare_update(name: str, n_state: int, update, attrs: dict | None = None, same_shape: int | None = None):
    """A per-parameter optimizer update `name` whose first `n_state` inputs are the variable and its state.

    update(*inputs, **attrs) -> the new values of those `n_state` inputs, computed on inputs cast to one dtype.
    same_shape: how many leading inputs must have the variable's shape (default all `n_state`)."""

    def impl(*xs, **kw):
        dt = jnp.promote_types(xs[0].dtype, jnp.float32)
        new = update(*(jnp.asarray(x).astype(dt) for x in xs), **kw)
        return tuple(n.astype(x.dtype) for n, x in zip(new, xs[:n_state], strict=True))

    def check(*xs, **_):
        _check_same_shapes(name, **{f"input {i}": x for i, x in enumerate(xs[: same_shape or n_state])})

    return PrimitiveDef(
        name,
        impl,
        attrs=attrs or {},
        check=check,
        multiple_results=True,
        differentiable=False,
        amp_keep=range(n_state),
    )


def _adagrad(var, accum, lr, grad, update_slots):
    # MindSpore's kernel: lr * g times the reciprocal of sqrt(accum + 1e-8), each product stored
    accum = accum + _mul(grad, grad) if update_slots else accum
    # (a select keeps XLA from turning 1 / sqrt into its own reciprocal square root)
    return var - _mul(_mul(lr, grad), 1 / _rounded(jnp.sqrt(accum + jnp.asarray(1e-8, accum.dtype)))), accum


ApplyAdagrad = _declare_update("ApplyAdagrad", 2, _adagrad, {"update_slots": True})


def _adagrad_v2(var, accum, lr, grad, epsilon, update_slots):
    accum = accum + _mul(grad, grad) if update_slots else accum
    return var - _mul(_mul(lr, grad), 1 / (jnp.sqrt(accum) + epsilon)), accum


ApplyAdagradV2 = _declare_update("ApplyAdagradV2", 2, _adagrad_v2, {"epsilon": 1e-6, "update_slots": True})


def _gradient_descent(var, alpha, delta):
    return (var - _mul(alpha, delta),)


ApplyGradientDescent = _declare_update("ApplyGradientDescent", 1, _gradient_descent)


def _weight_scale_momentum(var, accum, grad, weight_decay, loss_scale, lr, momentum):
    # MindSpore runs this on GPU only. Its kernel, a line at a time: grad' = (var * decay + grad) * scale;
    # accum = momentum * accum + grad'; var -= lr * accum. Each multiply-add rounds once (the value exact in float64,
    # then stored), so the result is the same whatever XLA fuses.
    g = _mul(_fma_exact(var, weight_decay, grad), loss_scale)
    accum = _fma_exact(momentum, accum, g)
    return _fma_exact(-lr, accum, var), accum


# ops.FusedWeightScaleApplyMomentum, its inputs reordered to (variable, accumulation, gradient, weight_decay,
# loss_scale, learning_rate, momentum): the first three share one shape
FusedWeightScaleApplyMomentum = _declare_update(
    "FusedWeightScaleApplyMomentum", 2, _weight_scale_momentum, same_shape=3
)


def _decayed(rho, x, y):
    """rho * x + (1 - rho) * y as MindSpore's Adadelta kernel computes it: the first product stored, the rest
    in double precision (its `1.0 - rho`), rounded once."""
    wide = jnp.promote_types(x.dtype, jnp.float64)
    return (_mul(rho, x).astype(wide) + (1 - rho.astype(wide)) * y.astype(wide)).astype(x.dtype)


def _adadelta(var, accum, accum_update, lr, rho, epsilon, grad):
    accum = _decayed(rho, accum, _mul(grad, grad))
    update = jnp.sqrt(accum_update + epsilon) * (grad / _rounded(jnp.sqrt(accum + epsilon)))  # not XLA's rsqrt
    return var - _mul(lr, update), accum, _decayed(rho, accum_update, _mul(update, update))


ApplyAdadelta = _declare_update("ApplyAdadelta", 3, _adadelta)


def _proximal_adagrad(var, accum, lr, l1, l2, grad):
    # in the multiply-adds of MindSpore's vector kernel; the select keeps lr / sqrt from becoming XLA's rsqrt
    accum = _fma_exact(grad, grad, accum)
    rate = lr / _rounded(jnp.sqrt(accum))  # the adaptive rate also scales the proximal step
    v = _fma_exact(-grad, rate, var)
    return jnp.sign(v) * jnp.maximum(_fma_exact(-rate, l1, jnp.abs(v)), 0) / _fma_exact(l2, rate, 1.0), accum


ApplyProximalAdagrad = _declare_update("ApplyProximalAdagrad", 2, _proximal_adagrad)


def _add_sign(var, m, lr, alpha, sign_decay, beta, grad):
    # AddSign (Bello et al. 2017): the step grows where the gradient and its running mean agree in sign
    m = _mul(beta, m) + _mul(1 - beta, grad)
    return var - _mul(lr, _mul(alpha + _mul(sign_decay, jnp.sign(grad) * jnp.sign(m)), grad)), m


def _power_sign(var, m, lr, logbase, sign_decay, beta, grad):
    # PowerSign (Bello et al. 2017): the step scales by e^(logbase * sign_decay * sign(g) * sign(m))
    m = _mul(beta, m) + _mul(1 - beta, grad)
    return var - _mul(lr, _mul(jnp.exp(_mul(_mul(logbase, sign_decay), jnp.sign(grad) * jnp.sign(m))), grad)), m


def _proximal_gradient_descent(var, alpha, l1, l2, delta):
    # a gradient step, then the l1 / l2 proximal operator
    v = var - _mul(alpha, delta)
    return (jnp.sign(v) * jnp.maximum(jnp.abs(v) - _mul(alpha, l1), 0) / (1 + _mul(alpha, l2)),)


ApplyAddSign = _declare_update("ApplyAddSign", 2, _add_sign)
ApplyPowerSign = _declare_update("ApplyPowerSign", 2, _power_sign)
ApplyProximalGradientDescent = _declare_update("ApplyProximalGradientDescent", 1, _proximal_gradient_descent)


def _ada_max(var, m, v, beta1_power, lr, beta1, beta2, epsilon, grad):
    m = _mul(beta1, m) + _mul(1 - beta1, grad)
    v = jnp.maximum(_mul(beta2, v), jnp.abs(grad))
    return var - _mul(lr / (1 - _rounded(beta1_power)), m / (v + epsilon)), m, v


ApplyAdaMax = _declare_update("ApplyAdaMax", 3, _ada_max)


def _power(x, exponent):
    """x ** exponent rounded once from float64. XLA's float32 pow is exp(exponent * log(x)) within a few ulps, and a
    constant exponent of 0.5 becomes a sqrt: GRAPH_MODE (lr_power a constant) and PyNative (an input) then differed."""
    wide = jnp.promote_types(x.dtype, jnp.float64)
    exponent = jnp.asarray(exponent).astype(x.dtype)  # in x's dtype first, as the kernels receive it

    def wide_power(v, e):
        return jnp.power(v.astype(wide), e.astype(wide)).astype(v.dtype)

    # FTRL's default 0.5 as a square root (also correctly rounded): the float64 pow made a PyNative step of 4
    # (512, 512) parameters 19.5 ms where main's float32 pow took 8.5 and the square root 2.6 (process CPU). The
    # exponent is an operand of the branches, not closed over (a graph's constants that a process cannot hold are
    # made inputs for every rule now: lower.py's `lifted_constants`)
    return lax.cond(jnp.all(exponent == 0.5), lambda v, _e: jnp.sqrt(v), wide_power, x, exponent)


def _ftrl(var, accum, linear, grad, lr, l1, l2, lr_power):
    # FTRL-Proximal's published rule in MindSpore 2.10's CPU kernel's order, every operation rounded (a probe of
    # the kernel's outputs: no multiply-adds, true divisions, a correctly rounded pow). Kiln keeps the published
    # sign(z) l1 where the kernel moves var away from 0 by l1 / quad for z < 0.
    n = accum + _mul(grad, grad)
    n_pow, accum_pow = _power(n, -lr_power), _power(accum, -lr_power)
    z = linear + (grad - _mul(true_divide(n_pow - accum_pow, lr, exact=True), var))
    # held rounded: with l2 = 0 a constant, XLA turns x / (n_pow / lr) into x * lr / n_pow
    quad = _rounded(true_divide(n_pow, lr, exact=True) + _mul(2.0, l2))
    return jnp.where(jnp.abs(z) > l1, (jnp.sign(z) * l1 - z) / quad, jnp.zeros_like(z)), n, z


ApplyFtrl = _declare_update("ApplyFtrl", 3, _ftrl)


def _asgd(param, ax, eta, mu, grad, lr, step, lambd, alpha, t0):
    # nn.ASGD's step as MindSpore 2.10 runs its ops, one kernel each: every product and sum rounded (a probe of its
    # outputs; XLA's multiply-adds in param * (1 - lambd eta) - eta g moved 273 of 512 elements). The first step
    # starts eta at lr; ax copies the parameter until mu leaves 1, then averages it.
    eta = jnp.where(step == 1, lr, eta)
    new = _rounded(_mul(param, 1 - _mul(lambd, eta)) - _mul(eta, grad))
    ax = jnp.where(mu != 1, ax + _mul(new - ax, mu), new)
    base = 1 + _mul(_mul(lambd, lr), step)
    return new, ax, true_divide(lr, _power(base, alpha)), 1 / jnp.maximum(1.0, step - t0)


# param and ax are updated with the scalars eta and mu (MindSpore's per-parameter Parameters of shape ())
ASGDUpdate = _declare_update("ASGDUpdate", 4, _asgd, {"lambd": 1e-4, "alpha": 0.75, "t0": 1e6}, same_shape=2)


def _sequential_sum(x, axis: int):
    """The sum of `x` along `axis` added one element at a time from the first, as a scalar C++ loop adds (XLA's own
    reductions add in a tree and in vector lanes, which rounds otherwise)."""
    x = jnp.moveaxis(x, axis, 0)
    total, _ = lax.scan(lambda acc, row: (acc + row, None), jnp.zeros_like(x[0]), x, unroll=8)
    return total


def _divided_by_count(x, count: int):
    # rounded from float64: XLA may turn a division by a constant count into a product by its reciprocal
    return (x.astype(jnp.float64) / count).astype(x.dtype)


def _rms_in_order(x):
    """sqrt(mean(x ** 2)), summed as MindSpore 2.10's FusedAdaFactor CPU kernel sums up to 1,000 elements: each
    product rounded, added in order. Above that the kernel adds one block per thread of its pool, an order that
    depends on the machine, so Kiln sums with the backend's reduction there: a scalar loop over every element of a
    (512, 512) parameter made the GRAPH_MODE step about 4x slower."""
    flat = x.reshape(-1, 1)
    squares = _mul(flat, flat)
    total = _sequential_sum(squares, 0)[0] if flat.shape[0] <= _IN_ORDER_LIMIT else jnp.sum(squares)
    return jnp.sqrt(_divided_by_count(total, flat.shape[0]))


_IN_ORDER_LIMIT = 1000  # the most elements MindSpore's kernel sums in one block whatever its thread count


def _ada_factor(param, exp_avg, row, col, sq, grad, lr, step, eps0, eps1, clip_threshold, decay_rate, beta1,
                weight_decay, scale_parameter, first_moment, relative_step, warmup_init):  # fmt: skip
    # MindSpore 2.10's FusedAdaFactor CPU kernel (nn.AdaFactor on CPU), its order found by a probe of its outputs:
    # every operation rounded, its sums in order (_sequential_sum, _rms_in_order), the row factor sqrt(row / mean(row))
    # and the update g / (row factor * sqrt(col)), floored at 1e-30 as the kernel does.
    if relative_step:  # min(1e-2, 1 / sqrt(t)), or min(1e-6 t, 1 / sqrt(t)) warming up
        first = _mul(1e-6, step) if warmup_init else jnp.asarray(1e-2, step.dtype)
        lr = jnp.minimum(first, 1 / _rounded(jnp.sqrt(step)))
    beta2t = 1 - _power(step, -decay_rate)
    return _ada_factor_step(param, exp_avg, row, col, sq, grad, lr, beta2t, eps0, eps1, clip_threshold, beta1,
                            weight_decay, bool(weight_decay), scale_parameter, first_moment)  # fmt: skip


def _ada_factor_step(param, exp_avg, row, col, sq, grad, lr, beta2t, eps0, eps1, clip_threshold, beta1, weight_decay,
                     decay, scale_parameter, first_moment):  # fmt: skip
    """One AdaFactor step given the second moments' decay `beta2t` of this step (`_ada_factor`'s rounding)."""
    tiny = jnp.asarray(1e-30, param.dtype)
    keep = 1 - beta2t
    update = _mul(grad, grad) + eps0
    if param.ndim >= 2:
        row_mean = _divided_by_count(_sequential_sum(update, -1), update.shape[-1])
        row = _mul(row, beta2t) + _mul(row_mean, keep)
        mean_of_rows = jnp.maximum(_divided_by_count(_sequential_sum(row, -1), row.shape[-1]), tiny)
        r_factor = jnp.sqrt(true_divide(row, mean_of_rows[..., None], exact=True))
        col_mean = _divided_by_count(_sequential_sum(update, -2), update.shape[-2])
        col = jnp.maximum(_mul(col, beta2t) + _mul(col_mean, keep), tiny)
        norm = _mul(r_factor[..., :, None], jnp.sqrt(col)[..., None, :])
        update = grad / jnp.maximum(norm, tiny)
    else:
        sq = jnp.maximum(_mul(sq, beta2t) + _mul(update, keep), tiny)
        update = grad / _rounded(jnp.sqrt(sq))
    if scale_parameter:
        lr = _mul(lr, jnp.maximum(eps1, _rms_in_order(param)))
    update = _mul(update, lr / jnp.maximum(_rms_in_order(update) / clip_threshold, 1.0))
    if first_moment:
        update = exp_avg = _mul(exp_avg, beta1) + _mul(update, 1 - jnp.asarray(beta1, param.dtype))
    if decay:
        update = update + _mul(_mul(param, weight_decay), lr)
    return param - update, exp_avg, row, col, sq


def _fused_ada_factor(param, exp_avg, row, col, sq, grad, eps, clip_threshold, beta1, beta2t, weight_decay, lr,
                      global_norm, scale_parameter, first_moment, decay):  # fmt: skip
    # ops.FusedAdaFactor(WithGlobalNorm): the step's beta2t and rate given; the gradient times the reciprocal of a
    # global norm of at least 1e-30 (else as it is), rounded once, as MindSpore 2.10's CPU kernel scales it
    reciprocal = jnp.where(global_norm < 1e-30, jnp.ones_like(global_norm), _rounded(1 / global_norm))
    grad = _mul(grad, reciprocal)
    return _ada_factor_step(param, exp_avg, row, col, sq, grad, lr, beta2t, eps[0], eps[1], clip_threshold, beta1,
                            weight_decay, decay, scale_parameter, first_moment)  # fmt: skip


FusedAdaFactorUpdate = _declare_update(
    "FusedAdaFactorUpdate",
    5,
    _fused_ada_factor,
    {"scale_parameter": False, "first_moment": False, "decay": False},
    same_shape=1,
)

AdaFactorUpdate = _declare_update(
    "AdaFactorUpdate",
    5,
    _ada_factor,
    {
        "eps0": 1e-30,
        "eps1": 1e-3,
        "clip_threshold": 1.0,
        "decay_rate": 0.8,
        "beta1": 0.9,
        "weight_decay": 0.0,
        "scale_parameter": False,
        "first_moment": True,
        "relative_step": False,
        "warmup_init": False,
    },  # fmt: skip
    same_shape=1,
)


def _averaged(x, target, decay):
    """x + (target - x) * (1 - decay), each product stored: how MindSpore's RMSProp kernels keep their averages."""
    return x + _mul(target - x, 1 - decay)


def _rms_prop(var, mean_square, moment, lr, grad, decay, momentum, epsilon):
    # the documented sqrt(ms + eps) (MindSpore 2.10's CPU kernel computes sqrt(ms) + eps on its 8-wide vector loop;
    # at its 1e-10 the two round alike), rounded as that loop compiles: ms + (g * g - ms) (1 - decay) and
    # moment * momentum + step are multiply-adds
    ms = _fma(_fma(grad, grad, -mean_square), 1 - decay, mean_square)
    mom = _fma(moment, momentum, _mul(grad, lr) / _rounded(jnp.sqrt(ms + epsilon)))
    return var - mom, ms, mom


ApplyRMSProp = _declare_update("ApplyRMSProp", 3, _rms_prop)


def _centered_rms_prop(var, mean_grad, mean_square, moment, grad, lr, decay, momentum, epsilon):
    ms = _averaged(mean_square, _mul(grad, grad), decay)
    mg = _averaged(mean_grad, grad, decay)
    denom = (ms - _mul(mg, mg)) + epsilon
    # where rounding leaves the variance estimate below 0 the kernel keeps the moment and the variable
    ok = denom >= 0
    mom = jnp.where(ok, _mul(moment, momentum) + _mul(grad, lr) / _rounded(jnp.sqrt(jnp.where(ok, denom, 1))), moment)
    return var - mom, mg, ms, mom


ApplyCenteredRMSProp = _declare_update("ApplyCenteredRMSProp", 4, _centered_rms_prop)


# -- multi-tensor optimizer steps ----------------------------------------------------------------
#
# One primitive updates every parameter of an optimizer in one backend call:
#   inputs  (global_step, *params, *grads, *state_0, ..., *state_k, *lrs, *scalars, *dynamic_weight_decays)
#   outputs (global_step + 1, *new_params, *new_state_0, ..., *new_state_k, *new_scalar_state)
# Static per-parameter settings (weight decay, gradient centralization) are attributes; a
# learning rate given as a 1-D table is indexed by the step inside the call (clamped: the optimizers
# look a rate per step up first, with `DynamicLR`, which refuses a step past the table's end).
#
# The update stays one elementwise expression per Parameter, on purpose. XLA's CPU backend makes one
# kernel per output buffer (it has no multi-output fusion) and compiles identical kernels once, so
# Adam costs three distinct kernels per distinct parameter shape whatever the lowering. Concatenating
# the parameters does not make one loop: XLA fuses the concatenation and the update into every slice
# that writes a Parameter back. Measured on UNet++'s 64 Adam parameters alone (2026-11-29, loaded):
# per Parameter 2.6-3.4 s compile CPU, 91 distinct kernels; all concatenated 7.1-7.8 s (193 distinct),
# and its step slower; only the 1-D ones concatenated 4.7-5.1 s (136 distinct); each flattened to 1-D
# 2.9-3.0 s (91).


def _lr_at(lr, step, like):
    lr = jnp.asarray(lr)
    if lr.ndim == 1:
        lr = lr[jnp.minimum(jnp.reshape(step, (-1,))[0], lr.shape[0] - 1)]
    return jnp.reshape(lr, ()).astype(like.dtype)


# -- a learning rate given per step (a list or 1-D Tensor): its rate at the global step --------------------
#
# MindSpore 2.10 (CPU, PyNative and GRAPH_MODE) gathers the rate at the step and fails once the step reaches the
# table's length (the optimizer's step and get_lr() both raise, for a list as for a Tensor); so does this op, with a
# message naming the table's length and the step, where the backend alone would clamp and repeat the last rate.


def _table_lr_test(table, step, owner, xp=jnp):
    n = table.shape[0]
    if xp is np:  # on the host before each step: a Python int compared (NumPy's scalar operations took 11 us)
        s = int(np.asarray(step).item())
        return (True, None) if 0 <= s < n else (False, np.array([s, n], np.int64))
    s = xp.reshape(xp.asarray(step), (-1,))[0].astype(xp.int64)
    return (s >= 0) & (s < n), xp.stack([s, xp.asarray(n, xp.int64)])


def _table_lr_message(detail, owner):
    step, n = detail
    return (
        f"the learning rate of {owner} holds one rate per step for {n} step(s), but the optimizer is at step "
        f"{step + 1} (global_step {step}), past its end: give a rate for every step it trains, or a "
        "LearningRateSchedule."
    )


def _check_table_lr(table, step, owner):
    if len(shape_of(table)) != 1 or int(np.prod(shape_of(step))) != 1:
        raise op_error("DynamicLR", f"expects a 1-D rate table and a one-element step, but got {table} and {step}.")


DynamicLR = PrimitiveDef(
    "DynamicLR",
    lambda table, step, owner: jnp.reshape(table[jnp.clip(jnp.reshape(step, (-1,))[0], 0, table.shape[0] - 1)], ()),
    attrs={"owner": "Optimizer"},
    nondiff=(0, 1),
    check=_check_table_lr,
    bounds=Bounds(_table_lr_test, _table_lr_message, reads=(1,)),
)


def _centralize(g):
    # MindSpore centralizes only gradients of rank > 1 whose second dimension is a multiple of 16.
    if g.ndim > 1 and g.shape[1] % 16 == 0:
        return g - jnp.mean(g, axis=tuple(range(1, g.ndim)), keepdims=True)
    return g


@functools.cache
def _traced_once(update, static_decay: bool):
    """`update` jitted, so that a graph's trace records it once per parameter kind (shapes and dtypes) and each
    further parameter of that kind reuses the recorded program (FusedSGD over the zoo CRNN's 43 parameters took 0.13-
    0.21 s of its first GRAPH_MODE step traced one by one). The options, and a weight decay given as a Python number,
    stay Python values inside it."""
    return jit(update, static_argnums=(4, 6) if static_decay else (6,))


def _declare_fused(name: str, n_states: int, n_scalars: int, update, begin=None, decoupled: bool = False):
    """A multi-tensor optimizer step.

    update(param, grad, states, lr, wd, shared, options) -> (new_param, new_states): one parameter.
    begin(scalars, options) -> (shared, scalar_outputs): once per step (e.g. Adam's beta powers).
    decoupled: weight decay is applied by `update`, not added to the gradient first.
    """

    def amp_keep(n, **_):
        # the parameters and each kind of per-parameter state. (Adam's beta powers are computed in the Cell's
        # dtype, as MindSpore 2.10's nn.Adam multiplies them in its own construct: float16-rounded there too.)
        return (*range(1, 1 + n), *range(1 + 2 * n, 1 + (2 + n_states) * n))

    def impl(step, *xs, n, weight_decay, grad_centralization, loss_scale, options):
        params, grads = xs[:n], xs[n : 2 * n]
        off = 2 * n
        states = [xs[off + k * n : off + (k + 1) * n] for k in range(n_states)]
        off += n_states * n
        lrs, scalars, dynamic = xs[off : off + n], xs[off + n : off + n + n_scalars], iter(xs[off + n + n_scalars :])
        shared, scalar_out = begin(scalars, options) if begin is not None else (scalars, ())
        new_params, new_states = [], [[] for _ in range(n_states)]
        for i in range(n):
            p = params[i]
            wd = weight_decay[i] if weight_decay[i] is not None else jnp.reshape(next(dynamic), ())
            g = grads[i].astype(p.dtype)
            if not decoupled:
                if weight_decay[i] is None or wd != 0.0:
                    g = (g + _mul(p, wd * loss_scale)).astype(p.dtype)
                if grad_centralization[i]:
                    g = _centralize(g)
                if loss_scale != 1.0:
                    g = g * (1.0 / loss_scale)
            lr = _lr_at(lrs[i], step, p)
            per_parameter = _traced_once(update, weight_decay[i] is not None)
            p, st = per_parameter(p, g, tuple(s[i] for s in states), lr, wd, shared, options)
            new_params.append(p)
            for k in range(n_states):
                new_states[k].append(st[k])
        flat_states = [s for group in new_states for s in group]
        return (step + 1, *new_params, *flat_states, *scalar_out)

    def check(step, *xs, n, **_):
        for i in range(n):
            ps, gs = tuple(shape_of(xs[i])), tuple(shape_of(xs[n + i]))
            if ps != gs:
                raise op_error(
                    name,
                    f"gradient {i} has shape {list(gs)}, but its parameter has shape {list(ps)}; the gradients "
                    "must match the optimizer's parameters one to one.",
                )
            for k in range(n_states):
                ss = tuple(shape_of(xs[(2 + k) * n + i]))
                if ss != ps:
                    # the state was made when the optimizer was built; set_data may have reshaped the parameter
                    raise op_error(
                        name,
                        f"the optimizer state {k} of parameter {i} has shape {list(ss)}, but the parameter has shape "
                        f"{list(ps)}: the state was made for the parameter's old shape (set_data changed it after "
                        "the optimizer was built); build the optimizer again.",
                    )

    def shapes(step, *xs, n, weight_decay, grad_centralization, loss_scale, options):
        # Each parameter's outputs depend only on its own inputs and settings and on the shared scalars, so `impl`
        # is traced on one parameter per kind instead of all of them (Adam over the zoo transformer's 130
        # parameters took 0.4-0.6 s of its 1.2-1.6 s graph trace). A kind is the inputs' ranks and dtypes: an update
        # is elementwise, so a parameter's new value and states take its own shape (MobileNetV2's 158 parameters
        # have 36 shapes but 3 kinds); should a traced update not keep its parameter's shape, kinds fall back to
        # the exact shapes.
        per_param = [tuple(xs[c * n + i] for c in range(3 + n_states)) for i in range(n)]  # p, g, states, lr
        rest = xs[(3 + n_states) * n :]
        scalars = rest[:n_scalars]
        settings = (step, scalars, weight_decay, grad_centralization, loss_scale, options)
        reps, out = _trace_kinds(per_param, rest[n_scalars:], True, *settings)
        k = len(reps)
        kept = all(
            tuple(out[1 + group * k + j].shape) == tuple(per_param[i][0].shape)
            for j, (i, _, _) in enumerate(reps)
            for group in range(1 + n_states)
        )
        if not kept:  # not elementwise after all: one trace per exact shape, whose types are taken as traced
            reps, out = _trace_kinds(per_param, rest[n_scalars:], False, *settings)
            k = len(reps)
        full = [out[0], *([None] * ((1 + n_states) * n))]
        for j, (_, _, members) in enumerate(reps):
            for group in range(1 + n_states):  # the new parameter, then each state
                traced = out[1 + group * k + j]
                for i in members:  # a parameter of a kind by rank: the traced dtype with its own shape
                    full[1 + group * n + i] = (
                        ShapeDtypeStruct(tuple(per_param[i][0].shape), traced.dtype) if kept else traced
                    )
        return (*full, *out[1 + (1 + n_states) * k :])

    def _trace_kinds(per_param, dynamic, by_rank, step, scalars, weight_decay, grad_centralization, loss_scale,
                     options):  # fmt: skip
        """`impl`'s output structs on one parameter per kind, and the kinds as (that parameter, its dynamic weight
        decay or None, the parameters of the kind)."""
        dynamic = iter(dynamic)
        kinds: dict = {}
        for i, inputs in enumerate(per_param):
            dyn = next(dynamic) if weight_decay[i] is None else None
            shape_free = tuple((len(x.shape), x.dtype) if isinstance(x, ShapeDtypeStruct) else x for x in inputs)
            kind = (shape_free if by_rank else inputs, dyn, weight_decay[i], grad_centralization[i])
            try:
                hash(kind)
            except TypeError:  # an unhashable Python input: a kind of its own
                kind = i
            kinds.setdefault(kind, (i, dyn, []))[2].append(i)
        reps = list(kinds.values())
        attrs = {
            "n": len(reps),
            "weight_decay": tuple(weight_decay[i] for i, _, _ in reps),
            "grad_centralization": tuple(grad_centralization[i] for i, _, _ in reps),
            "loss_scale": loss_scale,
            "options": options,
        }
        columns = [per_param[i][c] for c in range(3 + n_states) for i, _, _ in reps]
        dyn_in = [d for i, d, _ in reps if weight_decay[i] is None]
        return reps, eval_shape(lambda *a: impl(*a, **attrs), step, *columns, *scalars, *dyn_in)

    return PrimitiveDef(
        name,
        impl,
        attrs={"n": 0, "weight_decay": (), "grad_centralization": (), "loss_scale": 1.0, "options": ()},
        check=check,
        shapes=shapes,
        multiple_results=True,
        nondiff=(0,),
        amp_keep=amp_keep,
        increments={0: (0, 1)},  # the global step + 1, whatever the attributes
    )


def _momentum_update(p, g, states, lr, wd, shared, options):
    (nesterov,) = options
    new_p, acc = _apply_momentum(p, states[0], lr, g, shared[0], nesterov, 1.0)
    return new_p, (acc,)


FusedMomentum = _declare_fused("FusedMomentum", 1, 1, _momentum_update)


def _sgd_update(p, g, states, lr, wd, shared, options):
    dampening, nesterov = options
    new_p, accum, stat = _sgd(p, g, lr, states[0], shared[0], states[1], dampening, 0.0, nesterov)
    return new_p, (accum, stat)


FusedSGD = _declare_fused("FusedSGD", 2, 1, _sgd_update)


def _adam_begin(scalars, options):
    beta1, beta2, eps, beta1_power, beta2_power = scalars
    # MindSpore's nn.Adam stores the new powers, then its Adam kernel corrects with 1 - the stored value
    b1p, b2p = _rounded(beta1_power * beta1), _rounded(beta2_power * beta2)
    return (beta1, beta2, eps, b1p, b2p), (b1p, b2p)


def _adam_update(p, g, states, lr, wd, shared, options):
    (nesterov,) = options
    beta1, beta2, eps, b1p, b2p = shared
    new_p, m, v = _adam(p, states[0], states[1], b1p, b2p, lr, beta1, beta2, eps, g, nesterov)
    return new_p, (m, v)


FusedAdam = _declare_fused("FusedAdam", 2, 5, _adam_update, begin=_adam_begin)


def _adam_no_update_param(m, v, beta1_power, beta2_power, lr, beta1, beta2, eps, g, use_nesterov):
    # MindSpore 2.10's AdamNoUpdateParam (the host kernel of nn.AdamOffload): the parameter's delta, and the new
    # moments. A probe of its outputs: each moment is one multiply-add over the rounded (1 - beta) g term (g times
    # that again for v), and the corrected rate is rounded before it scales m.
    lr_t = true_divide(_mul(lr, jnp.sqrt(1 - beta2_power)), 1 - beta1_power)
    m = _fma(m, beta1, _mul(1 - beta1, g))
    v = _fma(v, beta2, _mul(_mul(1 - beta2, g), g))
    direction = _fma(m, beta1, _mul(1 - beta1, g)) if use_nesterov else m
    return _mul(-lr_t, direction) / (jnp.sqrt(v) + eps), m, v


def _adam_delta(p, m, v, beta1_power, beta2_power, lr, beta1, beta2, eps, g, use_nesterov):
    # nn.AdamOffload adds AdamNoUpdateParam's delta to the parameter
    delta, m, v = _adam_no_update_param(m, v, beta1_power, beta2_power, lr, beta1, beta2, eps, g, use_nesterov)
    return p + delta, m, v


def _adam_offload_update(p, g, states, lr, wd, shared, options):
    (nesterov,) = options
    beta1, beta2, eps, b1p, b2p = (_scalar(s, p) for s in shared)
    new_p, m, v = _adam_delta(p, states[0], states[1], b1p, b2p, lr, beta1, beta2, eps, g, nesterov)
    return new_p, (m, v)


FusedAdamOffload = _declare_fused("FusedAdamOffload", 2, 5, _adam_offload_update, begin=_adam_begin)


def _adam_no_update_param_impl(m, v, *inputs, use_nesterov):
    dt = jnp.promote_types(m.dtype, jnp.float32)
    delta, new_m, new_v = _adam_no_update_param(*(jnp.asarray(x).astype(dt) for x in (m, v, *inputs)), use_nesterov)
    return delta.astype(m.dtype), new_m.astype(m.dtype), new_v.astype(v.dtype)


def _check_adam_no_update_param(m, v, beta1_power, beta2_power, lr, beta1, beta2, eps, g, **_):
    _check_same_shapes("AdamNoUpdateParam", m=m, v=v, gradient=g)


# ops.AdamNoUpdateParam: (delta, new m, new v); its class stores the moments and returns the delta
AdamNoUpdateParam = PrimitiveDef(
    "AdamNoUpdateParam",
    _adam_no_update_param_impl,
    attrs={"use_nesterov": False},
    check=_check_adam_no_update_param,
    multiple_results=True,
    differentiable=False,
    amp_keep=(0, 1),
)


def _amsgrad(p, m, v, vhat, beta1_power, beta2_power, lr, beta1, beta2, eps, g):
    m = _averaged(m, g, beta1)
    v = _averaged(v, _mul(g, g), beta2)
    vhat = jnp.maximum(vhat, v)  # AMSGrad: the denominator never shrinks
    lr_t = lr * jnp.sqrt(1 - beta2_power) / (1 - beta1_power)
    return p - _mul(lr_t, m) / (jnp.sqrt(vhat) + eps), m, v, vhat


def _amsgrad_update(p, g, states, lr, wd, shared, options):
    beta1, beta2, eps, b1p, b2p = (_scalar(s, p) for s in shared)
    new_p, *new_states = _amsgrad(p, *states, b1p, b2p, lr, beta1, beta2, eps, g)
    return new_p, tuple(new_states)


FusedAdamAmsgrad = _declare_fused("FusedAdamAmsgrad", 3, 5, _amsgrad_update, begin=_adam_begin)
# the per-parameter primitive (ops.ApplyAdamWithAmsgrad and its V2): the beta powers are inputs
ApplyAdamWithAmsgrad = _declare_update("ApplyAdamWithAmsgrad", 4, _amsgrad)


def _adam_weight_decay(p, m, v, lr, beta1, beta2, eps, decay, g):
    # MindSpore's AdamWeightDecay kernel: its moment updates compile to multiply-adds, and its C line
    # var -= lr * (m / (sqrt(v) + eps) + decay * var) runs in double (C's sqrt) with decay * var stored, rounded once
    m = _fma(g - m, 1 - beta1, m)
    v = _fma(_fma(g, g, -v), 1 - beta2, v)
    wide = jnp.promote_types(p.dtype, jnp.float64)
    update = m.astype(wide) / (jnp.sqrt(v.astype(wide)) + eps.astype(wide)) + _mul(decay, p).astype(wide)
    return (p.astype(wide) - lr.astype(wide) * update).astype(p.dtype), m, v


def _adam_weight_decay_update(p, g, states, lr, wd, shared, options):
    beta1, beta2, eps = (_scalar(s, p) for s in shared)
    new_p, m, v = _adam_weight_decay(p, *states, lr, beta1, beta2, eps, _scalar(wd, p), g)
    return new_p, (m, v)


FusedAdamWeightDecay = _declare_fused("FusedAdamWeightDecay", 2, 3, _adam_weight_decay_update, decoupled=True)
# the per-parameter primitive (ops.AdamWeightDecay)
AdamWeightDecay = _declare_update("AdamWeightDecay", 3, _adam_weight_decay)


def _fused_cast_adam_weight_decay(var, m, v, lr, beta1, beta2, eps, decay, g, global_norm):
    # MindSpore 2.10's FusedCastAdamWeightDecay CPU kernel: the gradient (float16 or float32) divided by the global
    # norm (1 under 1e-10), then AdamWeightDecay in float32 with every product rounded (no multiply-add: measured
    # bit-equal on float32 and float16 parameters), a float16 parameter rounded once at the end
    norm = jnp.where(global_norm < 1e-10, jnp.ones_like(global_norm), global_norm)
    g = _mul(g, 1 / norm)
    m = m + _mul(g - m, 1 - beta1)
    v = v + _mul(_mul(g, g) - v, 1 - beta2)
    update = m / (jnp.sqrt(v) + eps) + _mul(decay, var)
    return var - _mul(lr, update), m, v


# ops.FusedCastAdamWeightDecay (the zoo's Pangu_alpha): var, m, v updated in place
FusedCastAdamWeightDecay = _declare_update("FusedCastAdamWeightDecay", 3, _fused_cast_adam_weight_decay)


def _fused_sparse_adam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, eps, grad, indices, use_nesterov):
    # MindSpore 2.10's FusedSparseAdam CPU kernel (measured bit-equal: every product rounded, no multiply-add): the
    # gradient's rows summed per index; every moment decays, the named rows add their gradient (the others add 0),
    # and every element of var steps. An index out of [0, rows) is dropped, as MindSpore's kernel drops it.
    dt = jnp.promote_types(var.dtype, jnp.float32)
    var, m, v, beta1_power, beta2_power, lr, beta1, beta2, eps, grad = (
        jnp.asarray(x).astype(dt) for x in (var, m, v, beta1_power, beta2_power, lr, beta1, beta2, eps, grad)
    )
    rows = var.shape[0]
    g = jnp.zeros_like(var).at[jnp.where(indices < 0, rows, indices)].add(grad, mode="drop")
    # Nesterov reads g = 0 on rows not named, where MindSpore's kernel reads memory it never wrote
    return _adam_step(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, eps, g, use_nesterov)


def _adam_step(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, eps, g, use_nesterov):
    """Adam's step in MindSpore's fused sparse kernels' order (every product rounded), on arrays of one dtype."""
    m = _mul(m, beta1) + _mul(1 - beta1, g)
    v = _mul(v, beta2) + _mul(_mul(1 - beta2, g), g)
    direction = _mul(m, beta1) + _mul(1 - beta1, g) if use_nesterov else m  # Nesterov's m * beta1 + (1 - beta1) g
    lr_t = true_divide(_mul(lr, jnp.sqrt(1 - beta2_power)), 1 - beta1_power)
    return var - _mul(lr_t, direction) / (jnp.sqrt(v) + eps), m, v


def _check_fused_sparse_adam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, eps, grad, indices, **_):
    _check_same_shapes("FusedSparseAdam", var=var, m=m, v=v)
    vs, gs, ins = tuple(shape_of(var)), tuple(shape_of(grad)), tuple(shape_of(indices))
    if len(ins) != 1 or gs[1:] != vs[1:] or gs[:1] != ins:
        raise op_error(
            "FusedSparseAdam",
            f"'indices' must be 1-D and 'grad' of shape [len(indices), *var.shape[1:]], but got indices {list(ins)}, "
            f"grad {list(gs)} and var {list(vs)}.",
        )


# ops.FusedSparseAdam (the zoo's SPADE): var, m, v updated in place from rows of a gradient
FusedSparseAdam = PrimitiveDef(
    "FusedSparseAdam",
    _fused_sparse_adam,
    attrs={"use_nesterov": False},
    check=_check_fused_sparse_adam,
    multiple_results=True,
    differentiable=False,
    amp_keep=(0, 1, 2),
)


# -- learning-rate schedules: functions of an optimizer's global step -----------------------------


def _lr_schedule(global_step, kind, args):
    """The learning rate at `global_step` (float32, same shape) for one of MindSpore's schedules."""
    step = jnp.asarray(global_step).astype(jnp.float32)
    if kind == "exponential":
        lr, rate, steps, stair = args
        p = step / steps
        return lr * jnp.power(jnp.float32(rate), jnp.floor(p) if stair else p)
    if kind == "natural_exp":
        lr, rate, steps, stair = args
        p = jnp.floor(step / steps) * steps if stair else step
        return lr * jnp.exp(-rate * p)
    if kind == "inverse":
        lr, rate, steps, stair = args
        p = step / steps
        return lr / (1.0 + rate * (jnp.floor(p) if stair else p))
    if kind == "cosine":
        min_lr, max_lr, steps = args
        p = jnp.minimum(step, steps)
        return min_lr + 0.5 * (max_lr - min_lr) * (1.0 + jnp.cos(jnp.pi * p / steps))
    if kind == "polynomial":
        lr, end_lr, steps, power, update = args
        if update:
            period = steps * jnp.maximum(jnp.ceil(step / steps), 1.0)
        else:
            period, step = jnp.float32(steps), jnp.minimum(step, steps)
        # (period - step) / period is exactly 0 at the end; 1 - step / period can round below 0 under XLA.
        frac = jnp.maximum((period - step) / period, 0.0)
        return (lr - end_lr) * jnp.power(frac, power) + end_lr
    if kind == "warmup":
        lr, steps = args
        return lr * jnp.minimum(step, steps) / steps
    raise ValueError(f"unknown learning-rate schedule {kind!r}")


LRSchedule = PrimitiveDef(
    "LRSchedule",
    lambda global_step, kind, args: _lr_schedule(global_step, kind, args).astype(jnp.float32),
    attrs={"kind": "warmup", "args": ()},
    nondiff=(0,),
)


# -- sparse updates that visit their rows in turn -----------------------------------------------------------------


def _lazy_adam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, eps, grad, use_nesterov):
    # Adam's step on the rows it is given (FusedSparseLazyAdam: the rows a gradient names; the others keep their
    # moments and values), in float32 at least
    dt = jnp.promote_types(var.dtype, jnp.float32)
    cast = [jnp.asarray(x).astype(dt) for x in (var, m, v, beta1_power, beta2_power, lr, beta1, beta2, eps, grad)]
    new = _adam_step(*cast, use_nesterov)
    return tuple(n.astype(x.dtype) for n, x in zip(new, (var, m, v), strict=True))


def _rms_prop_row(var, mean_square, moment, lr, grad, rho, momentum, epsilon):
    # MindSpore 2.10's SparseApplyRMSProp kernel on one row: the mean square stays where the gradient is 0 (only the
    # momentum decays there); float16 computed in float32, each stored value rounded once
    wide = jnp.promote_types(var.dtype, jnp.float32)
    g, lr, ms_old, mom_old, var_old = (jnp.asarray(x).astype(wide) for x in (grad, lr, mean_square, moment, var))
    ms_new = jnp.where(g == 0, ms_old, rho * ms_old + (1 - rho) * g * g)
    mom_new = (momentum * mom_old + lr * g / jnp.sqrt(ms_new + epsilon)).astype(moment.dtype)
    var_new = var_old - mom_new.astype(wide)
    return var_new.astype(var.dtype), ms_new.astype(mean_square.dtype), mom_new


# The dense rules a sparse update applies to the rows its gradient names
_ROW_RULES = {
    "RMSPropRow": _rms_prop_row,
    "ApplyAdagradV2": ApplyAdagradV2.impl,
    "ApplyFtrl": ApplyFtrl.impl,
    "ApplyProximalAdagrad": ApplyProximalAdagrad.impl,
    "LazyAdam": _lazy_adam,
}


def _rows_in_order(indices, *xs, rule, n_state, grad_at, rule_attrs):
    # One index after the other, as MindSpore's SparseApplyFtrl and SparseApplyAdagradV2 kernels loop over them: a
    # repeated index updates its row again from the values its earlier occurrence wrote.
    state, grad, hyper = xs[:n_state], xs[n_state], xs[n_state + 1 :]
    dense = _ROW_RULES[rule]

    def visit(i, rows_of):
        at = indices[i]
        args = [*(s[at] for s in rows_of), *hyper]
        args.insert(grad_at, grad[i])
        new = dense(*args, **dict(rule_attrs))
        return tuple(s.at[at].set(n) for s, n in zip(rows_of, new, strict=True))

    return lax.fori_loop(0, indices.shape[0], visit, tuple(state))


def _rows_test(indices, var, *rest, rule, n_state, grad_at, rule_attrs, xp=jnp):
    return first_outside(indices, 0, var.shape[0], 0, xp=xp)


# Inputs (indices, *state, grad, *hyperparameters); `rule` names the dense update, whose input `grad_at` is the
# gradient, and `rule_attrs` its attributes as (name, value) pairs
_SPARSE_ROWS = {
    "attrs": {"rule": "ApplyFtrl", "n_state": 3, "grad_at": 3, "rule_attrs": ()},
    "multiple_results": True,
    "differentiable": False,
    "bounds": Bounds(_rows_test, index_message("indices", "var"), reads=(0,)),
    "amp_keep": (1, 2, 3),  # the variable and its state (with the gradient, where two state arrays precede it)
}
SparseRowsInOrder = PrimitiveDef("SparseRowsInOrder", _rows_in_order, **_SPARSE_ROWS)


def _rows_summed(indices, *xs, rule, n_state, grad_at, rule_attrs):
    # A repeated index's gradient rows summed, then every named row updated once, as MindSpore's FusedSparse* kernels
    # (and SparseApplyAdagrad's) do; rows no index names keep their values
    state, grad, hyper = xs[:n_state], xs[n_state], xs[n_state + 1 :]
    var = state[0]
    summed = jnp.zeros(var.shape, grad.dtype).at[indices].add(grad)
    named = jnp.zeros(var.shape[:1], bool).at[indices].set(True).reshape(var.shape[:1] + (1,) * (var.ndim - 1))
    args = [*state, *hyper]
    args.insert(grad_at, summed)
    new = _ROW_RULES[rule](*args, **dict(rule_attrs))
    return tuple(jnp.where(named, n, old) for n, old in zip(new, state, strict=True))


SparseRowsSummed = PrimitiveDef("SparseRowsSummed", _rows_summed, **_SPARSE_ROWS)
