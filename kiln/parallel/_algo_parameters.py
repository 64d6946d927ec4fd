"""`set_algo_parameters` / `get_algo_parameters` / `reset_algo_parameters`: options of the sharding search.

MindSpore searches operator sharding strategies itself; Kiln leaves the unsharded part of a program to XLA's SPMD
partitioner (see `_auto_parallel_context`). The options are checked, kept and read back; they steer no search, so
setting one away from its default warns once.
"""

from __future__ import annotations

import copy
from typing import Any

from kiln._core.unsupported import ignore_argument

__all__ = ["get_algo_parameters", "reset_algo_parameters", "set_algo_parameters"]

_DEFAULTS: dict[str, Any] = {
    "fully_use_devices": False,
    "elementwise_op_strategy_follow": False,
    "enable_algo_approxi": False,
    "algo_approxi_epsilon": 0.1,
    "tensor_slice_align_enable": False,
    "tensor_slice_align_size": 16,
}
_parameters: dict[str, Any] = copy.deepcopy(_DEFAULTS)


def set_algo_parameters(**kwargs: Any) -> None:
    """Set options of the sharding-strategy search (kept and read back; Kiln's partitioner is XLA's).

    Args:
        kwargs: `fully_use_devices`, `elementwise_op_strategy_follow`, `enable_algo_approxi` (bools),
            `algo_approxi_epsilon` (a float in (0, 1]), `tensor_slice_align_enable` (bool),
            `tensor_slice_align_size` (an int in [1, 1024]).

    Raises:
        ValueError: an unknown option or a value out of range.
        TypeError: a value of the wrong type.
    """
    checked = {key: _check(key, value) for key, value in kwargs.items()}
    for key, value in checked.items():
        ignore_argument("set_algo_parameters", key, value, _DEFAULTS[key], reason="XLA's SPMD partitioner decides")
    _parameters.update(checked)


def get_algo_parameters(attr_key: str) -> Any:
    """The value of one option of `set_algo_parameters`.

    Raises:
        ValueError: an unknown option.
    """
    if attr_key not in _DEFAULTS:
        raise ValueError(f"get_algo_parameters: unknown option '{attr_key}'; known: {', '.join(_DEFAULTS)}.")
    return _parameters[attr_key]


def reset_algo_parameters() -> None:
    """Every option of `set_algo_parameters` back to its default."""
    _parameters.clear()
    _parameters.update(copy.deepcopy(_DEFAULTS))


def _check(key: str, value: Any) -> Any:
    if key not in _DEFAULTS:
        raise ValueError(f"set_algo_parameters: unknown option '{key}'; known: {', '.join(_DEFAULTS)}.")
    if key == "algo_approxi_epsilon":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"set_algo_parameters: '{key}' must be a float, but got {type(value).__name__}.")
        if not 0 < value <= 1:
            raise ValueError(f"set_algo_parameters: '{key}' must be in (0, 1], but got {value}.")
        return float(value)
    if key == "tensor_slice_align_size":
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"set_algo_parameters: '{key}' must be an int, but got {type(value).__name__}.")
        if not 1 <= value <= 1024:
            raise ValueError(f"set_algo_parameters: '{key}' must be in [1, 1024], but got {value}.")
        return value
    if not isinstance(value, bool):
        raise TypeError(f"set_algo_parameters: '{key}' must be a bool, but got {type(value).__name__}.")
    return value
