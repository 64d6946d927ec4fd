"""MindSpore's runtime controls (`mindspore.runtime`, exported at the top level): streams, events, device
memory statistics, synchronisation, the profiler, and the executor settings that have no effect on XLA.

XLA runs the work of one device in order on one compute stream, so Kiln has one stream per device:
`Stream()` objects exist for source compatibility and all name that stream; `synchronize()` waits for the
work queued so far to finish. Memory statistics come from the device's allocator where the backend reports
them (GPU); on CPU the backend keeps no pool and every figure is 0.
"""

from __future__ import annotations

import gc
import inspect
import os
import sys
import time

import numpy as np

from kiln import ops
from kiln._backend import default_platform, devices
from kiln._backend.device_work import (
    devices_idle,
    drop_compiled_programs,
    on_device,
    start_trace,
    stop_trace,
    unfinished_arrays,
    wait_for_devices,
)
from kiln._core.tensor import LAZY_WINDOWS, Tensor
from kiln._core.unsupported import ignore_argument
from kiln.context import get_ps_context, reset_ps_context, set_context, set_ps_context
from kiln.parallel._algo_parameters import get_algo_parameters, reset_algo_parameters, set_algo_parameters
from kiln.version import KILN_VERSION, __version__

__all__ = [
    "Event", "Profiler", "Stream", "StreamCtx", "communication_stream", "current_stream", "default_stream",
    "dispatch_threads_num", "empty_cache", "get_current_device", "launch_blocking", "max_memory_allocated",
    "max_memory_reserved", "memory_allocated", "memory_reserved", "memory_stats", "memory_summary",
    "reset_max_memory_allocated", "reset_max_memory_reserved", "reset_peak_memory_stats", "run_check",
    "set_cpu_affinity", "set_cur_stream", "set_deterministic", "set_dump", "set_kernel_launch_capture",
    "set_kernel_launch_group", "set_memory", "set_recursion_limit", "synchronize",
]  # fmt: skip


def _device():
    found = devices()
    return found[0] if found else None


def synchronize() -> None:
    """Wait until every computation queued so far has finished: PyNative's recorded ops (the lazy window) run
    first, so an error of one of them is raised here at the latest."""
    if LAZY_WINDOWS and LAZY_WINDOWS[0].ops:
        LAZY_WINDOWS[0].flush()
    wait_for_devices()


# -- streams and events ---------------------------------------------------------------------------------------


class Stream:
    """A device stream. XLA keeps one compute stream per device: every Stream stands for it, so work issued
    "on" any stream runs in program order with all other work (MindSpore's semantics with one stream)."""

    def __init__(self, priority: int = 0, **kwargs) -> None:
        ignore_argument("Stream", "options", kwargs, {}, reason="Kiln runs every op on one ordered stream")
        self.priority = int(priority)

    @property
    def device(self):
        return get_current_device()

    def synchronize(self) -> None:
        synchronize()

    def query(self) -> bool:
        """True when the work queued so far has finished."""
        return devices_idle()

    def wait_event(self, event: Event) -> None:
        """Make later work on this stream wait for `event` (one stream: already in order)."""

    def wait_stream(self, stream: Stream) -> None:
        """Make later work on this stream wait for `stream` (one stream: already in order)."""

    def record_event(self, event: Event | None = None) -> Event:
        event = event if event is not None else Event()
        event.record(self)
        return event

    def __eq__(self, other) -> bool:
        return isinstance(other, Stream)  # one stream

    def __hash__(self) -> int:
        return hash(Stream)

    def __repr__(self) -> str:
        return f"Stream(device={self.device}, priority={self.priority})"


_DEFAULT_STREAM = Stream()
_stream_stack = [_DEFAULT_STREAM]


def default_stream() -> Stream:
    return _DEFAULT_STREAM


def current_stream() -> Stream:
    return _stream_stack[-1]


def communication_stream() -> Stream:
    """The stream collectives run on: XLA schedules them on the compute stream."""
    return _DEFAULT_STREAM


def set_cur_stream(stream: Stream) -> None:
    if not isinstance(stream, Stream):
        raise TypeError(f"set_cur_stream: 'stream' must be a Stream, but got {type(stream).__name__}.")
    _stream_stack[-1] = stream


