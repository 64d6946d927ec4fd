"""Global execution settings: `set_context`, `get_context`, `set_device`, and the mode constants.

Every value is validated as MindSpore validates it (type, then range), with Kiln's own messages.
Options that Kiln accepts for compatibility but that change nothing here warn once, naming why;
options MindSpore 2.10 removed are refused as MindSpore refuses them.

Kiln adds one option of its own: `runtime_checks` (bool, default True, or False when the environment
has `KILN_CHECKS=off`): the value checks of indices and class labels that ops run with every call.
"""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Callable
from typing import Any

from kiln import _backend as B
from kiln._core import primitive as _primitive
from kiln._core.tensor import LAZY_WINDOWS
from kiln._parallel.context import (  # noqa: F401  (mindspore.context has these too)
    ParallelMode,
    get_auto_parallel_context,
    reset_auto_parallel_context,
    set_auto_parallel_context,
)

GRAPH_MODE = 0
PYNATIVE_MODE = 1
# jit_syntax_level values, as MindSpore numbers them (set_context also takes their names).
STRICT = 0
COMPATIBLE = 1
LAX = 2
# debug_level values.
RELEASE = 0
DEBUG = 1

_SYNTAX_NAMES = {STRICT: "STRICT", COMPATIBLE: "COMPATIBLE", LAX: "LAX"}

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
    "debug_level": RELEASE,
    "jit_config": None,
    "ascend_config": None,
    "gpu_config": None,
    # accepted for MindSpore scripts; none of them changes anything in Kiln
    "variable_memory_max_size": None,
    "mempool_block_size": None,
    "enable_compile_cache": False,
    "compile_cache_path": None,
    "save_compile_cache": False,
    "load_compile_cache": False,
    "inter_op_parallel_num": 0,
    "disable_format_transform": False,
    "aoe_tune_mode": None,
    "aoe_config": None,
    "op_timeout": None,
    "exec_order": None,
    "enable_auto_mixed_precision": False,
    "reserve_class_name_in_scope": True,
    "auto_tune_mode": None,
    "graph_kernel_flags": None,
    "enable_sparse": False,
    "env_config_path": None,
    "profiling_options": None,
    "jit_enable_inplace_ops": False,
    "support_binary": False,
    "enable_profiling": False,
    # Kiln's own
    "runtime_checks": os.environ.get("KILN_CHECKS", "on").strip().lower() not in ("off", "0", "false", "no"),
}
_context: dict[str, Any] = dict(_DEFAULTS)
_context["save_graphs"] = int(os.environ.get("MS_DEV_SAVE_GRAPHS", "0") or 0)
_context["save_graphs_path"] = os.environ.get("MS_DEV_SAVE_GRAPHS_PATH", ".")

# MindSpore 2.10 refuses these (removed options, and Ascend options that belong in ascend_config).
_REMOVED = {
    "grad_for_scalar": "it was removed in MindSpore 2.10: take gradients with respect to tensors",
    "precompile_only": "it was removed in MindSpore 2.10 (MindSpore reads the env MS_DEV_PRECOMPILE_ONLY)",
    "exception_dump": "it was removed in MindSpore 2.6",
}
_ASCEND_ONLY_KEYS = (
    "precision_mode", "jit_compile", "atomic_clean_policy", "matmul_allow_hf32", "conv_allow_hf32",
    "op_precision_mode", "host_scheduling_max_threshold", "ge_options", "op_debug_option",
)  # fmt: skip

