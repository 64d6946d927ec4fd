"""float32 matrix products and convolutions on a GPU: full float32 or TensorFloat-32 (MindSpore's
`device_context.gpu.op_precision`).

XLA runs float32 dots and convolutions on an NVIDIA GPU in TF32 by default (10-bit mantissa inputs: a 64x64 float32
matmul came out 3,045 of 4,096 entries off by up to 0.0127 on an H200). MindSpore's defaults: matmuls in full
float32 (`matmul_allow_tf32(False)`), convolutions in TF32 (`conv_allow_tf32(True)`). Kiln follows them: on a GPU
machine JAX's default matmul precision is float32 unless TF32 is allowed (a value the user gave JAX's
`jax_default_matmul_precision` themselves stays), and the convolution primitives pass `conv_precision()`
explicitly. On a CPU-only machine nothing is set (the CPU computes float32 in full anyway): its programs stay
exactly as they were.

`key()` joins the on-disk cache keys; a switch calls the hooks registered with `on_change` (the compile caches
forget their executables), so a program compiled under one setting never serves the other.
"""

from __future__ import annotations

from collections.abc import Callable

import jax
from jax import lax

_STATE = {"matmul_tf32": False, "conv_tf32": True, "gpu": False, "set": None}  # set: the value Kiln gave JAX
_HOOKS: list[Callable[[], None]] = []


def _machine_has_gpu() -> bool:
    return jax.default_backend() == "gpu"


def _apply() -> None:
    gpu = _STATE["gpu"] = _machine_has_gpu()
    # None: JAX's (and XLA's) default, which is TF32 on a GPU and full float32 on the CPU
    wanted = "float32" if gpu and not _STATE["matmul_tf32"] else None
    current = jax.config.jax_default_matmul_precision
    if current not in (None, _STATE["set"]):  # the user's own JAX setting: theirs to keep
        return
    if current != wanted:
        jax.config.update("jax_default_matmul_precision", wanted)
    _STATE["set"] = wanted


def set_allowed(matmul_tf32: bool | None = None, conv_tf32: bool | None = None) -> None:
    """Allow (True) or forbid (False) TF32 for float32 matmuls / convolutions on a GPU; None keeps the setting."""
    before = (_STATE["matmul_tf32"], _STATE["conv_tf32"])
    if matmul_tf32 is not None:
        _STATE["matmul_tf32"] = bool(matmul_tf32)
    if conv_tf32 is not None:
        _STATE["conv_tf32"] = bool(conv_tf32)
    _apply()
    if (_STATE["matmul_tf32"], _STATE["conv_tf32"]) != before:
        for hook in _HOOKS:
            hook()


def allowed() -> tuple[bool, bool]:
    """(matmul_tf32, conv_tf32): whether TF32 is allowed for float32 matmuls and for convolutions on a GPU."""
    return _STATE["matmul_tf32"], _STATE["conv_tf32"]


def conv_precision():
    """The `precision=` of a convolution: None (JAX's default) on a CPU-only machine; on a GPU machine DEFAULT
    (TF32) when allowed, else HIGHEST (full float32), explicit since JAX's default there is the matmuls'."""
    if not _STATE["gpu"]:
        return None
    return lax.Precision.DEFAULT if _STATE["conv_tf32"] else lax.Precision.HIGHEST


def key() -> tuple:
    """What a compiled program depends on here (joins the persistent cache keys)."""
    return (_STATE["gpu"], _STATE["matmul_tf32"], _STATE["conv_tf32"])


def on_change(hook: Callable[[], None]) -> None:
    """Call `hook` after every change of a setting (a compile cache forgetting its executables)."""
    _HOOKS.append(hook)


_apply()
