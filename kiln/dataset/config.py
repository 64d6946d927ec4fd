"""Global settings of the data pipeline, as in `mindspore.dataset.config`."""

from __future__ import annotations

import json
import os
import warnings
from enum import IntEnum

import numpy as np

from kiln.dataset import _rng

_DEFAULT_SEED = 5489  # std::mt19937::default_seed, what MindSpore reports when no seed was set
_MAX_SEED = 2**32 - 1

_state = {"seed": None, "prefetch_size": 4, "num_parallel_workers": 1}


def _check_positive_int(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise TypeError(f"{name} must be an int, but got {type(value).__name__}.")
    if value < 1:
        raise ValueError(f"{name} must be a positive int, but got {value}.")
    return int(value)


def set_seed(seed: int) -> None:
    """Seed every shuffle and random transform of pipelines created afterwards.

    Args:
        seed: an int in [0, 2**32 - 1].
    """
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
        raise TypeError(f"seed must be an int, but got {type(seed).__name__}.")
    if not 0 <= seed <= _MAX_SEED:
        raise ValueError(f"seed must be in [0, {_MAX_SEED}], but got {seed}.")
    _state["seed"] = int(seed)
    _rng.reseed_eager(int(seed))


def get_seed() -> int:
    """The seed set by `set_seed`, or MindSpore's default seed (5489) when none was set."""
    return _DEFAULT_SEED if _state["seed"] is None else _state["seed"]


def set_prefetch_size(size: int) -> None:
    """How many ready items the background thread of an iterator may hold.

    Args:
        size: a positive int; larger hides more latency and holds more memory.
    """
    _state["prefetch_size"] = _check_positive_int(size, "prefetch size")


def get_prefetch_size() -> int:
    """The prefetch queue size set by `set_prefetch_size` (default 4)."""
    return _state["prefetch_size"]


def set_num_parallel_workers(num: int) -> None:
    """The default number of worker threads of `map` when it is not given one.

    Args:
        num: a positive int.
    """
    _state["num_parallel_workers"] = _check_positive_int(num, "num_parallel_workers")


def get_num_parallel_workers() -> int:
    """The default number of `map` worker threads (default 1)."""
    return _state["num_parallel_workers"]


def pipeline_seed() -> int:
    """The seed one iterator runs with: the set seed, or fresh entropy when none was set.

    Unseeded pipelines are random from run to run, as in MindSpore.
    """
    if _state["seed"] is not None:
        return _state["seed"]
    return int(np.random.SeedSequence().entropy % (_MAX_SEED + 1))


class ErrorSamplesMode(IntEnum):
    """What the pipeline does with a row whose processing fails (MindSpore's `config.ErrorSamplesMode`).

    Kiln implements RETURN (the error reaches the caller); the others are recorded by
    `set_error_samples_mode` for compatibility.
    """

    RETURN = 0
    REPLACE = 1
    SKIP = 2


def _check_bool(value, name: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be a bool, but got {type(value).__name__}.")
    return value


def _check_nonneg_number(value, name: str):
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating) or value < 0:
        raise ValueError(f"{name} must be a non-negative number, but got {value!r}.")
    return value


_settings = {
    "numa_enable": False,
    "monitor_sampling_interval": 1000,
    "callback_timeout": 60,
    "auto_num_workers": False,
    "enable_shared_mem": True,
    "auto_offload": False,
    "enable_autotune": False,
    "autotune_interval": 0,
    "enable_watchdog": True,
    "multiprocessing_timeout_interval": 300,
    "error_samples_mode": ErrorSamplesMode.RETURN,
    "debug_mode": False,
    "fast_recovery": True,
    "dynamic_shape": False,
    "sending_batches": 0,
    "multiprocessing_start_method": "fork",
    "video_backend": "CPU",
    "iterator_mode": {"do_copy": True, "parallel_convert": False},
}


def set_numa_enable(numa_enable: bool) -> None:
    """Bind pipeline threads to NUMA nodes (recorded; Kiln's threads are not bound).

    Args:
        numa_enable: a bool.
    """
    _settings["numa_enable"] = _check_bool(numa_enable, "numa_enable")


def get_numa_enable() -> bool:
    """The value set by `set_numa_enable` (default False)."""
    return _settings["numa_enable"]


def set_monitor_sampling_interval(interval: int) -> None:
    """Sampling interval of the performance monitor in ms (recorded).

    Args:
        interval: a non-negative int.
    """
    _settings["monitor_sampling_interval"] = int(_check_nonneg_number(interval, "interval"))


def get_monitor_sampling_interval() -> int:
    """The value set by `set_monitor_sampling_interval` (default 1000)."""
    return _settings["monitor_sampling_interval"]


def set_callback_timeout(timeout: int) -> None:
    """Seconds a WaitedDSCallback waits for training to finish a step or epoch before failing.

    Args:
        timeout: a positive int.
    """
    _settings["callback_timeout"] = _check_positive_int(timeout, "timeout")


def get_callback_timeout() -> int:
    """The value set by `set_callback_timeout` (default 60)."""
    return _settings["callback_timeout"]


def set_auto_num_workers(enable: bool) -> None:
    """Let the pipeline choose the number of workers per op (recorded; Kiln uses the given numbers).

    Args:
        enable: a bool.
    """
    _settings["auto_num_workers"] = _check_bool(enable, "enable")


def get_auto_num_workers() -> bool:
    """The value set by `set_auto_num_workers` (default False)."""
    return _settings["auto_num_workers"]


def set_enable_shared_mem(enable: bool) -> None:
    """Use shared memory between worker processes (recorded; rows are pickled between processes).

    Args:
        enable: a bool.
    """
    _settings["enable_shared_mem"] = _check_bool(enable, "enable")


def get_enable_shared_mem() -> bool:
    """The value set by `set_enable_shared_mem` (default True)."""
    return _settings["enable_shared_mem"]


def set_auto_offload(offload: bool) -> None:
    """Move eligible ops to the device (recorded; Kiln runs every op on the host).

    Args:
        offload: a bool.
    """
    _settings["auto_offload"] = _check_bool(offload, "offload")


def get_auto_offload() -> bool:
    """The value set by `set_auto_offload` (default False)."""
    return _settings["auto_offload"]


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


def get_enable_autotune() -> bool:
    """The value set by `set_enable_autotune` (default False)."""
    return _settings["enable_autotune"]


def set_autotune_interval(interval: int) -> None:
    """Steps between autotune checks (recorded).

    Args:
        interval: a non-negative int.
    """
    if isinstance(interval, bool) or not isinstance(interval, int):
        raise TypeError(f"interval must be an int, but got {type(interval).__name__}.")
    if interval < 0:
        raise ValueError(f"interval must be a non-negative int, but got {interval!r}.")
    _settings["autotune_interval"] = interval


def get_autotune_interval() -> int:
    """The value set by `set_autotune_interval` (default 0)."""
    return _settings["autotune_interval"]


def set_enable_watchdog(enable: bool) -> None:
    """Watch worker processes and end the pipeline when one dies (recorded).

    Args:
        enable: a bool.
    """
    _settings["enable_watchdog"] = _check_bool(enable, "enable")


def get_enable_watchdog() -> bool:
    """The value set by `set_enable_watchdog` (default True)."""
    return _settings["enable_watchdog"]


def set_multiprocessing_timeout_interval(interval: int) -> None:
    """Seconds between warnings while waiting for a worker process (recorded).

    Args:
        interval: a positive int.
    """
    _settings["multiprocessing_timeout_interval"] = _check_positive_int(interval, "interval")


def get_multiprocessing_timeout_interval() -> int:
    """The value set by `set_multiprocessing_timeout_interval` (default 300)."""
    return _settings["multiprocessing_timeout_interval"]


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


def get_error_samples_mode() -> ErrorSamplesMode:
    """The value set by `set_error_samples_mode` (default RETURN)."""
    return _settings["error_samples_mode"]


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


def get_debug_mode() -> bool:
    """The value set by `set_debug_mode` (default False)."""
    return _settings["debug_mode"]


def set_fast_recovery(fast_recovery: bool) -> None:
    """Skip re-running transforms when resuming (recorded).

    Args:
        fast_recovery: a bool.
    """
    _settings["fast_recovery"] = _check_bool(fast_recovery, "fast_recovery")


def get_fast_recovery() -> bool:
    """The value set by `set_fast_recovery` (default True)."""
    return _settings["fast_recovery"]


def set_dynamic_shape(is_dynamic: bool) -> None:
    """Declare that batches change shape (recorded).

    Args:
        is_dynamic: a bool.
    """
    _settings["dynamic_shape"] = _check_bool(is_dynamic, "is_dynamic")


def get_dynamic_shape() -> bool:
    """The value set by `set_dynamic_shape` (default False)."""
    return _settings["dynamic_shape"]


def set_sending_batches(batch_num: int) -> None:
    """Batches sent to the device per step in sink mode (recorded).

    Args:
        batch_num: a non-negative int.
    """
    if isinstance(batch_num, bool) or not isinstance(batch_num, int) or batch_num < 0:
        raise TypeError(f"batch_num must be a non-negative int, but got {batch_num!r}.")
    _settings["sending_batches"] = batch_num


def set_multiprocessing_start_method(start_method: str = "fork") -> None:
    """How `map(python_multiprocessing=True)` starts its worker processes: "fork" or "spawn".

    Args:
        start_method: "fork" or "spawn".
    """
    if start_method not in ("fork", "spawn"):
        raise ValueError(f"start_method must be 'fork' or 'spawn', but got {start_method!r}.")
    _settings["multiprocessing_start_method"] = start_method


def get_multiprocessing_start_method() -> str:
    """The value set by `set_multiprocessing_start_method` (default "fork")."""
    return _settings["multiprocessing_start_method"]


def set_video_backend(backend: str) -> None:
    """The video decoder backend (recorded): "CPU" or "Ascend".

    Args:
        backend: "CPU" or "Ascend".
    """
    if backend not in ("CPU", "Ascend"):
        raise ValueError(f"backend must be 'CPU' or 'Ascend', but got {backend!r}.")
    _settings["video_backend"] = backend


def get_video_backend() -> str:
    """The value set by `set_video_backend` (default "CPU")."""
    return _settings["video_backend"]


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