# Why an accepted option changes nothing in Kiln; it warns once when set to anything but its default.
_NO_EFFECT = {
    "device_id": "Kiln computes on the first device of the target platform",
    "jit_level": "XLA applies its full optimisation at every level",
    "enable_graph_kernel": "XLA fuses kernels on its own",
    "pynative_synchronize": "Kiln's backend orders launches itself; read a value (asnumpy) to wait for it",
    "max_device_memory": "XLA manages device memory (see XLA_PYTHON_CLIENT_MEM_FRACTION)",
    "memory_optimize_level": "XLA manages device memory",
    "runtime_num_threads": "XLA sizes its own thread pool",
    "check_bprop": "custom bprop outputs are not checked",
    "enable_reduce_precision": "it is an Ascend option",
    "print_file_path": "ops.print writes to standard output",
    "debug_level": "Kiln's graph errors always name the user's line",
    "ascend_config": "it is an Ascend option",
    "gpu_config": "XLA chooses GPU convolution and matmul algorithms",
    "variable_memory_max_size": "it is an Ascend option",
    "mempool_block_size": "XLA manages device memory",
    "enable_compile_cache": "compiled graphs are cached in memory only",
    "compile_cache_path": "compiled graphs are cached in memory only",
    "save_compile_cache": "compiled graphs are cached in memory only",
    "load_compile_cache": "compiled graphs are cached in memory only",
    "inter_op_parallel_num": "XLA schedules operations itself",
    "disable_format_transform": "XLA chooses layouts",
    "aoe_tune_mode": "it is an Ascend option",
    "aoe_config": "it is an Ascend option",
    "op_timeout": "it is an Ascend option",
    "exec_order": "XLA schedules operations itself",
    "enable_auto_mixed_precision": "it is deprecated in MindSpore; use amp",
    "reserve_class_name_in_scope": "Kiln keeps no operator scopes",
    "auto_tune_mode": "it is deprecated in MindSpore",
    "graph_kernel_flags": "XLA fuses kernels on its own",
    "enable_sparse": "it is deprecated in MindSpore",
    "env_config_path": "Kiln reads no MindSpore dump configuration",
    "profiling_options": "Kiln has no MindSpore profiler",
    "jit_enable_inplace_ops": "XLA decides buffer reuse",
    "support_binary": "graph mode reads the Python source",
    "enable_profiling": "Kiln has no MindSpore profiler",
}
_warned: set[str] = set()


def _fail(key: str, message: str, kind: type[Exception] = ValueError) -> Exception:
    return kind(f"For 'set_context', '{key}' {message}")


def _kind(value) -> str:
    return f"{type(value).__name__} {value!r}"


def _bool(key: str, value):
    if not isinstance(value, bool):
        raise _fail(key, f"must be a bool, but got {_kind(value)}.", TypeError)
    return value


def _int(lo: int | None = None, hi: int | None = None, optional: bool = False) -> Callable:
    def check(key: str, value):
        if optional and value is None:
            return value
        if not isinstance(value, int) or isinstance(value, bool):
            raise _fail(key, f"must be an int, but got {_kind(value)}.", TypeError)
        if lo is not None and value < lo or hi is not None and value > hi:
            if hi is None:
                want = "a positive int" if lo == 1 else f"an int >= {lo}"
            else:
                want = f"an int in [{lo}, {hi}]"
            raise _fail(key, f"must be {want}, but got {value}.")
        return value

    return check


def _choice(*options, optional: bool = False) -> Callable:
    def check(key: str, value):
        if optional and value is None:
            return value
        if not isinstance(value, str):
            raise _fail(key, f"must be a str, one of {list(options)}, but got {_kind(value)}.", TypeError)
        if value not in options:
            raise _fail(key, f"must be one of {list(options)}, but got {value!r}.")
        return value

    return check


def _str(key: str, value):
    if value is None:
        return value
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if not isinstance(value, str):
        raise _fail(key, f"must be a str, but got {_kind(value)}.", TypeError)
    return value


def _dict(key: str, value):
    if value is not None and not isinstance(value, dict):
        raise _fail(key, f"must be a dict, but got {_kind(value)}.", TypeError)
    return value


def _gigabytes(minimum: float) -> Callable:
    def check(key: str, value):
        if value is None:
            return value
        if not isinstance(value, str):
            raise _fail(key, f"must be a str such as '3.5GB', but got {_kind(value)}.", TypeError)
        if not re.fullmatch(r"\d+(\.\d*)?GB", value):
            raise _fail(key, f"must be a size in gigabytes such as '3GB' or '3.5GB', but got {value!r}.")
        if float(value[:-2]) <= 0 or float(value[:-2]) < minimum:
            want = f"at least {minimum:g}GB" if minimum else "more than 0GB"
            raise _fail(key, f"must be {want}, but got {value!r}.")
        return value

    return check


