"""Elementwise math of `kiln.numpy`: arithmetic, powers, logs, trigonometry, rounding, bit operations.

Each function takes Tensors, Python numbers, lists or NumPy arrays (see `_utils.to_tensor`), broadcasts like
NumPy and accepts `dtype=` to cast its result.
"""

from __future__ import annotations

import math as _math

import numpy as _np

from kiln import ops
from kiln._core import dtype as mstype
from kiln._core.tensor import Tensor
from kiln.numpy._utils import as_float, finish, is_float, is_int, to_tensor, to_tensors
from kiln.ops.faces import functional

__all__: list[str] = []


def _unary(name: str, fn, floats: bool = False):
    def f(x, dtype=None) -> Tensor:
        x = to_tensor(x)
        return finish(fn(as_float(x) if floats else x), dtype)

    f.__name__ = f.__qualname__ = name
    f.op = fn  # the functional op it wraps
    f.__doc__ = f"""Elementwise `{name}` of `x` (NumPy's `{name}`).

    Args:
        x (Tensor | number | list): the input.
        dtype: the result's dtype (default: the natural one).

    Returns:
        Tensor of the shape of `x`.
    """
    __all__.append(name)
    return f


def _binary(name: str, fn, floats: bool = False):
    def f(x1, x2, dtype=None) -> Tensor:
        a, b = to_tensors(x1, x2)
        if floats:
            a, b = as_float(a), as_float(b)
        return finish(fn(a, b), dtype)

    f.__name__ = f.__qualname__ = name
    f.op = fn  # the functional op it wraps
    f.__doc__ = f"""Elementwise `{name}` of `x1` and `x2`, broadcast (NumPy's `{name}`).

    Args:
        x1, x2 (Tensor | number | list): the operands.
        dtype: the result's dtype (default: the promoted one).

    Returns:
        Tensor of the broadcast shape.
    """
    __all__.append(name)
    return f


def _signbit(x: Tensor) -> Tensor:
    if not is_float(x):
        return ops.less(x, 0) if x.dtype != mstype.bool_ else ops.zeros_like(x)
    # -0.0 has its sign bit set too: 1 / -0.0 is -inf.
    neg_zero = ops.logical_and(ops.equal(x, 0), ops.less(ops.reciprocal(x), 0))
    return ops.logical_or(ops.less(x, 0), neg_zero)


def _copysign(a: Tensor, b: Tensor) -> Tensor:
    a = as_float(a)
    mag = ops.abs(a)
    return ops.select(ops.broadcast_to(_signbit(b), _bshape(a, b)), ops.neg(mag), ops.broadcast_to(mag, _bshape(a, b)))


def _bshape(*xs) -> tuple:
    return tuple(_np.broadcast_shapes(*(tuple(x.shape) for x in xs)))


def _cbrt(x: Tensor) -> Tensor:
    return ops.mul(ops.sign(x), ops.pow(ops.abs(x), 1.0 / 3.0))


def _logaddexp(a: Tensor, b: Tensor, base_log, base_exp, log_two) -> Tensor:
    m = ops.maximum(a, b)
    d = ops.neg(ops.abs(ops.sub(a, b)))
    same = ops.equal(a, b)  # also the infinities of one sign, where a - b is nan
    safe_d = ops.select(same, ops.zeros_like(d), d)
    out = ops.add(m, base_log(ops.add(1.0, base_exp(safe_d))))
    return ops.select(same, ops.add(m, log_two), out)


def _gcd(a: Tensor, b: Tensor) -> Tensor:
    # Float inputs holding integers (mindspore.numpy accepts them) are taken as int32.
    a = a if is_int(a) else ops.cast(a, mstype.int32)
    b = b if is_int(b) else ops.cast(b, mstype.int32)
    shape = _bshape(a, b)
    dt = mstype.promote(a.dtype, b.dtype)
    a = ops.abs(ops.broadcast_to(ops.cast(a, dt), shape))
    b = ops.abs(ops.broadcast_to(ops.cast(b, dt), shape))
    # Euclid's algorithm, a fixed number of steps: consecutive Fibonacci numbers are the slowest pair, and the
    # largest ones that fit in `bits` bits need fewer steps than this.
    bits = _np.dtype(dt.np).itemsize * 8
    for _ in range(int(bits * 1.45) + 2):
        zero = ops.equal(b, 0)
        safe = ops.select(zero, ops.ones_like(b), b)
        a, b = ops.select(zero, a, b), ops.select(zero, ops.zeros_like(b), ops.floor_mod(a, safe))
    return a


