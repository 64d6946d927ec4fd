"""MindSpore's module path `mindspore.train.serialization`: saving, loading and converting checkpoints, and the
distributed-checkpoint helpers (all defined in `kiln.train.checkpoint`, whose `__all__` this re-exports)."""

import numpy as np

from kiln import context  # noqa: F401 (MindSpore's module holds it, and zoo scripts import it from here)
from kiln._core import dtype as mstype
from kiln._core.tensor import Parameter, Tensor
from kiln._core.unsupported import unavailable
from kiln.common.export import export, load  # noqa: F401  (MindSpore's serialization module has these too)
from kiln.train.checkpoint import *  # noqa: F403
from kiln.train.checkpoint import load_checkpoint, load_param_into_net, save_checkpoint
from kiln.train.checkpoint._proto import Checkpoint  # noqa: F401 (the checkpoint file's protobuf message)
from kiln.train.checkpoint.loading import _same_family

__all__ = ["load_checkpoint", "load_param_into_net", "save_checkpoint"]


# Checkpoint files name a tensor's type by these strings.
tensor_to_ms_type: dict[str, mstype.DType] = {
    "Int8": mstype.int8, "UInt8": mstype.uint8, "Int16": mstype.int16, "UInt16": mstype.uint16,
    "Int32": mstype.int32, "UInt32": mstype.uint32, "Int64": mstype.int64, "UInt64": mstype.uint64,
    "Float16": mstype.float16, "Float32": mstype.float32, "Float64": mstype.float64, "Bool": mstype.bool_,
    "BFloat16": mstype.bfloat16,
}  # fmt: skip


def tensor_to_np_type(tensor_type_str: str) -> np.dtype | None:
    """The NumPy dtype of a checkpoint type name (`"Float32"` -> float32); None for a name Kiln does not know."""
    dtype = tensor_to_ms_type.get(tensor_type_str)
    return None if dtype is None else dtype.np


build_searched_strategy = unavailable(
    "train.serialization.build_searched_strategy",
    "Kiln writes no strategy files (its sharding is the user's shard() strategies and XLA's partitioner)",
)


def _update_param(param: Parameter, new_param: Tensor, strict_load: bool = False) -> None:
    """Write `new_param`'s value into `param` in place, as `load_param_into_net` does for each parameter.

    Args:
        param: the Parameter to update.
        new_param: the value (a Parameter or Tensor of the same shape).
        strict_load: the dtypes must be equal; otherwise a float (int) value is cast to a float (int) parameter.

    Raises:
        RuntimeError: the shapes differ, or the dtypes do (across kinds, or at all with `strict_load`).
    """
    if new_param.shape != param.shape:
        raise RuntimeError(
            f"_update_param: cannot load a value of shape {list(new_param.shape)} into parameter "
            f"'{param.name}' of shape {list(param.shape)}."
        )
    if new_param.dtype is not param.dtype and (strict_load or not _same_family(new_param.dtype, param.dtype)):
        raise RuntimeError(
            f"_update_param: cannot load a {new_param.dtype} value into parameter '{param.name}' of dtype "
            f"{param.dtype}" + (" (strict_load requires equal dtypes)." if strict_load else ".")
        )
    param.set_data(Tensor(new_param.asnumpy(), param.dtype))
