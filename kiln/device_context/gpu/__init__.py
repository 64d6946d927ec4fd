"""The GPU's device context (MindSpore's `mindspore.device_context.gpu`)."""

from kiln.device_context.gpu import op_precision, op_tuning
from kiln.device_context.gpu.device import device_count, is_available
from kiln.device_context.gpu.op_precision import conv_allow_tf32, matmul_allow_tf32
from kiln.device_context.gpu.op_tuning import conv_dgrad_algo, conv_fprop_algo, conv_wgrad_algo

__all__ = [
    "conv_allow_tf32",
    "conv_dgrad_algo",
    "conv_fprop_algo",
    "conv_wgrad_algo",
    "device_count",
    "is_available",
    "matmul_allow_tf32",
    "op_precision",
    "op_tuning",
]
