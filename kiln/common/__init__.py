"""MindSpore's `mindspore.common` package: dtypes, Tensor, Parameter, initializers, jit, seeds and generators,
sparse tensors."""

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
    recompute,
    set_seed,
    swap_tensors,
    tensor,
)
from kiln.common.generator import (
    Generator,
    default_generator,
    get_rng_state,
    initial_seed,
    manual_seed,
    seed,
    set_rng_state,
)
from kiln.common.runtime import DeviceCtx, enable_dynamic, ms_memory_recycle, set_dump, set_recursion_limit
from kiln.common.types import ALIASES as _ALIASES
from kiln.common.types import (
    Int,
    TensorType,
    Type,
    dtype_to_nptype,
    dtype_to_pytype,
    get_py_obj_dtype,
    list_,
    number,
    pytype_to_dtype,
    string,
    tensor_type,
    tuple_,
    type_none,
)
from kiln.ops.sparse import COOTensor, CSRTensor, RowTensor, SparseTensor

__all__ = [
    "JitConfig", "Parameter", "ParameterTuple", "Tensor", "dtype", "from_numpy", "get_seed", "is_tensor", "jit",
    "jit_class", "lazy_inline", "mutable", "no_inline", "set_seed", "tensor", "swap_tensors", "Generator",
    "default_generator", "get_rng_state", "initial_seed", "manual_seed", "seed", "set_rng_state", "set_dump", "Int",
    "TensorType", "dtype_to_nptype", "dtype_to_pytype", "get_py_obj_dtype", "list_", "number", "string",
    "tensor_type", "tuple_", "type_none", "COOTensor", "CSRTensor", "RowTensor", "SparseTensor", "DeviceCtx",
    "enable_dynamic", "ms_memory_recycle", "set_recursion_limit", "recompute", "Type", "pytype_to_dtype",
    *(name for name in _ALIASES if name not in ("float", "int", "bool")),  # star-imports keep the builtins
]  # fmt: skip


def __getattr__(name: str):
    """The dtype aliases (`kiln.common.float` ...), kept out of the module namespace: they shadow builtins."""
    if name in _ALIASES:
        return _ALIASES[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
