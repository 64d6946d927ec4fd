"""Global settings of the data pipeline, as in `mindspore.dataset.config`.

Most settings are one value with one check: the table `_OPTIONS` declares each (its setter's parameter, check,
default and docstrings) and `_accessors` builds its `set_*`/`get_*` pair; the settings that do more than record a
checked value (the seed, autotune's file, error modes, debug hooks, the iterator mode, ...) are written out below.
"""

from __future__ import annotations

import inspect
import json
import os
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum, IntEnum
from typing import Any

import numpy as np

from kiln.dataset import _rng
from kiln.dataset.validator_helpers import check_non_negative_int

_DEFAULT_SEED = 5489  # std::mt19937::default_seed, what MindSpore reports when no seed was set
_MAX_SEED = 2**32 - 1


class ErrorSamplesMode(IntEnum):
    """What the pipeline does with a row whose processing fails (MindSpore's `config.ErrorSamplesMode`).

    Kiln implements RETURN (the error reaches the caller); the others are recorded by
    `set_error_samples_mode` for compatibility.
    """

    RETURN = 0
    REPLACE = 1
    SKIP = 2


def _check_positive_int(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise TypeError(f"{name} must be an int, but got {type(value).__name__}.")
    if value < 1:
        raise ValueError(f"{name} must be a positive int, but got {value}.")
    return int(value)


def _check_bool(value, name: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be a bool, but got {type(value).__name__}.")
    return value


def _check_non_negative_number_as_int(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating) or value < 0:
        raise ValueError(f"{name} must be a non-negative number, but got {value!r}.")
    return int(value)


def _check_choice(*choices: str) -> Callable[[Any, str], str]:
    """A check that accepts only one of `choices`."""

    def check(value, name: str) -> str:
        if value not in choices:
            raise ValueError(f"{name} must be {' or '.join(map(repr, choices))}, but got {value!r}.")
        return value

    return check


@dataclass(frozen=True)
class _Option:
    """One setting: its setter's parameter and type, the check its value passes, and the docstrings' text.

    `check` is None where the setter is written out by hand (it does more than record the value); `label` names
    the value in check messages (the parameter's name unless given); `getter_doc` replaces the usual
    "The value set by `set_<name>` (default ...)."; `param_default` gives the setter's parameter a default.
    """

    param: str
    annotation: str
    default: Any
    check: Callable[[Any, str], Any] | None
    summary: str = ""
    arg_doc: str = ""
    label: str = ""
    getter_doc: str = ""
    param_default: Any = inspect.Parameter.empty


_OPTIONS: dict[str, _Option] = {
    "seed": _Option("seed", "int", None, None),
    "prefetch_size": _Option("size", "int", 4, _check_positive_int, label="prefetch size",
        summary="How many ready items the background thread of an iterator may hold.",
        arg_doc="a positive int; larger hides more latency and holds more memory.",
        getter_doc="The prefetch queue size set by `set_prefetch_size` (default 4)."),
    "num_parallel_workers": _Option("num", "int", 1, _check_positive_int, label="num_parallel_workers",
        summary="The default number of worker threads of `map` when it is not given one.", arg_doc="a positive int.",
        getter_doc="The default number of `map` worker threads (default 1)."),
    "numa_enable": _Option("numa_enable", "bool", False, _check_bool, arg_doc="a bool.",
        summary="Bind pipeline threads to NUMA nodes (recorded; Kiln's threads are not bound)."),
    "monitor_sampling_interval": _Option("interval", "int", 1000, _check_non_negative_number_as_int,
        summary="Sampling interval of the performance monitor in ms (recorded).", arg_doc="a non-negative int."),
    "callback_timeout": _Option("timeout", "int", 60, _check_positive_int, arg_doc="a positive int.",
        summary="Seconds a WaitedDSCallback waits for training to finish a step or epoch before failing."),
    "auto_num_workers": _Option("enable", "bool", False, _check_bool, arg_doc="a bool.",
        summary="Let the pipeline choose the number of workers per op (recorded; Kiln uses the given numbers)."),
    "enable_shared_mem": _Option("enable", "bool", True, _check_bool, arg_doc="a bool.",
        summary="Use shared memory between worker processes (recorded; rows are pickled between processes)."),
    "auto_offload": _Option("offload", "bool", False, _check_bool, arg_doc="a bool.",
        summary="Move eligible ops to the device (recorded; Kiln runs every op on the host)."),
    "enable_autotune": _Option("enable", "bool", False, None),
    "autotune_interval": _Option("interval", "int", 0, check_non_negative_int, arg_doc="a non-negative int.",
        summary="Steps between autotune checks (recorded)."),
    "enable_watchdog": _Option("enable", "bool", True, _check_bool, arg_doc="a bool.",
        summary="Watch worker processes and end the pipeline when one dies (recorded)."),
    "multiprocessing_timeout_interval": _Option("interval", "int", 300, _check_positive_int,
        summary="Seconds between warnings while waiting for a worker process (recorded).", arg_doc="a positive int."),
    "error_samples_mode": _Option("error_samples_mode", "ErrorSamplesMode", ErrorSamplesMode.RETURN, None),
    "debug_mode": _Option("debug_mode_flag", "bool", False, None),
    "fast_recovery": _Option("fast_recovery", "bool", True, _check_bool, arg_doc="a bool.",
        summary="Skip re-running transforms when resuming (recorded)."),
    "dynamic_shape": _Option("is_dynamic", "bool", False, _check_bool, arg_doc="a bool.",
        summary="Declare that batches change shape (recorded)."),
    "sending_batches": _Option("batch_num", "int", 0, None),
    "multiprocessing_start_method": _Option("start_method", "str", "fork", _check_choice("fork", "spawn"),
        param_default="fork", arg_doc='"fork" or "spawn".',
        summary='How `map(python_multiprocessing=True)` starts its worker processes: "fork" or "spawn".'),
    "video_backend": _Option("backend", "str", "CPU", _check_choice("CPU", "Ascend"), arg_doc='"CPU" or "Ascend".',
        summary='The video decoder backend (recorded): "CPU" or "Ascend".'),
    "iterator_mode": _Option("do_copy", "dict", {"do_copy": True, "parallel_convert": False}, None),
}  # fmt: skip

_settings = {name: option.default for name, option in _OPTIONS.items()}


def _shown(default) -> str:
    """`default` as the getters' docstrings write it: False, 1000, "CPU", RETURN."""
    if isinstance(default, Enum):
        return default.name
    return f'"{default}"' if isinstance(default, str) else repr(default)


def _getter(name: str) -> Callable[[], Any]:
    """`get_<name>`: the recorded value of the setting `name`."""
    option = _OPTIONS[name]

    def getter():
        return _settings[name]

    getter.__name__ = getter.__qualname__ = f"get_{name}"
    getter.__doc__ = option.getter_doc or f"The value set by `set_{name}` (default {_shown(option.default)})."
    getter.__annotations__ = {"return": option.annotation}
    return getter


def _accessors(name: str) -> tuple[Callable[..., None], Callable[[], Any]]:
    """`set_<name>` and `get_<name>` for a setting of `_OPTIONS` that its setter only checks and records.

    The setter takes one argument under the option's parameter name (positional or keyword, as a written-out
    function would) and shows that signature to `inspect.signature`.
    """
    option = _OPTIONS[name]
    parameter = inspect.Parameter(
        option.param,
        inspect.Parameter.POSITIONAL_OR_KEYWORD,
        default=option.param_default,
        annotation=option.annotation,
    )
    signature = inspect.Signature([parameter], return_annotation="None")
    setter_name = f"set_{name}"

    def setter(*args, **kwargs) -> None:
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise TypeError(f"{setter_name}() {exc}") from None
        bound.apply_defaults()
        _settings[name] = option.check(bound.arguments[option.param], option.label or option.param)

    setter.__name__ = setter.__qualname__ = setter_name
    setter.__doc__ = f"{option.summary}\n\nArgs:\n    {option.param}: {option.arg_doc}\n"
    setter.__signature__ = signature
    return setter, _getter(name)


def set_seed(seed: int) -> None:
    """Seed every shuffle and random transform of pipelines created afterwards.

    Args:
        seed: an int in [0, 2**32 - 1].
    """
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
        raise TypeError(f"seed must be an int, but got {type(seed).__name__}.")
    if not 0 <= seed <= _MAX_SEED:
        raise ValueError(f"seed must be in [0, {_MAX_SEED}], but got {seed}.")
    _settings["seed"] = int(seed)
    _rng.reseed_eager(int(seed))


def get_seed() -> int:
    """The seed set by `set_seed`, or MindSpore's default seed (5489) when none was set."""
    return _DEFAULT_SEED if _settings["seed"] is None else _settings["seed"]


def pipeline_seed() -> int:
    """The seed one iterator runs with: the set seed, or fresh entropy when none was set.

    Unseeded pipelines are random from run to run, as in MindSpore.
    """
    if _settings["seed"] is not None:
        return _settings["seed"]
    return int(np.random.SeedSequence().entropy % (_MAX_SEED + 1))


set_prefetch_size, get_prefetch_size = _accessors("prefetch_size")
set_num_parallel_workers, get_num_parallel_workers = _accessors("num_parallel_workers")
set_numa_enable, get_numa_enable = _accessors("numa_enable")
set_monitor_sampling_interval, get_monitor_sampling_interval = _accessors("monitor_sampling_interval")
set_callback_timeout, get_callback_timeout = _accessors("callback_timeout")
set_auto_num_workers, get_auto_num_workers = _accessors("auto_num_workers")
set_enable_shared_mem, get_enable_shared_mem = _accessors("enable_shared_mem")
set_auto_offload, get_auto_offload = _accessors("auto_offload")
set_autotune_interval, get_autotune_interval = _accessors("autotune_interval")
set_enable_watchdog, get_enable_watchdog = _accessors("enable_watchdog")
set_multiprocessing_timeout_interval, get_multiprocessing_timeout_interval = _accessors(
    "multiprocessing_timeout_interval"
)
set_fast_recovery, get_fast_recovery = _accessors("fast_recovery")
set_dynamic_shape, get_dynamic_shape = _accessors("dynamic_shape")
set_multiprocessing_start_method, get_multiprocessing_start_method = _accessors("multiprocessing_start_method")
set_video_backend, get_video_backend = _accessors("video_backend")
get_enable_autotune = _getter("enable_autotune")
get_error_samples_mode = _getter("error_samples_mode")
get_debug_mode = _getter("debug_mode")


def set_enable_autotune(enable: bool, filepath_prefix: str | None = None) -> None:
    """Tune workers and queue sizes while running (recorded).

    Args:
        enable: a bool.
        filepath_prefix: where MindSpore writes the tuned configuration: checked when enabling (a str naming a
            file in an existing folder), not written (Kiln does not autotune).
    """
    _check_bool(enable, "enable")
    if filepath_prefix is not None and not isinstance(filepath_prefix, str):
        raise TypeError(f"filepath_prefix must be a str, but got {type(filepath_prefix).__name__}.")
    if filepath_prefix is not None and enable:  # with enable=False the path is ignored
        if not filepath_prefix:
            raise RuntimeError("set_enable_autotune: filepath_prefix cannot be the empty string.")
        if os.path.isdir(filepath_prefix):
            raise RuntimeError(f"set_enable_autotune: filepath_prefix {filepath_prefix!r} is a directory.")
        folder = os.path.dirname(os.path.abspath(filepath_prefix))
        if not os.path.isdir(folder):
            raise RuntimeError(f"set_enable_autotune: Directory {folder!r} does not exist.")
    _settings["enable_autotune"] = enable


def set_error_samples_mode(error_samples_mode: ErrorSamplesMode) -> None:
    """What to do with rows that fail (recorded; Kiln raises, as RETURN, and other modes warn).

    Args:
        error_samples_mode: an ErrorSamplesMode.
    """
    if not isinstance(error_samples_mode, ErrorSamplesMode):
        raise TypeError(f"error_samples_mode must be a config.ErrorSamplesMode, but got {error_samples_mode!r}.")
    if error_samples_mode != ErrorSamplesMode.RETURN:
        warnings.warn(
            f"set_error_samples_mode: {error_samples_mode.name} is recorded, but a row whose processing fails still "
            "raises its error in Kiln (RETURN); catch it around the iterator, or filter such rows out first.",
            UserWarning,
            stacklevel=2,
        )
    _settings["error_samples_mode"] = error_samples_mode


def set_debug_mode(debug_mode_flag: bool, debug_hook_list=None) -> None:
    """Run the pipeline in debug mode (recorded).

    Args:
        debug_mode_flag: a bool.
        debug_hook_list: MindSpore's debug hooks; Kiln's maps never call them, so a non-empty list warns.
    """
    _settings["debug_mode"] = _check_bool(debug_mode_flag, "debug_mode_flag")
    if debug_hook_list:
        warnings.warn(
            f"set_debug_mode: the {len(debug_hook_list)} debug hook(s) are not called; Kiln's map runs the "
            "operations directly (inspect rows with a Python function in map instead).",
            UserWarning,
            stacklevel=2,
        )


def set_sending_batches(batch_num: int) -> None:
    """Batches sent to the device per step in sink mode (recorded).

    Args:
        batch_num: a non-negative int.
    """
    if isinstance(batch_num, bool) or not isinstance(batch_num, int) or batch_num < 0:
        raise TypeError(f"batch_num must be a non-negative int, but got {batch_num!r}.")
    _settings["sending_batches"] = batch_num


def set_iterator_mode(do_copy: bool = True, parallel_convert: bool = False) -> None:
    """How iterators hand out data (recorded).

    Args:
        do_copy: copy each row into a new Tensor.
        parallel_convert: convert rows on a separate thread.
    """
    _settings["iterator_mode"] = {
        "do_copy": _check_bool(do_copy, "do_copy"),
        "parallel_convert": _check_bool(parallel_convert, "parallel_convert"),
    }


def get_iterator_mode() -> dict:
    """The value set by `set_iterator_mode`."""
    return dict(_settings["iterator_mode"])


def load(file) -> None:
    """Read settings from a JSON file with MindSpore's keys (seed, numParallelWorkers, prefetchSize, ...).

    Args:
        file: the path of the JSON file.
    """
    with open(file) as f:
        cfg = json.load(f)
    if "seed" in cfg:
        set_seed(cfg["seed"])
    if "numParallelWorkers" in cfg:
        set_num_parallel_workers(cfg["numParallelWorkers"])
    if "prefetchSize" in cfg or "opConnectorSize" in cfg:
        set_prefetch_size(cfg.get("prefetchSize", cfg.get("opConnectorSize")))
    if "monitorSamplingInterval" in cfg:
        set_monitor_sampling_interval(cfg["monitorSamplingInterval"])
    if "callbackTimeout" in cfg:
        set_callback_timeout(cfg["callbackTimeout"])