class StreamCtx:
    """`with StreamCtx(stream):` makes `stream` current inside the block."""

    def __init__(self, ctx_stream: Stream | None) -> None:
        if ctx_stream is not None and not isinstance(ctx_stream, Stream):
            raise TypeError(f"StreamCtx: 'ctx_stream' must be a Stream, but got {type(ctx_stream).__name__}.")
        self.stream = ctx_stream

    def __enter__(self) -> Stream | None:
        if self.stream is not None:
            _stream_stack.append(self.stream)
        return self.stream

    def __exit__(self, *exc) -> None:
        if self.stream is not None:
            _stream_stack.pop()


class Event:
    """A point in the stream's work. `record()` remembers the computations queued so far; `synchronize()`
    waits for them and `query()` tells whether they are done. With `enable_timing`, `record()` waits for
    the queued work first and stamps the time, so `elapsed_time` measures completed work (in ms)."""

    def __init__(self, enable_timing: bool = False, blocking: bool = False) -> None:
        self.enable_timing = bool(enable_timing)
        self.blocking = bool(blocking)
        self._pending: list = []
        self._time: float | None = None
        self._recorded = False

    def record(self, stream: Stream | None = None) -> None:
        if self.enable_timing:
            synchronize()
            self._time = time.perf_counter()
            self._pending = []
        else:
            self._pending = unfinished_arrays()
        self._recorded = True

    def query(self) -> bool:
        self._pending = [a for a in self._pending if not a.is_ready()]
        return not self._pending

    def synchronize(self) -> None:
        for array in self._pending:
            try:
                array.block_until_ready()
            except RuntimeError:
                pass
        self._pending = []

    def wait(self, stream: Stream | None = None) -> None:
        """Make `stream` wait for this event (one stream: already in order)."""

    def elapsed_time(self, end_event: Event) -> float:
        """Milliseconds between this event and `end_event` (both recorded with enable_timing=True)."""
        if not (self.enable_timing and end_event.enable_timing):
            raise RuntimeError("Event.elapsed_time: both events must be created with enable_timing=True.")
        if self._time is None or end_event._time is None:
            raise RuntimeError("Event.elapsed_time: both events must be recorded first.")
        return (end_event._time - self._time) * 1000.0


# -- memory -----------------------------------------------------------------------------------------------------

_peak_floor = {"allocated": 0, "reserved": 0}
_peak_seen = {"allocated": 0, "reserved": 0}
_reset = {"allocated": False, "reserved": False}


def _raw_stats() -> dict:
    device = _device()
    stats = device.memory_stats() if device is not None and hasattr(device, "memory_stats") else None
    return dict(stats or {})


def _current(kind: str) -> int:
    stats = _raw_stats()
    if kind == "allocated":
        return int(stats.get("bytes_in_use", 0))
    return int(stats.get("bytes_reserved", stats.get("pool_bytes", stats.get("bytes_in_use", 0))))


def _peak(kind: str) -> int:
    stats = _raw_stats()
    now = _current(kind)
    if _reset[kind]:
        # The backend's own peak cannot be reset: after a reset, report the largest value seen at a call.
        _peak_seen[kind] = max(_peak_seen[kind], now)
        return _peak_seen[kind]
    key = "peak_bytes_in_use" if kind == "allocated" else "peak_bytes_reserved"
    return max(int(stats.get(key, 0)), now)


def memory_allocated() -> int:
    """Bytes of device memory held by live arrays (0 on CPU, where the backend keeps no pool)."""
    return _current("allocated")


def max_memory_allocated() -> int:
    """The peak of `memory_allocated()` since the start (or since `reset_peak_memory_stats`, as seen at calls)."""
    return _peak("allocated")


def memory_reserved() -> int:
    """Bytes the device allocator has reserved (0 on CPU)."""
    return _current("reserved")


def max_memory_reserved() -> int:
    return _peak("reserved")


def reset_max_memory_allocated() -> None:
    _reset["allocated"] = True
    _peak_seen["allocated"] = _current("allocated")


def reset_max_memory_reserved() -> None:
    _reset["reserved"] = True
    _peak_seen["reserved"] = _current("reserved")


def reset_peak_memory_stats() -> None:
    reset_max_memory_allocated()
    reset_max_memory_reserved()


