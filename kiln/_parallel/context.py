"""`set_auto_parallel_context` / `get_auto_parallel_context` / `reset_auto_parallel_context`.

The options MindSpore 2.10 knows are all accepted and read back. What Kiln acts on in this version:

- `parallel_mode`: "stand_alone" or "data_parallel" ("hybrid_parallel" is treated as data parallel);
  in data-parallel mode `nn.TrainOneStepCell` (and so `Model`) all-reduces the gradients across ranks
  (`nn.DistributedGradReducer`) and spreads each batch over the devices of its process.
- `gradients_mean`: divide the all-reduced gradients by the number of ranks.
- `device_num`, `global_rank`: read back as set; `device_num` defaults to the group size after
  `communication.init()`.

- "semi_auto_parallel" / "auto_parallel": the strategies given with `Primitive.shard`, `Cell.shard`,
  `ms.shard` and `Layout` split tensors over the devices of the job (every process's, one program over all
  of them) and XLA's SPMD partitioner splits the rest of the program (its sharding propagation stands for
  MindSpore's strategy search).
- `full_batch`, `dataset_strategy`: in those modes across processes, how each rank's batch is read
  (`_parallel/batch.py`): its slice of the global batch (the default), the whole batch, or per-input strategies.
- `enable_parallel_optimizer`, `optimizer_weight_shard_size`: in those modes, optimizer states split over the
  devices (`_parallel/batch.py`); `parallel_optimizer_config`'s "parallel_optimizer_threshold" (KiB) keeps smaller
  states whole (0 when not given); other optimizer levels are refused.
- `pipeline_stages`: in those modes, `nn.PipelineCell` runs its network's stages on that many disjoint groups of
  the job's devices (`_parallel/pipeline.py`); outside them a PipelineCell refuses it. `pipeline_config`'s
  "pipeline_scheduler" picks the schedule, "1f1b" (MindSpore's default) or "gpipe"; other schedulers and
  "pipeline_interleave" (virtual stages) are refused.
"""

from __future__ import annotations

import copy
import warnings
from typing import Any

from kiln.communication import management

STAND_ALONE = "stand_alone"
DATA_PARALLEL = "data_parallel"
HYBRID_PARALLEL = "hybrid_parallel"
SEMI_AUTO_PARALLEL = "semi_auto_parallel"
AUTO_PARALLEL = "auto_parallel"
PARALLEL_MODES = (STAND_ALONE, DATA_PARALLEL, HYBRID_PARALLEL, SEMI_AUTO_PARALLEL, AUTO_PARALLEL)


class ParallelMode:
    """The values of `set_auto_parallel_context(parallel_mode=...)`."""

    STAND_ALONE = STAND_ALONE
    DATA_PARALLEL = DATA_PARALLEL
    HYBRID_PARALLEL = HYBRID_PARALLEL
    SEMI_AUTO_PARALLEL = SEMI_AUTO_PARALLEL
    AUTO_PARALLEL = AUTO_PARALLEL
    MODE_LIST = list(PARALLEL_MODES)


_DEFAULTS: dict[str, Any] = {
    "parallel_mode": STAND_ALONE,
    "gradients_mean": False,
    "device_num": None,  # None: the group size once communication.init() ran, else 1
    "global_rank": None,  # None: the rank once communication.init() ran, else 0
    "full_batch": False,
    "gradient_fp32_sync": True,
    "loss_repeated_mean": True,
    "parameter_broadcast": False,
    "enable_parallel_optimizer": False,
    "enable_alltoall": False,
    "pipeline_stages": 1,
    "grad_accumulation_step": 1,
    "search_mode": "recursive_programming",
    "auto_parallel_search_mode": "recursive_programming",
    "dataset_strategy": "data_parallel",
    "strategy_ckpt_load_file": "",
    "strategy_ckpt_save_file": "",
    "strategy_ckpt_config": {"load_file": "", "save_file": "", "only_trainable_params": True},
    "all_reduce_fusion_config": [],
    "comm_fusion": {
        "openstate": True,
        "allreduce": {"mode": "auto", "config": None},
        "allgather": {"mode": "auto", "config": None},
        "reducescatter": {"mode": "auto", "config": None},
    },
    "communi_parallel_mode": "all_group_parallel",
    "optimizer_weight_shard_size": -1,
    "optimizer_weight_shard_aggregated_save": False,
    "sharding_propagation": False,
    "pipeline_result_broadcast": False,
    "pipeline_config": None,
    "pipeline_segments": None,
    "parallel_optimizer_config": None,
    "auto_pipeline": False,
    "force_fp32_communication": False,
    "init_param_in_compile": True,
    "group_ckpt_save_file": "",
    "dump_local_norm": False,
    "dump_local_norm_path": "",
    "dump_device_local_norm": False,
    "auto_parallel_new_interface": False,
}
_ACTED_ON = frozenset(
    {
        "parallel_mode",
        "gradients_mean",
        "device_num",
        "global_rank",
        "full_batch",
        "dataset_strategy",
        "enable_parallel_optimizer",
        "optimizer_weight_shard_size",
        "pipeline_stages",
        "pipeline_config",
        "parallel_optimizer_config",
    }  # fmt: skip
)
_context: dict[str, Any] = copy.deepcopy(_DEFAULTS)
_warned: set[str] = set()


