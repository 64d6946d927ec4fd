"""Per-device settings and queries (MindSpore's `mindspore.device_context`): `cpu`, `gpu` and `ascend`.

Implemented: `cpu/gpu/ascend.device_count()` and `is_available()`, and on a GPU `gpu.op_precision.matmul_allow_tf32`
and `conv_allow_tf32`. The other settings (`cpu.op_tuning.threads_num`, `gpu.op_tuning.conv_*_algo`, every
`ascend` setting) are accepted and have no effect: each warns once, saying why.
"""

from kiln.device_context import ascend, cpu, gpu

__all__ = ["ascend", "cpu", "gpu"]