def memory_stats() -> dict:
    """MindSpore's keys, filled from the device allocator's statistics (zeros on CPU); the backend's own
    figures are under 'device_stats'."""
    allocated, reserved = memory_allocated(), memory_reserved()
    return {
        "total_reserved_memory": reserved,
        "total_allocated_memory": allocated,
        "total_idle_memory": max(reserved - allocated, 0),
        "total_eager_free_memory": 0,
        "max_reserved_memory": max_memory_reserved(),
        "max_allocated_memory": max_memory_allocated(),
        "device_stats": _raw_stats(),
    }


def memory_summary() -> str:
    stats = memory_stats()
    lines = ["Kiln device memory summary", f"device: {_device()}"]
    lines += [f"  {k}: {v}" for k, v in stats.items() if k != "device_stats"]
    return "\n".join(lines)


def empty_cache() -> None:
    """Release cached device memory: XLA's allocator gives memory back on its own; this frees nothing more."""


def set_memory(init_size="2GB", increase_size="2GB", max_size="1024GB", optimize_level="O0",
               huge_page_reserve_size="0GB") -> None:  # fmt: skip
    """MindSpore's memory-pool sizes, checked. Kiln cannot apply them: XLA sizes its allocator when the process
    starts, from the environment (XLA_PYTHON_CLIENT_MEM_FRACTION, XLA_PYTHON_CLIENT_PREALLOCATE), so a value other
    than the default warns once."""
    for name, value in (("init_size", init_size), ("increase_size", increase_size), ("max_size", max_size),
                        ("huge_page_reserve_size", huge_page_reserve_size)):  # fmt: skip
        if not (isinstance(value, str) and value.upper().endswith("GB")):
            raise ValueError(f"set_memory: '{name}' must be a string such as '2GB', but got {value!r}.")
    if optimize_level not in ("O0", "O1"):
        raise ValueError(f"set_memory: 'optimize_level' must be 'O0' or 'O1', but got {optimize_level!r}.")
    defaults = {"init_size": "2GB", "increase_size": "2GB", "max_size": "1024GB", "optimize_level": "O0",
                "huge_page_reserve_size": "0GB"}  # fmt: skip
    given = {"init_size": init_size, "increase_size": increase_size, "max_size": max_size,
             "optimize_level": optimize_level, "huge_page_reserve_size": huge_page_reserve_size}  # fmt: skip
    for name, value in given.items():
        ignore_argument("set_memory", name, value, defaults[name],
                        reason="XLA sizes its allocator at start-up: set XLA_PYTHON_CLIENT_MEM_FRACTION before "
                        "importing Kiln")  # fmt: skip


# -- devices and executor settings -----------------------------------------------------------------------------


def get_current_device():
    """(device_target, device_id) of the device new tensors go to, e.g. ('CPU', 0) or ('GPU', 0)."""
    device = _device()
    target = {"cpu": "CPU", "gpu": "GPU", "cuda": "GPU"}.get(default_platform(), default_platform().upper())
    return target, int(getattr(device, "id", 0) or 0)


def launch_blocking() -> None:
    """Make every op wait for its result (MindSpore's debugging aid): set_context(pynative_synchronize=True)."""
    set_context(pynative_synchronize=True)


def set_cpu_affinity(enable_affinity, affinity_cpu_list=None, module_to_cpu_dict=None, bind_file=None) -> None:
    """Bind this process to CPU cores (where the OS allows): `affinity_cpu_list` such as ["0-3", "8"]."""
    if not isinstance(enable_affinity, bool):
        raise TypeError(f"set_cpu_affinity: 'enable_affinity' must be a bool, but got {enable_affinity!r}.")
    for name, value in (("module_to_cpu_dict", module_to_cpu_dict), ("bind_file", bind_file)):
        ignore_argument("set_cpu_affinity", name, value,
                        reason="Kiln binds the whole process, to affinity_cpu_list; per-module binding does not "
                        "apply to XLA's thread pools")  # fmt: skip
    if not enable_affinity or not hasattr(os, "sched_setaffinity"):
        return
    if affinity_cpu_list:
        cores: set[int] = set()
        for item in affinity_cpu_list:
            lo, _, hi = str(item).partition("-")
            cores.update(range(int(lo), int(hi or lo) + 1))
        os.sched_setaffinity(0, cores)


