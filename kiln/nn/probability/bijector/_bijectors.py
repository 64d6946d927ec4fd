"""The concrete bijectors: PowerTransform, Exp, ScalarAffine, Softplus, GumbelCDF, Invert."""

from __future__ import annotations

from kiln import ops
from kiln.nn.probability.bijector.bijector import Bijector
from kiln.nn.probability.distribution._utils.utils import check_greater_equal_zero, check_greater_zero, read_only


def _check_name(name, cls):
    if not isinstance(name, str):
        raise TypeError(f"For '{cls}', 'name' must be a str, but got {type(name).__name__}.")


def _constructor_args(local_vars: dict, *names: str) -> dict:
    """A bijector's `param`: its constructor's arguments (`locals()`) with `param_dict`, the parameters `names`."""
    param = dict(local_vars)
    param["param_dict"] = {n: local_vars[n] for n in names}
    return param


class PowerTransform(Bijector):
    """Y = (1 + X * c)^(1 / c) for power c > 0, and Y = exp(X) for c = 0."""

    def __init__(self, power=0.0, name="PowerTransform"):
        _check_name(name, "PowerTransform")
        super().__init__(name=name, param=_constructor_args(locals(), "power"))
        self._power = self._add_parameter(power, "power")
        check_greater_equal_zero(self._power, "power")

    power = read_only("_power")

    def _c(self, x):
        c = self.cast_param_by_value(x, self._power)
        zero = c == 0.0
        safe = ops.select(zero, ops.ones_like(c), c)
        return zero, safe

    def _forward(self, x):
        x = self._check_value_dtype(x)
        zero, c = self._c(x)
        return ops.where(zero, ops.exp(x), ops.exp(ops.log1p(x * c) / c))

    def _inverse(self, y):
        y = self._check_value_dtype(y)
        zero, c = self._c(y)
        return ops.where(zero, ops.log(y), ops.expm1(ops.log(y) * c) / c)

    def _forward_log_jacobian(self, x):
        x = self._check_value_dtype(x)
        zero, c = self._c(x)
        return ops.where(zero, x, (1.0 / c - 1.0) * ops.log1p(x * c))

    def _inverse_log_jacobian(self, y):
        y = self._check_value_dtype(y)
        zero, c = self._c(y)
        return ops.where(zero, -ops.log(y), (c - 1.0) * ops.log(y))


class Exp(Bijector):
    """Y = exp(X)."""

    def __init__(self, name="Exp"):
        _check_name(name, "Exp")
        super().__init__(name=name, param=_constructor_args(locals()))

    def _forward(self, x):
        return ops.exp(self._check_value_dtype(x))

    def _inverse(self, y):
        return ops.log(self._check_value_dtype(y))

    def _forward_log_jacobian(self, x):
        return self._check_value_dtype(x)

    def _inverse_log_jacobian(self, y):
        return -ops.log(self._check_value_dtype(y))


class ScalarAffine(Bijector):
    """Y = scale * X + shift."""

    def __init__(self, scale=1.0, shift=0.0, name="ScalarAffine"):
        _check_name(name, "ScalarAffine")
        super().__init__(is_constant_jacobian=True, name=name, param=_constructor_args(locals(), "scale", "shift"))
        self._scale = self._add_parameter(scale, "scale")
        self._shift = self._add_parameter(shift, "shift")

    scale = read_only("_scale")
    shift = read_only("_shift")

    def _forward(self, x):
        x = self._check_value_dtype(x)
        return self.cast_param_by_value(x, self._scale) * x + self.cast_param_by_value(x, self._shift)

    def _inverse(self, y):
        y = self._check_value_dtype(y)
        return (y - self.cast_param_by_value(y, self._shift)) / self.cast_param_by_value(y, self._scale)

    def _forward_log_jacobian(self, x):
        x = self._check_value_dtype(x)
        return ops.log(ops.abs(self.cast_param_by_value(x, self._scale))) + ops.zeros_like(x)

    def _inverse_log_jacobian(self, y):
        return -self._forward_log_jacobian(y)


