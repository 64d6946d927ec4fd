"""CPU kernel tuning (MindSpore's `device_context.cpu.op_tuning`): not acted on."""

from kiln._core.unsupported import ignored

threads_num = ignored(
    "device_context.cpu.op_tuning.threads_num",
    "XLA's CPU runtime sizes its thread pool when JAX starts; set XLA_FLAGS=--xla_cpu_multi_thread_eigen=false or "
    "taskset the process to use fewer cores",
)

__all__ = ["threads_num"]
