"""The CPU's device context (MindSpore's `mindspore.device_context.cpu`)."""

from kiln.device_context.cpu import op_tuning
from kiln.device_context.cpu.device import device_count, is_available
from kiln.device_context.cpu.op_tuning import threads_num

__all__ = ["device_count", "is_available", "op_tuning", "threads_num"]
