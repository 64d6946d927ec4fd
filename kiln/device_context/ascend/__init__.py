"""The Ascend device context (MindSpore's `mindspore.device_context.ascend`): Kiln has no Ascend backend.

`is_available()` is False and `device_count()` raises, as MindSpore's do without an Ascend device; the settings are
accepted and have no effect (each warns once).
"""

from __future__ import annotations

import types

from kiln._core.unsupported import ignored


def is_available() -> bool:
    """Whether an Ascend device is usable: never in Kiln (it runs on CPUs and NVIDIA GPUs)."""
    return False


def device_count() -> int:
    """Raises RuntimeError: Kiln has no Ascend device (MindSpore raises the same without one)."""
    raise RuntimeError("Device_target Ascend not exist.")


_WHY = "Kiln has no Ascend backend; it runs on CPUs and NVIDIA GPUs"
_SETTINGS = {
    "op_precision": ("precision_mode", "op_precision_mode", "matmul_allow_hf32", "conv_allow_hf32"),
    "op_tuning": ("op_compile", "aoe_tune_mode", "aoe_job_type", "aclnn_cache"),
    "op_debug": ("execute_timeout", "debug_option", "aclinit_config"),
}
for _module, _names in _SETTINGS.items():  # each as `ascend.<name>` and `ascend.<module>.<name>`, as in MindSpore
    _fns = {n: ignored(f"device_context.ascend.{_module}.{n}", _WHY) for n in _names}
    globals().update(_fns)
    globals()[_module] = types.SimpleNamespace(**_fns)

__all__ = ["device_count", "is_available", *(n for names in _SETTINGS.values() for n in names)]
