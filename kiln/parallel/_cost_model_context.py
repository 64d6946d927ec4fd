"""Options of the sharding search's cost model (MindSpore's `mindspore.parallel._cost_model_context`).

Kept and read back; Kiln has no cost model of its own (XLA's SPMD partitioner places what the user's `shard`
strategies leave open), so they change no computed value, and setting one says so once.
"""

from __future__ import annotations

from kiln._core.unsupported import warn_once

__all__ = [
    "_get_multi_subgraphs", "_set_multi_subgraphs", "get_cost_model_context", "reset_cost_model_context",
    "set_cost_model_context",
]  # fmt: skip

# MindSpore 2.10's keys and defaults (costmodel_gamma is its float32 0.001 read back as a Python float)
_COST_MODEL_DEFAULTS: dict[str, float | int] = {
    "device_memory_capacity": 16.0 * 1024**3,
    "costmodel_alpha": 1.0,
    "costmodel_beta": 400.0,
    "costmodel_gamma": 0.0010000000474974513,
    "costmodel_communi_threshold": 2048.0,
    "costmodel_communi_const": 3072.0,
    "costmodel_communi_bias": 1024.0,
    "run_phase": 0,
    "costmodel_allreduce_fusion_algorithm": 0,
    "costmodel_allreduce_fusion_times": 0,
    "costmodel_allreduce_fusion_tail_percent": 0.1,
    "costmodel_allreduce_fusion_tail_time": 0.1,
    "costmodel_allreduce_fusion_allreduce_inherent_time": 0.1,
    "costmodel_allreduce_fusion_allreduce_bandwidth": 0.1,
    "costmodel_allreduce_fusion_computation_time_parameter": 0.1,
}
_cost_model = dict(_COST_MODEL_DEFAULTS)


def set_cost_model_context(**kwargs) -> None:
    """Set options of MindSpore's strategy-search cost model: checked and kept, with no effect in Kiln (said once).

    Raises:
        ValueError: an unknown key, or `run_phase` other than 0 (training) or 1 (inference).
        TypeError: a value of the wrong type (the float options take a float, the others an int).
    """
    for key, value in kwargs.items():
        if key not in _COST_MODEL_DEFAULTS:
            raise ValueError(
                f"set_cost_model_context: unknown key {key!r}; expected one of {sorted(_COST_MODEL_DEFAULTS)}."
            )
        wanted = type(_COST_MODEL_DEFAULTS[key])
        if type(value) is not wanted:
            raise TypeError(f"set_cost_model_context: {key!r} must be a {wanted.__name__}, but got {value!r}.")
        if key == "run_phase" and value not in (0, 1):
            raise ValueError(f"set_cost_model_context: 'run_phase' must be 0 (training) or 1 (inference), got {value}.")
    if kwargs:
        warn_once(
            ("cost model", ""),
            "set_cost_model_context has no effect in Kiln: it has no strategy-search cost model (XLA's SPMD "
            "partitioner places what shard strategies leave open); the values are kept and read back.",
        )
    _cost_model.update(kwargs)


def get_cost_model_context(attr_key: str):
    """The cost-model option `attr_key` (MindSpore's default unless set)."""
    if attr_key not in _cost_model:
        raise ValueError(f"get_cost_model_context: unknown key {attr_key!r}; expected one of {sorted(_cost_model)}.")
    return _cost_model[attr_key]


def reset_cost_model_context() -> None:
    """Every cost-model option back to its default."""
    _cost_model.clear()
    _cost_model.update(_COST_MODEL_DEFAULTS)


_multi_subgraphs = False


def _set_multi_subgraphs(multi_subgraph: bool = True) -> None:
    """Record whether the network is searched as several subgraphs (networks with a loss-scale `while`)."""
    global _multi_subgraphs
    if not isinstance(multi_subgraph, bool):
        raise TypeError(f"_set_multi_subgraphs: expected a bool, but got {type(multi_subgraph).__name__}.")
    _multi_subgraphs = multi_subgraph


def _get_multi_subgraphs() -> bool:
    """The value `_set_multi_subgraphs` recorded (False by default)."""
    return _multi_subgraphs
