"""Options of the sharding search's cost model (MindSpore's `mindspore.parallel._cost_model_context`).

Kept and read back; Kiln has no cost model of its own (XLA's SPMD partitioner places what the user's `shard`
strategies leave open), so they change no computed value.
"""

from __future__ import annotations

__all__ = ["_get_multi_subgraphs", "_set_multi_subgraphs"]

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