def _mode(key: str, value):
    if not isinstance(value, int) or isinstance(value, bool):
        raise _fail(key, f"must be GRAPH_MODE (0) or PYNATIVE_MODE (1), but got {_kind(value)}.", TypeError)
    if value not in (GRAPH_MODE, PYNATIVE_MODE):
        raise _fail(key, f"must be GRAPH_MODE (0) or PYNATIVE_MODE (1), but got {value}.")
    return value


def _device_target(key: str, value):
    if not isinstance(value, str):
        raise _fail(key, f"must be a str, 'CPU', 'GPU' or 'Ascend', but got {_kind(value)}.", TypeError)
    target = {"cpu": "CPU", "gpu": "GPU", "ascend": "Ascend", "davinci": "Ascend"}.get(value.lower())
    if target is None:
        raise _fail(key, f"must be 'CPU', 'GPU' or 'Ascend', but got {value!r}.")
    available = ["CPU"] + (["GPU"] if B.devices("gpu") else [])
    if target not in available:
        why = "Kiln runs on CPUs and NVIDIA GPUs" if target == "Ascend" else "no usable GPU was found"
        raise _fail(key, f"{target!r} is not available: {why}. This process can run on: {available}.", RuntimeError)
    return target


def _save_graphs(key: str, value):
    if isinstance(value, bool):
        return 2 if value else 0
    if not isinstance(value, int):
        raise _fail(key, f"must be a bool or an int in [0, 3], but got {_kind(value)}.", TypeError)
    if not 0 <= value <= 3:
        raise _fail(key, f"must be an int in [0, 3] (or a bool), but got {value}.")
    return value


def _syntax_level(key: str, value):
    if value is None:
        return value
    if isinstance(value, int) and not isinstance(value, bool) and value in _SYNTAX_NAMES:
        return _SYNTAX_NAMES[value]
    if isinstance(value, str) and value.upper() in _SYNTAX_NAMES.values():
        return value.upper()
    raise _fail(key, f"must be STRICT (0), COMPATIBLE (1) or LAX (2), but got {_kind(value)}.")


def _debug_level(key: str, value):
    if not isinstance(value, int) or isinstance(value, bool) or value not in (RELEASE, DEBUG):
        raise _fail(key, f"must be RELEASE (0) or DEBUG (1), but got {_kind(value)}.")
    return value


def _jit_config(key: str, value):
    if value is None:
        return value
    _dict(key, value)
    allowed = {"jit_level": ("O0", "O1", "O2"), "infer_boost": ("on", "off")}
    for k, v in value.items():
        if k not in allowed:
            raise _fail(key, f"accepts the keys {list(allowed)}, but got {k!r}.")
        if v not in allowed[k]:
            raise _fail(key, f"needs {k!r} to be one of {list(allowed[k])}, but got {v!r}.")
    if value.get("infer_boost") == "on" and value.get("jit_level", "O0") != "O0":
        raise _fail(key, "can turn 'infer_boost' on only with jit_level 'O0'.")
    return dict(value)


def _env_config_path(key: str, value):
    value = _str(key, value)
    if value is not None and not os.path.isfile(value):
        raise _fail(key, f"names a file that does not exist: {value!r}.")
    return value


