"""TF32 for float32 matmuls and convolutions on a GPU (MindSpore's `device_context.gpu.op_precision`).

Both apply on an NVIDIA GPU only (the CPU computes float32 in full): a switch compiles programs again.
"""

from __future__ import annotations

import warnings

from kiln import _backend as B

_warned: set[str] = set()


def _checked(name: str, value) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"For '{name}', the argument 'value' must be bool, but got {type(value).__name__}.")
    if not B.devices("gpu") and name not in _warned:
        _warned.add(name)
        warnings.warn(f"{name}: no GPU is in use, the setting applies on a GPU only.", UserWarning, stacklevel=3)
    return value


def matmul_allow_tf32(value: bool) -> None:
    """Whether float32 matrix products (MatMul, BatchMatMul, Dense, einsum, ...) may run in TensorFloat-32 on a GPU.

    Args:
        value: True allows TF32 (faster, about 3 decimal digits); False (the default) keeps full float32.
    """
    B.precision.set_allowed(matmul_tf32=_checked("matmul_allow_tf32", value))


def conv_allow_tf32(value: bool) -> None:
    """Whether float32 convolutions may run in TensorFloat-32 on a GPU.

    Args:
        value: True (the default) allows TF32; False computes convolutions in full float32.
    """
    B.precision.set_allowed(conv_tf32=_checked("conv_allow_tf32", value))


__all__ = ["conv_allow_tf32", "matmul_allow_tf32"]
