"""Distributed training settings (MindSpore's `mindspore.parallel`): the auto-parallel context, ParallelMode,
and semi-auto parallelism's `Layout` and `shard` (implemented in `kiln._parallel`, below `nn`);
`load_distributed_checkpoint` and `merge_sliced_parameter` for checkpoints saved by several ranks (in
`kiln.train.checkpoint.distributed`); `kiln.parallel.nn` (imported on its own) has the pipeline and
accumulation wrappers, and `kiln.parallel.auto_parallel` (imported on its own) MindSpore 2.10's `AutoParallel`."""

from kiln._parallel.context import (
    ParallelMode,
    get_auto_parallel_context,
    reset_auto_parallel_context,
    set_auto_parallel_context,
)
from kiln._parallel.shard import Layout, shard
from kiln.parallel._algo_parameters import get_algo_parameters, reset_algo_parameters, set_algo_parameters
from kiln.train.checkpoint.distributed import load_distributed_checkpoint, merge_sliced_parameter

__all__ = [
    "Layout",
    "ParallelMode",
    "get_algo_parameters",
    "get_auto_parallel_context",
    "load_distributed_checkpoint",
    "merge_sliced_parameter",
    "reset_algo_parameters",
    "reset_auto_parallel_context",
    "set_algo_parameters",
    "set_auto_parallel_context",
    "shard",
]