def _check(key: str, value) -> Any:
    if key == "parallel_mode":
        if not isinstance(value, str) or value.lower() not in PARALLEL_MODES:
            raise ValueError(
                f"set_auto_parallel_context: 'parallel_mode' must be one of {', '.join(PARALLEL_MODES)}, "
                f"but got {value!r}."
            )
        return value.lower()
    bools = ("gradients_mean", "full_batch", "gradient_fp32_sync", "loss_repeated_mean", "parameter_broadcast")
    if key in bools or key == "enable_parallel_optimizer":
        if not isinstance(value, bool):
            raise TypeError(f"set_auto_parallel_context: '{key}' must be a bool, but got {type(value).__name__}.")
        return value
    if key in ("device_num", "global_rank"):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"set_auto_parallel_context: '{key}' must be an int, but got {type(value).__name__}.")
        if key == "device_num" and not 1 <= value <= 1048576:
            raise ValueError(f"set_auto_parallel_context: 'device_num' must be in [1, 1048576], but got {value}.")
        if key == "global_rank" and not 0 <= value < 1048576:
            raise ValueError(f"set_auto_parallel_context: 'global_rank' must be in [0, 1048576), but got {value}.")
        return value
    if key in ("pipeline_stages", "optimizer_weight_shard_size"):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"set_auto_parallel_context: '{key}' must be an int, but got {type(value).__name__}.")
        if key == "optimizer_weight_shard_size" and value != -1 and value < 2:
            raise ValueError(
                f"set_auto_parallel_context: 'optimizer_weight_shard_size' must be -1 or > 1, got {value}."
            )
        if key == "pipeline_stages" and value < 1:
            raise ValueError(f"set_auto_parallel_context: 'pipeline_stages' must be at least 1, got {value}.")
        return value
    if key == "pipeline_config":
        return _check_pipeline_config(value)
    if key == "parallel_optimizer_config":
        return _check_optimizer_config(value)
    return value


