"""Distributed training settings (MindSpore's `mindspore.parallel`): the auto-parallel context, ParallelMode,
and semi-auto parallelism's `Layout` and `shard` (see `_shard`); `load_distributed_checkpoint` and
`merge_sliced_parameter` for checkpoints saved by several ranks (see `_checkpoint`)."""

from kiln.parallel._algo_parameters import get_algo_parameters, reset_algo_parameters, set_algo_parameters
from kiln.parallel._auto_parallel_context import (
    get_auto_parallel_context,
    reset_auto_parallel_context,
    set_auto_parallel_context,
)
from kiln.parallel._checkpoint import load_distributed_checkpoint, merge_sliced_parameter
from kiln.parallel._shard import Layout, shard


class ParallelMode:
    """The values of `set_auto_parallel_context(parallel_mode=...)`."""

    STAND_ALONE = "stand_alone"
    DATA_PARALLEL = "data_parallel"
    HYBRID_PARALLEL = "hybrid_parallel"
    SEMI_AUTO_PARALLEL = "semi_auto_parallel"
    AUTO_PARALLEL = "auto_parallel"
    MODE_LIST = [STAND_ALONE, DATA_PARALLEL, HYBRID_PARALLEL, SEMI_AUTO_PARALLEL, AUTO_PARALLEL]


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