_VALIDATE: dict[str, Callable] = {
    "mode": _mode,
    "device_target": _device_target,
    "device_id": _int(0, 4095),
    "save_graphs": _save_graphs,
    "save_graphs_path": _str,
    "jit_level": _choice("O0", "O1", "O2"),
    "jit_syntax_level": _syntax_level,
    "max_call_depth": _int(1),
    "enable_graph_kernel": _bool,
    "deterministic": _choice("ON", "OFF"),
    "pynative_synchronize": _bool,
    "max_device_memory": _gigabytes(0),
    "memory_optimize_level": _choice("O0", "O1"),
    "runtime_num_threads": _int(0, optional=True),
    "check_bprop": _bool,
    "enable_reduce_precision": _bool,
    "print_file_path": _str,
    "debug_level": _debug_level,
    "jit_config": _jit_config,
    "ascend_config": _dict,
    "gpu_config": _dict,
    "variable_memory_max_size": _gigabytes(0),
    "mempool_block_size": _gigabytes(1),
    "enable_compile_cache": _bool,
    "compile_cache_path": _str,
    "save_compile_cache": _bool,
    "load_compile_cache": _bool,
    "inter_op_parallel_num": _int(0),
    "disable_format_transform": _bool,
    "aoe_tune_mode": _choice("online", "offline", optional=True),
    "aoe_config": _dict,
    "op_timeout": _int(0, optional=True),
    "exec_order": _choice("bfs", "dfs", optional=True),
    "enable_auto_mixed_precision": _bool,
    "reserve_class_name_in_scope": _bool,
    "auto_tune_mode": _str,
    "graph_kernel_flags": _str,
    "enable_sparse": _bool,
    "env_config_path": _env_config_path,
    "profiling_options": _str,
    "jit_enable_inplace_ops": _bool,
    "support_binary": _bool,
    "enable_profiling": _bool,
    "runtime_checks": _bool,
}


_GPU_DETERMINISM = (
    "set_context(deterministic='ON'): XLA reads its GPU switch for deterministic kernels when the process starts; "
    "start Python with XLA_FLAGS=--xla_gpu_deterministic_ops=true for bit-identical GPU runs."
)


def _kiln_does_it(key: str, value) -> bool:
    """True when `value` asks for what Kiln does anyway (the option's default)."""
    if key == "jit_config":
        return not value or (value.get("jit_level", "O0") == "O0" and value.get("infer_boost", "off") == "off")
    return value == _DEFAULTS[key]


def set_context(**kwargs) -> None:
    """Set global options, validated as MindSpore validates them.

    `mode` (GRAPH_MODE or PYNATIVE_MODE), `device_target` ("CPU", "GPU"; "Ascend" is refused),
    `save_graphs` (0-3), `save_graphs_path`, `jit_syntax_level` (STRICT, COMPATIBLE, LAX), ...,
    and Kiln's own `runtime_checks` (bool: index and label value checks; default on).

    Raises:
        ValueError: an unknown option, a value out of range, or an option MindSpore 2.10 removed.
        TypeError: a value of the wrong type.
        RuntimeError: a device that this machine does not have.

    Options Kiln accepts but that change nothing here (Ascend options, memory and thread
    tuning...) warn once when given a value other than their default.
    """
    for key in kwargs:
        if key in _REMOVED:
            raise ValueError(f"For 'set_context', '{key}' is not accepted: {_REMOVED[key]}.")
        if key in _ASCEND_ONLY_KEYS:
            raise ValueError(f"For 'set_context', '{key}' is an Ascend option; it belongs inside 'ascend_config'.")
        if key not in _VALIDATE:
            raise ValueError(f"set_context() got an unknown option '{key}'. Known options: {sorted(_VALIDATE)}.")
    for key, value in kwargs.items():  # nothing is set unless every option is valid
        kwargs[key] = _VALIDATE[key](key, value)
    for key, value in kwargs.items():
        if key == "device_target":
            B.set_platform(value)
        elif key == "deterministic":
            B.tiers.set_reproducible(value == "ON")
            if value == "ON" and "deterministic" not in _warned and B.default_platform() == "gpu":
                if "xla_gpu_deterministic_ops" not in os.environ.get("XLA_FLAGS", ""):
                    _warned.add("deterministic")
                    warnings.warn(_GPU_DETERMINISM, stacklevel=2)
        elif key == "runtime_checks":
            for window in LAZY_WINDOWS:  # ops PyNative recorded under the old setting run under it
                window.flush()
            _primitive.set_checks(value)
        _context[key] = value
        if key in _NO_EFFECT and key not in _warned and not _kiln_does_it(key, value):
            _warned.add(key)
            warnings.warn(f"set_context({key}={value!r}) has no effect in Kiln: {_NO_EFFECT[key]}.", stacklevel=2)


