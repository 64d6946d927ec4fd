"""Global execution settings: `set_context`, `get_context`, `set_device`, and the mode constants."""

from __future__ import annotations

import os
from typing import Any

from kiln import _backend as B

GRAPH_MODE = 0
PYNATIVE_MODE = 1

_DEFAULTS: dict[str, Any] = {
    "mode": PYNATIVE_MODE,
    "device_target": "GPU" if B.default_platform() == "gpu" else "CPU",
    "device_id": 0,
    "save_graphs": 0,
    "save_graphs_path": ".",
    "jit_level": "O0",
    "jit_syntax_level": None,
    "max_call_depth": 1000,
    "enable_graph_kernel": False,
    "deterministic": "OFF",
    "pynative_synchronize": False,
    "max_device_memory": None,
    "memory_optimize_level": "O0",
    "runtime_num_threads": None,
    "check_bprop": False,
    "enable_reduce_precision": True,
    "print_file_path": None,
    "debug_level": 0,
    "jit_config": None,
    "ascend_config": None,
    "gpu_config": None,
}
_context: dict[str, Any] = dict(_DEFAULTS)
_context["save_graphs"] = int(os.environ.get("MS_DEV_SAVE_GRAPHS", "0") or 0)
_context["save_graphs_path"] = os.environ.get("MS_DEV_SAVE_GRAPHS_PATH", ".")


def set_context(**kwargs) -> None:
    """Set global options: `mode` (GRAPH_MODE or PYNATIVE_MODE), `device_target` ("CPU", "GPU"), ...

    Unknown keys raise ValueError so a typo does not pass silently.
    """
    for key, value in kwargs.items():
        if key not in _DEFAULTS:
            raise ValueError(f"set_context() got an unknown option '{key}'. Known options: {sorted(_DEFAULTS)}.")
        if key == "mode" and value not in (GRAPH_MODE, PYNATIVE_MODE):
            raise ValueError(f"'mode' must be GRAPH_MODE (0) or PYNATIVE_MODE (1), but got {value!r}.")
        if key == "device_target":
            B.set_platform(value)
            value = value.upper() if value.lower() in ("cpu", "gpu") else value
        if key == "save_graphs":
            value = int(value)
        _context[key] = value


def get_context(attr_key: str):
    """The value of one option set by `set_context`."""
    if attr_key not in _context:
        raise ValueError(f"get_context() got an unknown option '{attr_key}'.")
    return _context[attr_key]


def set_device(device_target: str, device_id: int | None = None) -> None:
    """Choose the device ("CPU" or "GPU") for later computation."""
    set_context(device_target=device_target)
    if device_id is not None:
        _context["device_id"] = device_id


def reset_context() -> None:
    """Restore every option to its default."""
    _context.clear()
    _context.update(_DEFAULTS)


class ParallelMode:
    STAND_ALONE = "stand_alone"
    DATA_PARALLEL = "data_parallel"
    SEMI_AUTO_PARALLEL = "semi_auto_parallel"
    AUTO_PARALLEL = "auto_parallel"
