"""`Bijector`: the base Cell of invertible transformations Y = g(X) with their log-Jacobians.

A subclass implements `_forward`, `_inverse`, `_forward_log_jacobian` and `_inverse_log_jacobian` on Kiln ops;
its parameters are recorded with `_add_parameter` (floats only). Values passed in must be float Tensors (of the
bijector's `dtype` when one was given); parameters are cast to the value's dtype.
"""

from __future__ import annotations

import numpy as np

from kiln import ops
from kiln._core import dtype as mstype
from kiln._core.tensor import Parameter, Tensor
from kiln.nn.cell import Cell
from kiln.nn.probability.distribution._utils.utils import cast_to_tensor, read_only
from kiln.nn.probability.distribution.distribution import Distribution
from kiln.nn.probability.distribution.transformed_distribution import TransformedDistribution

_FLOATS = (mstype.float16, mstype.float32, mstype.float64, mstype.bfloat16)
_PUBLIC = ("forward", "inverse", "forward_log_jacobian", "inverse_log_jacobian")


class Bijector(Cell):
    """Base class of the bijectors.

    Args:
        is_constant_jacobian (bool): whether the Jacobian does not depend on the value.
        is_injective (bool): whether the transformation is one-to-one.
        name (str): the bijector's name.
        dtype (mindspore.dtype): the float type of the values it takes (None: any float type).
        param (dict): the constructor's arguments (`dict(locals())`) with `param_dict`.
    """

    # What TransformedDistribution checks its bijector by (it cannot import this class: this module imports it).
    _is_bijector = True

    def __init__(self, is_constant_jacobian=False, is_injective=True, name=None, dtype=None, param=None):
        super().__init__()
        if not isinstance(name, str):
            raise TypeError(f"For '{type(self).__name__}', 'name' must be a str, but got {type(name).__name__}.")
        for flag, v in (("is_constant_jacobian", is_constant_jacobian), ("is_injective", is_injective)):
            if not isinstance(v, bool):
                raise TypeError(f"For '{name}', '{flag}' must be a bool, but got {type(v).__name__}.")
        if dtype is not None and dtype not in _FLOATS:
            raise TypeError(f"For '{name}', 'dtype' must be a float type or None, but got {dtype}.")
        self._name = name
        self._dtype = dtype
        self._is_constant_jacobian = is_constant_jacobian
        self._is_injective = is_injective
        self._parameters = {}
        for k, v in (param or {}).items():
            if k != "self" and not k.startswith("_"):
                self._parameters[k] = v
        self.parameter_names = []
        self.default_parameters = []
        self.parameter_type = self._param_type(self._parameters.get("param_dict", {}))
        self._batch_shape = self._calc_batch_shape(self._parameters.get("param_dict", {}))
        self._is_scalar_batch = all(
            isinstance(v, (int, float)) for v in self._parameters.get("param_dict", {}).values()
        )

    def _param_type(self, param_dict):
        for v in param_dict.values():
            dt = v.dtype if isinstance(v, Tensor) else None
            if isinstance(v, (np.ndarray, np.generic)):
                dt = mstype.to_dtype(v.dtype)
            if dt is not None:
                return dt if dt in _FLOATS else mstype.float32
        return self._dtype if self._dtype is not None else mstype.float32

    @staticmethod
    def _calc_batch_shape(param_dict):
        shapes = [np.shape(v) if not isinstance(v, Tensor) else tuple(v.shape) for v in param_dict.values()]
        return tuple(np.broadcast_shapes(*shapes)) if shapes else ()

    name = read_only("_name")
    dtype = read_only("_dtype")
    parameters = read_only("_parameters")
    is_constant_jacobian = read_only("_is_constant_jacobian")
    is_injective = read_only("_is_injective")
    batch_shape = read_only("_batch_shape")
    is_scalar_batch = read_only("_is_scalar_batch")

    def _add_parameter(self, value, name):
        """Record parameter `name` (a float number, float array/Tensor or Parameter); returns it as a Tensor."""
        if value is None:
            raise ValueError(f"For '{self.name}', '{name}' cannot be None.")
        if isinstance(value, bool) or not isinstance(value, (int, float, list, np.ndarray, np.generic, Tensor)):
            raise TypeError(f"For '{self.name}', '{name}' must be a float, but got {type(value).__name__}.")
        if isinstance(value, int):
            raise TypeError(f"For '{self.name}', the dtype of '{name}' must be a float type, but got int.")
        if isinstance(value, (np.ndarray, np.generic)) and np.asarray(value).dtype.kind != "f":
            raise TypeError(f"For '{self.name}', the dtype of '{name}' must be a float type, but got {value.dtype}.")
        if isinstance(value, Tensor) and value.dtype not in _FLOATS:
            raise TypeError(f"For '{self.name}', the dtype of '{name}' must be a float type, but got {value.dtype}.")
        value_t = value if isinstance(value, Parameter) else cast_to_tensor(value, self.parameter_type)
        self.parameter_names.append(name)
        self.default_parameters.append(value_t)
        return value_t

    def _check_value_dtype(self, value):
        """`value` if it is a float Tensor (of the bijector's dtype, when given); TypeError otherwise."""
        if not isinstance(value, Tensor):
            raise TypeError(f"For '{self.name}', the value must be a Tensor, but got {type(value).__name__}.")
        if value.dtype not in _FLOATS:
            raise TypeError(f"For '{self.name}', the value must be a float Tensor, but got {value.dtype}.")
        if self.dtype is not None and value.dtype != self.dtype:
            raise TypeError(f"For '{self.name}', the value must be a Tensor of {self.dtype}, but got {value.dtype}.")
        return value

    def cast_param_by_value(self, value, para):
        """`para` in the dtype of `value`."""
        return ops.cast(para, value.dtype)

    def forward(self, value, *args, **kwargs):
        """Y = g(value)."""
        return self._forward(value, *args, **kwargs)

    def inverse(self, value, *args, **kwargs):
        """X = g^-1(value)."""
        return self._inverse(value, *args, **kwargs)

    def forward_log_jacobian(self, value, *args, **kwargs):
        """log |dg/dx| at x = value."""
        return self._forward_log_jacobian(value, *args, **kwargs)

    def inverse_log_jacobian(self, value, *args, **kwargs):
        """log |dg^-1/dy| at y = value."""
        return self._inverse_log_jacobian(value, *args, **kwargs)

    def _forward(self, value, *args, **kwargs):
        raise NotImplementedError(f"forward is not implemented for {self.name}.")

    def _inverse(self, value, *args, **kwargs):
        raise NotImplementedError(f"inverse is not implemented for {self.name}.")

    def _forward_log_jacobian(self, value, *args, **kwargs):
        raise NotImplementedError(f"forward_log_jacobian is not implemented for {self.name}.")

    def _inverse_log_jacobian(self, value, *args, **kwargs):
        raise NotImplementedError(f"inverse_log_jacobian is not implemented for {self.name}.")

    def __call__(self, *args, **kwargs):
        if args and isinstance(args[0], Distribution):  # bijector(distribution): the transformed distribution
            return TransformedDistribution(self, args[0])
        return super().__call__(*args, **kwargs)

    def construct(self, name, *args, **kwargs):
        """`bijector("forward", x)`: the method `name` called with the other arguments."""
        if name not in _PUBLIC:
            raise ValueError(f"{name} is not a method of {self.name}: expected one of {list(_PUBLIC)}.")
        return getattr(self, name)(*args, **kwargs)