def get_context(attr_key: str):
    """The value of one option set by `set_context`."""
    if attr_key not in _context:
        raise ValueError(f"get_context() got an unknown option '{attr_key}'.")
    return _context[attr_key]


def set_device(device_target: str, device_id: int | None = None) -> None:
    """Choose the device ("CPU" or "GPU") for later computation."""
    if device_id is None:
        set_context(device_target=device_target)
    else:
        set_context(device_target=device_target, device_id=device_id)


def reset_context() -> None:
    """Restore every option to its default."""
    _context.clear()
    _context.update(_DEFAULTS)
    _primitive.set_checks(_DEFAULTS["runtime_checks"])
    B.tiers.set_reproducible(False)


# -- parameter-server settings ----------------------------------------------------------------------------------

# MindSpore 2.10's keys and defaults. The passwords can be set, not read back.
_PS_DEFAULTS: dict[str, Any] = {
    "enable_ps": False,
    "config_file_path": "",
    "enable_ssl": False,
    "client_password": "",
    "server_password": "",
    "ms_role": "MS_NOT_PS",
    "worker_num": 0,
    "server_num": 0,
    "scheduler_ip": "127.0.0.1",
    "scheduler_port": 6667,
}
_PS_WRITE_ONLY = ("client_password", "server_password")
_PS_SERVER_ROLES = ("MS_PSERVER", "MS_SERVER", "MS_SCHED")
_ps_context: dict[str, Any] = dict(_PS_DEFAULTS)


def set_ps_context(**kwargs) -> None:
    """Parameter-server training settings, checked and kept.

    Kiln has no parameter server. With `enable_ps=True` in a process that has no server role (MS_ROLE unset or a
    worker's), training runs in this process as it would without the option, which is what MindSpore does when no
    MS_ROLE is set: Kiln says so once. A process started as a server or scheduler (MS_ROLE=MS_PSERVER, MS_SERVER
    or MS_SCHED) is refused, since no worker would ever reach it.

    Raises:
        ValueError: an unknown key.
        TypeError: a value of the wrong type.
        NotImplementedError: enable_ps=True in a server or scheduler process.
    """
    for key, value in kwargs.items():
        if key not in _PS_DEFAULTS:
            raise ValueError(f"set_ps_context: unknown key {key!r}; expected one of {sorted(_PS_DEFAULTS)}.")
        wanted = type(_PS_DEFAULTS[key])
        if type(value) is not wanted:
            raise TypeError(f"set_ps_context: {key!r} must be a {wanted.__name__}, but got {_kind(value)}.")
    role = kwargs.get("ms_role", os.environ.get("MS_ROLE", _ps_context["ms_role"]))
    if kwargs.get("enable_ps") and role in _PS_SERVER_ROLES:
        raise NotImplementedError(
            f"set_ps_context(enable_ps=True) in a {role} process: Kiln has no parameter server or scheduler. "
            "Train in one process, or data-parallel with set_auto_parallel_context(parallel_mode='data_parallel')."
        )
    if kwargs.get("enable_ps") and "enable_ps" not in _warned:
        _warned.add("enable_ps")
        warnings.warn(
            "set_ps_context(enable_ps=True): Kiln has no parameter server, so the parameters stay in this process "
            "and training runs as without the option (MindSpore does the same when no MS_ROLE is set).",
            stacklevel=2,
        )
    _ps_context.update(kwargs)


def get_ps_context(attr_key: str):
    """The parameter-server setting `attr_key` (its default unless set); the passwords cannot be read."""
    if attr_key not in _PS_DEFAULTS or attr_key in _PS_WRITE_ONLY:
        readable = sorted(k for k in _PS_DEFAULTS if k not in _PS_WRITE_ONLY)
        raise ValueError(f"get_ps_context: unknown key {attr_key!r}; expected one of {readable}.")
    return _ps_context[attr_key]


def reset_ps_context() -> None:
    """Every parameter-server setting back to its default."""
    _ps_context.clear()
    _ps_context.update(_PS_DEFAULTS)
