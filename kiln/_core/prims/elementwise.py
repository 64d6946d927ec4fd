"""Elementwise primitives: math, activations, comparison and logic."""

from __future__ import annotations

from kiln._backend import jax, jnp, lax
from kiln._core.primitive import PrimitiveDef
from kiln._core.prims._checks import check_binary
from kiln._core.prims._promote import float32_scalars


def _float_of(x):
    """Integer and bool inputs of a float-valued function compute in float32."""
    x = jnp.asarray(x)
    return x if jnp.issubdtype(x.dtype, jnp.inexact) else x.astype(jnp.float32)


def _true_div(x, y):
    x, y = jnp.asarray(x), jnp.asarray(y)
    if not (jnp.issubdtype(x.dtype, jnp.inexact) or jnp.issubdtype(y.dtype, jnp.inexact)):
        x, y = x.astype(jnp.float32), y.astype(jnp.float32)
    return jnp.true_divide(x, y)


def _float_fn(fn):
    return lambda x: fn(_float_of(x))


UNARY = {
    "Abs": jnp.abs,
    "Neg": jnp.negative,
    "Exp": _float_fn(jnp.exp),
    "Log": _float_fn(jnp.log),
    "Log1p": _float_fn(jnp.log1p),
    "Expm1": _float_fn(jnp.expm1),
    "Log2": _float_fn(jnp.log2),
    "Log10": _float_fn(jnp.log10),
    "Exp2": _float_fn(jnp.exp2),
    "Sqrt": _float_fn(jnp.sqrt),
    "Rsqrt": _float_fn(lax.rsqrt),
    "Square": jnp.square,
    "Sin": _float_fn(jnp.sin),
    "Cos": _float_fn(jnp.cos),
    "Tan": _float_fn(jnp.tan),
    "Asin": _float_fn(jnp.arcsin),
    "ACos": _float_fn(jnp.arccos),
    "Atan": _float_fn(jnp.arctan),
    "Sinh": _float_fn(jnp.sinh),
    "Cosh": _float_fn(jnp.cosh),
    "Tanh": _float_fn(jnp.tanh),
    "Asinh": _float_fn(jnp.arcsinh),
    "Acosh": _float_fn(jnp.arccosh),
    "Atanh": _float_fn(jnp.arctanh),
    "Erf": _float_fn(jax.scipy.special.erf),
    "Erfc": _float_fn(jax.scipy.special.erfc),
    "Erfinv": _float_fn(jax.scipy.special.erfinv),
    "Lgamma": _float_fn(jax.scipy.special.gammaln),
    "Digamma": _float_fn(jax.scipy.special.digamma),
    "Floor": jnp.floor,
    "Ceil": jnp.ceil,
    "Round": jnp.round,
    "Trunc": jnp.trunc,
    "Sign": jnp.sign,
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
    "ReLU6": jax.nn.relu6,
    "SiLU": _float_fn(jax.nn.silu),
    "Softsign": _float_fn(jax.nn.soft_sign),
    "HSwish": _float_fn(jax.nn.hard_swish),
    "HSigmoid": _float_fn(jax.nn.hard_sigmoid),
    "Mish": _float_fn(lambda x: x * jnp.tanh(jax.nn.softplus(x))),
    "SeLU": _float_fn(jax.nn.selu),
    "LogSigmoid": _float_fn(jax.nn.log_sigmoid),
    "Tanhshrink": _float_fn(lambda x: x - jnp.tanh(x)),
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
    "Maximum": jnp.maximum,
    "Minimum": jnp.minimum,
    "Atan2": lambda x, y: jnp.arctan2(_float_of(x), _float_of(y)),
    "Hypot": lambda x, y: jnp.hypot(_float_of(x), _float_of(y)),
    "SquaredDifference": lambda x, y: jnp.square(jnp.subtract(x, y)),
    "Xdivy": lambda x, y: jnp.where(jnp.asarray(x) == 0, 0.0, _true_div(x, y)).astype(_true_div(x, y).dtype),
    "Xlogy": lambda x, y: jax.scipy.special.xlogy(_float_of(x), _float_of(y)),
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


DEFS: dict[str, PrimitiveDef] = {}
for _name, _fn in UNARY.items():
    DEFS[_name] = PrimitiveDef(_name, _fn)
for _name, _fn in BINARY.items():
    DEFS[_name] = PrimitiveDef(_name, float32_scalars(_fn), check=check_binary(_name))

# Activations with attributes.
DEFS["Elu"] = PrimitiveDef("Elu", lambda x, alpha: jax.nn.elu(x, alpha), attrs={"alpha": 1.0})
DEFS["CeLU"] = PrimitiveDef("CeLU", lambda x, alpha: jax.nn.celu(x, alpha), attrs={"alpha": 1.0})
DEFS["LeakyReLU"] = PrimitiveDef("LeakyReLU", lambda x, alpha: jnp.where(x >= 0, x, x * alpha), attrs={"alpha": 0.01})
DEFS["GeLU"] = PrimitiveDef(
    "GeLU", lambda x, approximate: jax.nn.gelu(_float_of(x), approximate=approximate), attrs={"approximate": False}
)
DEFS["Softplus"] = PrimitiveDef(
    "Softplus",
    lambda x, beta, threshold: jnp.where(x * beta > threshold, x, jax.nn.softplus(_float_of(x) * beta) / beta),
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
DEFS["Clamp"] = PrimitiveDef("Clamp", float32_scalars(lambda x, lo, hi: jnp.clip(x, lo, hi)))
DEFS["Lerp"] = PrimitiveDef("Lerp", float32_scalars(lambda x, end, weight: x + weight * (end - x)))
DEFS["AddN"] = PrimitiveDef("AddN", lambda *xs: sum(xs[1:], xs[0]))
DEFS["Identity"] = PrimitiveDef("Identity", lambda x: x)
DEFS["StopGradient"] = PrimitiveDef(
    "StopGradient", lambda x: lax.stop_gradient(x), vjp=lambda x, out, dout: (jnp.zeros_like(x),)
)
DEFS["Cast"] = PrimitiveDef("Cast", lambda x, dtype: jnp.asarray(x).astype(dtype), attrs={"dtype": None})

add_p = DEFS["Add"]
