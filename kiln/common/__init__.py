"""MindSpore's `mindspore.common` package: dtypes, Tensor, Parameter, initializers, jit and seeds."""

from kiln._core import dtype
from kiln._core.dtype import *  # noqa: F403
from kiln._core.tensor import Parameter, ParameterTuple, Tensor
from kiln.common.api import (
    JitConfig,
    from_numpy,
    get_seed,
    is_tensor,
    jit,
    jit_class,
    lazy_inline,
    mutable,
    no_inline,
    set_seed,
    tensor,
)

__all__ = [
    "JitConfig", "Parameter", "ParameterTuple", "Tensor", "dtype", "from_numpy", "get_seed", "is_tensor", "jit",
    "jit_class", "lazy_inline", "mutable", "no_inline", "set_seed", "tensor",
]  # fmt: skip
