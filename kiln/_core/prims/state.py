"""State primitives: assignments to Parameters and the fused optimizer updates.

Assign/AssignAdd/AssignSub carry effect "write0": dispatch stores the result
in input 0, which must be a Parameter. The optimizer updates change several
state tensors at once, so they return every new value (multiple_results) and
their functional wrappers write them back.
"""

from __future__ import annotations

from kiln._backend import jnp
from kiln._core.primitive import PrimitiveDef, op_error
from kiln._core.prims._checks import shape_of


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


Assign = PrimitiveDef(
    "Assign", lambda variable, value: _as_var(variable, value), check=_check_assign("Assign"), effect="write0"
)
AssignAdd = PrimitiveDef(
    "AssignAdd",
    lambda variable, value: variable + _as_var(variable, value),
    check=_check_assign("AssignAdd"),
    effect="write0",
)
AssignSub = PrimitiveDef(
    "AssignSub",
    lambda variable, value: variable - _as_var(variable, value),
    check=_check_assign("AssignSub"),
    effect="write0",
)


# -- fused optimizer updates ---------------------------------------------------------------


def _scalar(x, like):
    return jnp.asarray(x).astype(like.dtype)


def _apply_momentum(variable, accumulation, learning_rate, gradient, momentum, use_nesterov, gradient_scale):
    lr, mom = _scalar(learning_rate, variable), _scalar(momentum, variable)
    gradient = gradient.astype(variable.dtype) * gradient_scale if gradient_scale != 1.0 else gradient
    accum = accumulation * mom + gradient
    step = gradient * lr + accum * mom * lr if use_nesterov else lr * accum
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
)


def _adam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad, use_nesterov):
    b1, b2, eps = _scalar(beta1, var), _scalar(beta2, var), _scalar(epsilon, var)
    grad = grad.astype(var.dtype)
    m = m + (grad - m) * (1 - b1)
    v = v + (grad * grad - v) * (1 - b2)
    lr_t = _scalar(lr, var) * jnp.sqrt(1 - _scalar(beta2_power, var)) / (1 - _scalar(beta1_power, var))
    direction = m * b1 + (1 - b1) * grad if use_nesterov else m
    return var - lr_t * direction / (jnp.sqrt(v) + eps), m, v


def _check_adam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad, **_):
    _check_same_shapes("Adam", var=var, m=m, v=v, grad=grad)


Adam = PrimitiveDef(
    "Adam", _adam, attrs={"use_nesterov": False}, check=_check_adam, multiple_results=True, nondiff=tuple(range(10))
)


def _sgd(parameters, gradient, learning_rate, accum, momentum, stat, dampening, weight_decay, nesterov):
    g = gradient.astype(parameters.dtype)
    if weight_decay != 0.0:
        g = g + weight_decay * parameters
    mom = _scalar(momentum, parameters)
    first = _scalar(stat, parameters) > 0  # the first step starts the momentum buffer at the gradient
    use_mom = mom > 0
    new_accum = jnp.where(use_mom, jnp.where(first, g, accum * mom + (1 - dampening) * g), accum)
    step = jnp.where(use_mom, g + mom * new_accum if nesterov else new_accum, g)
    new_stat = jnp.where(use_mom, jnp.zeros_like(stat), stat)
    return parameters - _scalar(learning_rate, parameters) * step, new_accum, new_stat


def _check_sgd(parameters, gradient, learning_rate, accum, momentum, stat, **_):
    _check_same_shapes("SGD", parameters=parameters, gradient=gradient, accum=accum)


SGD = PrimitiveDef(
    "SGD",
    _sgd,
    attrs={"dampening": 0.0, "weight_decay": 0.0, "nesterov": False},
    check=_check_sgd,
    multiple_results=True,
    nondiff=tuple(range(6)),
)
