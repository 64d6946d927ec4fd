"""cuDNN convolution algorithm choices (MindSpore's `device_context.gpu.op_tuning`): not acted on."""

from kiln._core.unsupported import ignored

_WHY = "XLA chooses each convolution's cuDNN algorithm itself, by autotuning when it compiles the program"

conv_fprop_algo = ignored("device_context.gpu.op_tuning.conv_fprop_algo", _WHY)
conv_wgrad_algo = ignored("device_context.gpu.op_tuning.conv_wgrad_algo", _WHY)
conv_dgrad_algo = ignored("device_context.gpu.op_tuning.conv_dgrad_algo", _WHY)

__all__ = ["conv_dgrad_algo", "conv_fprop_algo", "conv_wgrad_algo"]