class Softplus(Bijector):
    """Y = log(1 + exp(k * X)) / k with sharpness k."""

    def __init__(self, sharpness=1.0, name="Softplus"):
        _check_name(name, "Softplus")
        super().__init__(name=name, param=_constructor_args(locals(), "sharpness"))
        self._sharpness = self._add_parameter(sharpness, "sharpness")

    sharpness = read_only("_sharpness")

    def _forward(self, x):
        x = self._check_value_dtype(x)
        k = self.cast_param_by_value(x, self._sharpness)
        return ops.softplus(k * x) / k

    def _inverse(self, y):
        y = self._check_value_dtype(y)
        k = self.cast_param_by_value(y, self._sharpness)
        ky = k * y
        return (ky + ops.log(-ops.expm1(-ky))) / k  # log(expm1(ky)) without overflow

    def _forward_log_jacobian(self, x):
        x = self._check_value_dtype(x)
        k = self.cast_param_by_value(x, self._sharpness)
        return -ops.softplus(-k * x)

    def _inverse_log_jacobian(self, y):
        y = self._check_value_dtype(y)
        k = self.cast_param_by_value(y, self._sharpness)
        return -ops.log(-ops.expm1(-k * y))


class GumbelCDF(Bijector):
    """Y = exp(-exp(-(X - loc) / scale)): the Gumbel CDF."""

    def __init__(self, loc=0.0, scale=1.0, name="GumbelCDF"):
        _check_name(name, "GumbelCDF")
        super().__init__(name=name, param=_constructor_args(locals(), "loc", "scale"))
        self._loc = self._add_parameter(loc, "loc")
        self._scale = self._add_parameter(scale, "scale")
        check_greater_zero(self._scale, "scale")

    loc = read_only("_loc")
    scale = read_only("_scale")

    def _z(self, x):
        return (x - self.cast_param_by_value(x, self._loc)) / self.cast_param_by_value(x, self._scale)

    def _forward(self, x):
        x = self._check_value_dtype(x)
        return ops.exp(-ops.exp(-self._z(x)))

    def _inverse(self, y):
        y = self._check_value_dtype(y)
        loc, scale = self.cast_param_by_value(y, self._loc), self.cast_param_by_value(y, self._scale)
        return loc - scale * ops.log(-ops.log(y))

    def _forward_log_jacobian(self, x):
        x = self._check_value_dtype(x)
        z = self._z(x)
        return -z - ops.exp(-z) - ops.log(self.cast_param_by_value(x, self._scale))

    def _inverse_log_jacobian(self, y):
        y = self._check_value_dtype(y)
        scale = self.cast_param_by_value(y, self._scale)
        return ops.log(scale) - ops.log(-ops.log(y)) - ops.log(y)


class Invert(Bijector):
    """The inverse of `bijector`: forward is its inverse and the other way round."""

    def __init__(self, bijector, name=""):
        if not isinstance(bijector, Bijector):
            raise TypeError(f"For 'Invert', 'bijector' must be a Bijector, but got {type(bijector).__name__}.")
        _check_name(name, "Invert")
        param = _constructor_args(locals())
        name = name or "Invert" + bijector.name
        super().__init__(
            is_constant_jacobian=bijector.is_constant_jacobian,
            is_injective=bijector.is_injective,
            name=name,
            dtype=bijector.dtype,
            param=param,
        )
        self._bijector = bijector

    bijector = read_only("_bijector")

    def _forward(self, x):
        return self._bijector.inverse(x)

    def _inverse(self, y):
        return self._bijector.forward(y)

    def _forward_log_jacobian(self, x):
        return self._bijector.inverse_log_jacobian(x)

    def _inverse_log_jacobian(self, y):
        return self._bijector.forward_log_jacobian(y)
