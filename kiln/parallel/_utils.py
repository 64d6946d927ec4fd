"""The read-outs of the parallel settings that training scripts use (MindSpore's `mindspore.parallel._utils`).

Zoo networks import these private helpers to decide whether to build a gradient reducer and how to scale: each
reads one option of the auto-parallel context (`device_num` and `global_rank` fall back to the communication group
once `communication.init()` ran, else to one device, rank 0).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kiln._parallel.context import get_auto_parallel_context

__all__ = [
    "_get_device_num",
    "_get_enable_parallel_optimizer",
    "_get_full_batch",
    "_get_global_rank",
    "_get_gradients_mean",
    "_get_parallel_mode",
    "_get_pipeline_stages",
]


def _reader(option: str, meaning: str) -> Callable[[], Any]:
    def read() -> Any:
        return get_auto_parallel_context(option)

    read.__name__ = read.__qualname__ = f"_get_{option}"
    read.__doc__ = f"{meaning} (the auto-parallel option `{option}`)."
    return read


_get_device_num = _reader("device_num", "The number of devices taking part")
_get_global_rank = _reader("global_rank", "This process's rank")
_get_gradients_mean = _reader("gradients_mean", "Whether reduced gradients are averaged over the devices")
_get_parallel_mode = _reader("parallel_mode", 'The parallel mode ("stand_alone", "data_parallel", ...)')
_get_enable_parallel_optimizer = _reader("enable_parallel_optimizer", "Whether optimizer state is sharded")
_get_pipeline_stages = _reader("pipeline_stages", "The number of pipeline stages")
_get_full_batch = _reader("full_batch", "Whether every device reads the whole batch")
