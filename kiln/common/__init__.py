"""MindSpore's `mindspore.common` package: dtypes, Tensor, Parameter, initializers."""

from kiln._core import dtype
from kiln._core.tensor import Parameter, ParameterTuple, Tensor

__all__ = ["Parameter", "ParameterTuple", "Tensor", "dtype"]