def dispatch_threads_num(threads_num: int) -> None:
    """The number of dispatch threads: XLA's dispatch is its own; the value is checked only."""
    if not isinstance(threads_num, int) or threads_num <= 0:
        raise ValueError(f"dispatch_threads_num: 'threads_num' must be a positive int, but got {threads_num!r}.")


def set_kernel_launch_group(thread_num: int = 2, kernel_group_num: int = 8) -> None:
    """Ascend kernel-launch grouping: no effect on XLA (checked only)."""
    if thread_num <= 0 or kernel_group_num <= 0:
        raise ValueError("set_kernel_launch_group: 'thread_num' and 'kernel_group_num' must be positive.")


def set_kernel_launch_capture(enable_capture_graph: bool, op_capture_skip=None) -> None:
    """Ascend kernel-graph capture: XLA compiles graphs already; no effect (checked only)."""
    if not isinstance(enable_capture_graph, bool):
        raise TypeError("set_kernel_launch_capture: 'enable_capture_graph' must be a bool.")


def set_deterministic(deterministic: bool) -> None:
    """Bit-identical runs (the same as set_context(deterministic='ON'/'OFF')): every program runs fully optimised
    from its first call (no quick tier handing over at a time that varies); on GPU, XLA also needs
    `--xla_gpu_deterministic_ops=true` in XLA_FLAGS when the process starts."""
    if not isinstance(deterministic, bool):
        raise TypeError(f"set_deterministic: 'deterministic' must be a bool, but got {deterministic!r}.")
    set_context(deterministic="ON" if deterministic else "OFF")


_dump_targets: dict[int, bool] = {}


def set_dump(target, enabled: bool = True) -> None:
    """Mark a Cell or Primitive for data dump. Kiln's dumps are graph IR dumps (set_context(save_graphs=...));
    tensor-data dump is not produced: the mark is recorded and readable as `target._kiln_dump`."""
    if not isinstance(enabled, bool):
        raise TypeError(f"set_dump: 'enabled' must be a bool, but got {enabled!r}.")
    if not (hasattr(target, "construct") or hasattr(target, "attrs") or callable(target)):
        raise TypeError(f"set_dump: 'target' must be a Cell or a Primitive, but got {type(target).__name__}.")
    try:
        target._kiln_dump = enabled
    except AttributeError:
        _dump_targets[id(target)] = enabled


def set_recursion_limit(recursion_limit: int = 1000) -> None:
    """The depth limit of graph compilation's recursion (Kiln's frontends recurse in Python): raises Python's
    recursion limit to at least `recursion_limit`."""
    if not isinstance(recursion_limit, int) or isinstance(recursion_limit, bool) or recursion_limit <= 0:
        raise ValueError(f"set_recursion_limit: 'recursion_limit' must be a positive int, but got {recursion_limit!r}.")
    sys.setrecursionlimit(max(sys.getrecursionlimit(), recursion_limit))


def run_check() -> None:
    """Check the installation: run a small multiplication on the current device and print the outcome."""
    print(f"Kiln version:  {KILN_VERSION} (MindSpore API {__version__})")
    a = Tensor(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32))
    try:
        out = ops.mul(a, a).asnumpy()
    except Exception as exc:  # noqa: BLE001  (reported to the user, as MindSpore's check does)
        print(f"The result of multiplication calculation failed: {exc}")
        return
    if np.array_equal(out, np.array([[1.0, 4.0], [9.0, 16.0]], np.float32)):
        target = get_current_device()[0]
        print(f"The result of multiplication calculation is correct, Kiln has been installed on platform "
              f"[{target}] successfully!")  # fmt: skip
    else:
        print(f"The result of multiplication calculation is wrong: {out}")


# -- profiler ---------------------------------------------------------------------------------------------------