def _lcm(a: Tensor, b: Tensor) -> Tensor:
    g = _gcd(a, b)
    dt = g.dtype
    a, b = ops.abs(ops.cast(a, dt)), ops.abs(ops.cast(b, dt))
    safe = ops.select(ops.equal(g, 0), ops.ones_like(g), g)
    return ops.mul(ops.floor_divide(a, safe), b)


def _invert(x: Tensor) -> Tensor:
    return ops.logical_not(x) if x.dtype == mstype.bool_ else ops.bitwise_not(x)


def _positive(x: Tensor) -> Tensor:
    return ops.identity(x)


def _heaviside(a: Tensor, b: Tensor) -> Tensor:
    shape = _bshape(a, b)
    a, b = ops.broadcast_to(a, shape), ops.broadcast_to(ops.cast(b, a.dtype), shape)
    pos = ops.cast(ops.greater(a, 0), a.dtype)
    return ops.select(ops.equal(a, 0), b, pos)


def _float_power(a: Tensor, b: Tensor) -> Tensor:
    dt = mstype.float64 if mstype.float64 in (a.dtype, b.dtype) else mstype.float32
    return ops.pow(ops.cast(a, dt), ops.cast(b, dt))


def _rint(x: Tensor) -> Tensor:
    return ops.round(x)


def _true_divide(a: Tensor, b: Tensor) -> Tensor:
    return ops.div(a, b)


def _fmod(a: Tensor, b: Tensor) -> Tensor:
    return ops.fmod(a, b)


def _nan_sign(x: Tensor) -> Tensor:
    # NumPy's sign keeps NaN; ops.sign (MindSpore's Sign) maps it to 0.
    return ops.select(ops.isnan(x), x, ops.sign(x)) if is_float(x) else ops.sign(x)


def _reciprocal(x: Tensor) -> Tensor:
    if not is_int(x):
        return ops.reciprocal(x)
    # integers stay integers, as in NumPy and mindspore.numpy: 1/x truncated toward zero (0 unless x is 1 or -1),
    # and 1/0 the dtype's largest value (mindspore.numpy 2.10's; NumPy leaves it undefined)
    largest = ops.full_like(x, _np.iinfo(x.dtype.np).max)
    return ops.select(ops.equal(x, 0), largest, ops.select(ops.equal(ops.abs(x), 1), x, ops.zeros_like(x)))


_LN2 = _math.log(2.0)

abs = _unary("abs", ops.abs)  # noqa: A001
absolute = _unary("absolute", ops.abs)
fabs = _unary("fabs", ops.abs, floats=True)
negative = _unary("negative", ops.neg)
positive = _unary("positive", _positive)
sign = _unary("sign", _nan_sign)
sign.op = ops.sign  # the functional it wraps (NaN aside)
square = _unary("square", ops.square)
sqrt = _unary("sqrt", ops.sqrt, floats=True)
cbrt = _unary("cbrt", _cbrt, floats=True)
reciprocal = _unary("reciprocal", _reciprocal)
reciprocal.op = ops.reciprocal  # the functional it wraps (integers aside)
exp = _unary("exp", ops.exp, floats=True)
exp2 = _unary("exp2", ops.exp2, floats=True)
expm1 = _unary("expm1", ops.expm1, floats=True)
log = _unary("log", ops.log, floats=True)
log2 = _unary("log2", ops.log2, floats=True)
log10 = _unary("log10", ops.log10, floats=True)
log1p = _unary("log1p", ops.log1p, floats=True)
sin = _unary("sin", ops.sin, floats=True)
cos = _unary("cos", ops.cos, floats=True)
tan = _unary("tan", ops.tan, floats=True)
arcsin = _unary("arcsin", ops.asin, floats=True)
arccos = _unary("arccos", ops.acos, floats=True)
arctan = _unary("arctan", ops.atan, floats=True)
sinh = _unary("sinh", ops.sinh, floats=True)
cosh = _unary("cosh", ops.cosh, floats=True)
tanh = _unary("tanh", ops.tanh, floats=True)
arcsinh = _unary("arcsinh", ops.asinh, floats=True)
arccosh = _unary("arccosh", ops.acosh, floats=True)
arctanh = _unary("arctanh", ops.atanh, floats=True)
deg2rad = _unary("deg2rad", lambda x: ops.mul(x, _math.pi / 180.0), floats=True)
radians = _unary("radians", lambda x: ops.mul(x, _math.pi / 180.0), floats=True)
rad2deg = _unary("rad2deg", lambda x: ops.mul(x, 180.0 / _math.pi), floats=True)
degrees = _unary("degrees", lambda x: ops.mul(x, 180.0 / _math.pi), floats=True)
floor = _unary("floor", ops.floor, floats=True)
ceil = _unary("ceil", ops.ceil, floats=True)
trunc = _unary("trunc", ops.trunc, floats=True)
rint = _unary("rint", _rint, floats=True)
signbit = _unary("signbit", _signbit)
invert = _unary("invert", _invert)
bitwise_not = _unary("bitwise_not", _invert)


