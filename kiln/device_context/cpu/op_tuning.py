"""CPU kernel tuning (MindSpore's `device_context.cpu.op_tuning`): not acted on."""

from kiln._core.unsupported import ignored

threads_num = ignored(
    "device_context.cpu.op_tuning.threads_num",
    "XLA's CPU runtime sizes its thread pool when JAX starts, from the cores the process may use: start it under "
    "taskset to use fewer",
)

__all__ = ["threads_num"]