class Profiler:
    """Collect a trace of the device work with JAX's profiler (viewable in TensorBoard's profile plugin or
    Perfetto). `Profiler(output_path="./data")` starts at once unless `start_profile=False`; `stop()` ends the
    trace; `analyse()` stops if needed (the trace is already written under `output_path`)."""

    def __init__(self, **kwargs) -> None:
        self.output_path = os.path.abspath(kwargs.pop("output_path", "./data"))
        self._running = False
        start = kwargs.pop("start_profile", True)
        ignore_argument("Profiler", "options", kwargs, {},
                        reason="the trace is JAX's profiler trace, with what it collects; only output_path and "
                        "start_profile apply")  # fmt: skip
        if start:
            self.start()

    def start(self) -> None:
        if not self._running:
            os.makedirs(self.output_path, exist_ok=True)
            start_trace(self.output_path)
            self._running = True

    def stop(self) -> None:
        if self._running:
            synchronize()
            stop_trace()
            self._running = False

    def step(self) -> None:
        """Mark a step boundary (the trace keeps JAX's own step markers)."""

    def analyse(self, **kwargs) -> None:
        """Stop collecting; the trace under `output_path` is complete (TensorBoard's profile plugin or Perfetto
        read it as it is)."""
        ignore_argument("Profiler.analyse", "options", kwargs, {}, reason="the trace needs no analysis step")
        self.stop()

    def __enter__(self) -> Profiler:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    @staticmethod
    def offline_analyse(path: str, **kwargs) -> None:
        """Traces are written complete: nothing to analyse offline; `path` must be a folder a Profiler wrote."""
        if not os.path.isdir(path):
            raise FileNotFoundError(f"Profiler.offline_analyse: no profiler output folder at {path!r}.")
        ignore_argument("Profiler.offline_analyse", "options", kwargs, {}, reason="the trace needs no analysis step")


__all__ += ["get_algo_parameters", "get_ps_context", "reset_algo_parameters", "reset_ps_context",
            "set_algo_parameters", "set_ps_context"]  # fmt: skip


# -- compile hints, devices, memory recycling -------------------------------------------------------------------


def enable_dynamic(**kwargs):
    """Declare inputs of a `@jit` function as dynamic in shape (`Tensor(shape=None...)` or None dims).

    Kiln compiles one executable per concrete input shape and reuses it while shapes repeat, so the declaration
    changes no result; it is checked (names of the function's parameters, Tensor values) and the function comes
    back unchanged.
    """
    for name, value in kwargs.items():
        items = value if isinstance(value, (tuple, list)) else (value,)
        if not all(isinstance(v, Tensor) for v in items):
            raise TypeError(f"enable_dynamic: '{name}' must be a Tensor or a tuple/list of Tensors, "
                            f"but got {type(value).__name__}.")  # fmt: skip

    def decorate(fn):
        target = getattr(fn, "fn", fn)
        try:
            params = inspect.signature(target).parameters
        except (TypeError, ValueError):
            params = None
        if params is not None and not any(p.kind is p.VAR_KEYWORD for p in params.values()):
            unknown = sorted(set(kwargs) - set(params))
            if unknown:
                raise ValueError(f"enable_dynamic: {unknown} are not parameters of {getattr(target, '__name__', fn)}.")
        return fn

    return decorate


def ms_memory_recycle() -> None:
    """Release memory cached for compiled programs (their executables are compiled again when next needed)."""
    drop_compiled_programs()
    gc.collect()


class DeviceCtx:
    """`with DeviceCtx("CPU"):` (or "GPU", with `device_id`): new tensors and computations inside the block go to
    that device."""

    def __init__(self, name: str, device_id: int | None = None) -> None:
        platform = {"cpu": "cpu", "gpu": "gpu", "cuda": "gpu"}.get(str(name).lower())
        if platform is None:
            raise ValueError(f"DeviceCtx: 'name' must be 'CPU' or 'GPU', but got {name!r}.")
        found = devices(platform)
        if not found:
            raise ValueError(f"DeviceCtx: no {name} device is available on this machine.")
        index = 0 if device_id is None else int(device_id)
        if not 0 <= index < len(found):
            raise ValueError(f"DeviceCtx: 'device_id' must be in [0, {len(found)}), but got {device_id}.")
        self.name, self.device_id, self._device, self._ctx = name, index, found[index], None

    def __enter__(self) -> DeviceCtx:
        self._ctx = on_device(self._device)
        self._ctx.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self._ctx.__exit__(*exc)


__all__ += ["DeviceCtx", "enable_dynamic", "ms_memory_recycle"]