def fix(x) -> Tensor:
    """Round toward zero, to float (NumPy's `fix`).

    Args:
        x (Tensor | number | list): the input.

    Returns:
        Tensor, float32 for integer input.
    """
    return ops.trunc(as_float(to_tensor(x)))


def around(a, decimals: int = 0) -> Tensor:
    """Round to `decimals` decimal places, halves to even (NumPy's `around`).

    Args:
        a (Tensor | number | list): the input.
        decimals (int): decimal places (negative: to tens, hundreds...).

    Returns:
        Tensor of `a`'s dtype (an integer input stays integer, as in NumPy and mindspore.numpy).
    """
    a = to_tensor(a)
    if is_int(a):
        if decimals >= 0:
            return ops.identity(a)
        return ops.cast(around(ops.cast(a, mstype.float64), decimals), a.dtype)
    a = as_float(a)
    if decimals == 0:
        return ops.round(a)
    scale = 10.0**decimals
    return ops.div(ops.round(ops.mul(a, scale)), scale)


round = around  # noqa: A001
__all__ += ["fix", "around", "round", "degrees"]

add = _binary("add", functional("add"))  # faces table: the row of Add names numpy.add
subtract = _binary("subtract", ops.sub)
multiply = _binary("multiply", ops.mul)
divide = _binary("divide", _true_divide)
true_divide = _binary("true_divide", _true_divide)
floor_divide = _binary("floor_divide", ops.floor_divide)
remainder = _binary("remainder", ops.floor_mod)
mod = _binary("mod", ops.floor_mod)
fmod = _binary("fmod", _fmod)
power = _binary("power", ops.pow)
float_power = _binary("float_power", _float_power)
maximum = _binary("maximum", ops.maximum)
minimum = _binary("minimum", ops.minimum)
fmax = _binary(
    "fmax",
    lambda a, b: ops.select(
        ops.broadcast_to(ops.isnan(b), _bshape(a, b)),
        ops.broadcast_to(a, _bshape(a, b)),
        ops.select(
            ops.broadcast_to(ops.isnan(a), _bshape(a, b)), ops.broadcast_to(b, _bshape(a, b)), ops.maximum(a, b)
        ),
    ),
)  # noqa: E501
arctan2 = _binary("arctan2", ops.atan2, floats=True)
hypot = _binary("hypot", ops.hypot, floats=True)
copysign = _binary("copysign", _copysign)
heaviside = _binary("heaviside", _heaviside)
logaddexp = _binary("logaddexp", lambda a, b: _logaddexp(a, b, ops.log, ops.exp, _LN2), floats=True)
logaddexp2 = _binary("logaddexp2", lambda a, b: _logaddexp(a, b, ops.log2, ops.exp2, 1.0), floats=True)
gcd = _binary("gcd", _gcd)
lcm = _binary("lcm", _lcm)
bitwise_and = _binary("bitwise_and", ops.bitwise_and)
bitwise_or = _binary("bitwise_or", ops.bitwise_or)
bitwise_xor = _binary("bitwise_xor", ops.bitwise_xor)
left_shift = _binary("left_shift", ops.bitwise_left_shift)
right_shift = _binary("right_shift", ops.bitwise_right_shift)


def divmod(x1, x2, dtype=None) -> tuple:  # noqa: A001
    """(floor_divide(x1, x2), remainder(x1, x2)).

    Args:
        x1, x2 (Tensor | number | list): the operands.
        dtype: the results' dtype.

    Returns:
        A tuple of two Tensors.
    """
    return floor_divide(x1, x2, dtype), remainder(x1, x2, dtype)


def clip(x, xmin, xmax, dtype=None) -> Tensor:
    """`x` limited to [xmin, xmax]; either bound may be None.

    Args:
        x (Tensor | number | list): the input.
        xmin, xmax (Tensor | number | None): the bounds (broadcast).
        dtype: the result's dtype.

    Returns:
        Tensor.
    """
    if xmin is None and xmax is None:
        raise ValueError("kiln.numpy.clip: at least one of 'xmin' and 'xmax' must be given.")
    x = to_tensor(x)
    if xmin is not None:
        x = ops.maximum(x, ops.cast(to_tensor(xmin), x.dtype) if not isinstance(xmin, Tensor) else xmin)
    if xmax is not None:
        x = ops.minimum(x, ops.cast(to_tensor(xmax), x.dtype) if not isinstance(xmax, Tensor) else xmax)
    return finish(x, dtype)


__all__ += ["divmod", "clip"]