def _check_optimizer_config(value):
    """`parallel_optimizer_config`: the size below which a state stays whole; the other keys Kiln does not build."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise TypeError(
            f"set_auto_parallel_context: 'parallel_optimizer_config' must be a dict, but got {type(value).__name__}."
        )
    built = {"parallel_optimizer_threshold", "optimizer_level", "gradient_accumulation_shard"}
    unknown = sorted(set(value) - built)
    if unknown:
        raise ValueError(f"set_auto_parallel_context: 'parallel_optimizer_config' has unknown keys {unknown}.")
    threshold = value.get("parallel_optimizer_threshold", 0)
    if isinstance(threshold, bool) or not isinstance(threshold, int) or threshold < 0:
        raise ValueError(
            f"set_auto_parallel_context: 'parallel_optimizer_threshold' must be an int >= 0, got {threshold!r}."
        )
    if value.get("optimizer_level", "level1") != "level1" or value.get("gradient_accumulation_shard", False):
        raise NotImplementedError(
            "set_auto_parallel_context(parallel_optimizer_config): only optimizer_level 'level1' (the optimizer "
            "states split) is built in Kiln, without gradient_accumulation_shard."
        )
    return dict(value)


PIPELINE_SCHEDULERS = ("1f1b", "gpipe")  # the schedules Kiln builds (MindSpore 2.10 also names seqpipe, zbv, ...)
_MINDSPORE_SCHEDULERS = ("seqpipe", "seqvpp", "seqsmartvpp", "zero_bubble_v")


def _check_pipeline_config(value):
    if value is None:
        return None
    if not isinstance(value, dict):
        raise TypeError(f"set_auto_parallel_context: 'pipeline_config' must be a dict, but got {type(value).__name__}.")
    unknown = sorted(set(value) - {"pipeline_interleave", "pipeline_scheduler"})
    if unknown:
        raise ValueError(f"set_auto_parallel_context: 'pipeline_config' has unknown keys {unknown}.")
    interleave = value.get("pipeline_interleave", False)
    if not isinstance(interleave, bool):
        raise TypeError("set_auto_parallel_context: 'pipeline_config' 'pipeline_interleave' must be a bool.")
    if interleave:
        raise NotImplementedError(
            "set_auto_parallel_context(pipeline_config={'pipeline_interleave': True}): interleaved (virtual) pipeline "
            "stages are not built in Kiln; each stage is one group of cells."
        )
    scheduler = value.get("pipeline_scheduler", "1f1b")
    if scheduler in _MINDSPORE_SCHEDULERS:
        raise NotImplementedError(
            f"set_auto_parallel_context(pipeline_config): the {scheduler!r} pipeline scheduler is not built in Kiln; "
            f"it builds {' and '.join(map(repr, PIPELINE_SCHEDULERS))}."
        )
    if scheduler not in PIPELINE_SCHEDULERS:
        raise ValueError(
            f"set_auto_parallel_context: 'pipeline_scheduler' must be one of {PIPELINE_SCHEDULERS}, got {scheduler!r}."
        )
    return dict(value)


def set_auto_parallel_context(**kwargs) -> None:
    """Set options of distributed training (see the module docstring for what Kiln acts on).

    Args:
        kwargs: option name -> value, the options of MindSpore 2.10's `set_auto_parallel_context`.

    Raises:
        ValueError: an unknown option, or a value out of range.
        TypeError: a value of the wrong type.
    """
    checked = {}
    for key, value in kwargs.items():
        if key not in _DEFAULTS:
            raise ValueError(f"set_auto_parallel_context: unknown option '{key}'.")
        checked[key] = _check(key, value)
    for key in checked:
        if key not in _ACTED_ON and checked[key] != _DEFAULTS[key] and key not in _warned:
            _warned.add(key)
            warnings.warn(
                f"set_auto_parallel_context({key}=...): accepted, but it has no effect in Kiln yet.", stacklevel=2
            )
    _context.update(checked)


def get_auto_parallel_context(attr_key: str):
    """The value of one option.

    Raises:
        ValueError: an unknown option.
    """
    if attr_key == "full_batch_is_set":
        return _context["full_batch"] != _DEFAULTS["full_batch"]
    if attr_key not in _DEFAULTS:
        raise ValueError(f"get_auto_parallel_context: unknown option '{attr_key}'.")
    value = _context[attr_key]
    if attr_key == "device_num" and value is None:
        return _world_value("get_group_size", 1)
    if attr_key == "global_rank" and value is None:
        return _world_value("get_rank", 0)
    return copy.deepcopy(value)


def reset_auto_parallel_context() -> None:
    """Every option back to its default."""
    _context.clear()
    _context.update(copy.deepcopy(_DEFAULTS))


def _world_value(name: str, default: int) -> int:
    if not management.GlobalComm.INITED:
        return default
    return getattr(management, name)()


def parallel_mode() -> str:
    return _context["parallel_mode"]


def is_data_parallel() -> bool:
    """Whether TrainOneStepCell should reduce gradients across ranks (and spread batches over devices)."""
    return _context["parallel_mode"] in (DATA_PARALLEL, HYBRID_PARALLEL, SEMI_AUTO_PARALLEL, AUTO_PARALLEL)


def gradients_mean() -> bool:
    return _context["gradients_mean"]


class _AutoParallelContext:
    """The context as one object, as training scripts reach it through `auto_parallel_context()`."""

    def get_device_num_is_set(self) -> bool:
        """Whether `device_num` was set explicitly (rather than taken from the communication group)."""
        return _context["device_num"] is not None

    def get_parallel_mode(self) -> str:
        return _context["parallel_mode"]

    def get_pipeline_stages(self) -> int:
        return _context["pipeline_stages"]

    def set_all_reduce_fusion_split_indices(self, indices: list[int], group: str = "") -> None:
        """Set where gradient all-reduces are split into fused groups (`all_reduce_fusion_config`)."""
        if not isinstance(indices, (list, tuple)) or not all(isinstance(i, int) for i in indices):
            raise TypeError(f"set_all_reduce_fusion_split_indices: expected a list of ints, but got {indices!r}.")
        set_auto_parallel_context(all_reduce_fusion_config=list(indices))


_context_object = _AutoParallelContext()


def auto_parallel_context() -> _AutoParallelContext:
    """The auto-parallel context as an object (MindSpore scripts call its `get_*` methods)."""
    return _context_object
