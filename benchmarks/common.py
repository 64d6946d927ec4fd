"""Timing helpers shared by the benchmarks: warm-up, median of repeats, a ratio table.

Every timed callable returns what it computed; the helper waits for that value
(`block_until_ready`, `asnumpy`, a torch tensor's `.item()`...) at the end of each
repeat, so asynchronous dispatch cannot hide work in the next repeat.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path


def sync(value) -> None:
    """Wait until `value` (a Kiln Tensor, JAX array, torch tensor, NumPy array, or a tuple of them) is computed."""
    if isinstance(value, (tuple, list)):
        for v in value:
            sync(v)
        return
    if isinstance(value, dict):
        for v in value.values():
            sync(v)
        return
    data = getattr(value, "_data", None)  # a Kiln Tensor
    if data is not None and hasattr(data, "block_until_ready"):
        data.block_until_ready()
    elif hasattr(value, "block_until_ready"):
        value.block_until_ready()
    elif hasattr(value, "asnumpy"):
        value.asnumpy()
    elif type(value).__module__.startswith("torch"):
        value.sum().item() if value.numel() else None


def measure(fn: Callable[[], object], *, number: int, repeat: int = 7, warmup: int = 3) -> float:
    """Median seconds per call of `fn`: `repeat` rounds of `number` calls, after `warmup` calls."""
    out = None
    for _ in range(warmup):
        out = fn()
    sync(out)
    rounds = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            out = fn()
        sync(out)
        rounds.append((time.perf_counter() - t0) / number)
    return statistics.median(rounds)


def thread_cpu() -> dict[int, tuple[str, int]]:
    """CPU time of each thread of this process so far: {native thread id: (name, nanoseconds)}, read from Linux's
    /proc/self/task/*/schedstat ({} where there is none). A Python thread carries its `threading` name (Kiln's
    background threads are named `kiln-...`), any other thread its OS name."""
    names = {t.native_id: t.name for t in threading.enumerate()}
    out = {}
    try:
        tids = os.listdir("/proc/self/task")
    except OSError:
        return out
    for tid in tids:
        try:
            with open(f"/proc/self/task/{tid}/schedstat") as f:
                ns = int(f.read().split()[0])
            with open(f"/proc/self/task/{tid}/comm") as f:
                comm = f.read().strip()
        except (OSError, ValueError, IndexError):
            continue  # the thread ended meanwhile
        out[int(tid)] = (names.get(int(tid), comm), ns)
    return out


def _background_ns(before: dict, after: dict, prefix: str = "kiln-") -> int:
    """CPU nanoseconds the threads named `prefix...` used between two `thread_cpu` readings."""
    return sum(ns - before.get(tid, (name, 0))[1] for tid, (name, ns) in after.items() if name.startswith(prefix))


def measure_interleaved(
    cases: dict[str, Callable[[], object]],
    *,
    number: int,
    repeat: int = 7,
    warmup: int = 3,
    around: Callable[[str], AbstractContextManager] | None = None,
    cpu: dict | None = None,
) -> dict[str, float]:
    """Median seconds per call of each case, its rounds interleaved with the other cases' rounds.

    On a shared machine the load changes from second to second; taking round k of every case before
    round k+1 of any case spreads that drift over all of them, so their ratios stay meaningful.
    `around(name)`, when given, is a context manager entered around each round of that case (e.g. a mode).
    `cpu`, when given, receives {case: (median process CPU seconds per call, CPU seconds per call of Kiln's
    background threads during its rounds)}: the second is 0 when nothing of Kiln (tier-up compiles, kernel
    upgrades, cache writes) ran beside the timed calls, and the first tells a slow round on a busy machine (CPU
    as before, wall longer) from a step that does more work.
    """
    around = around or (lambda name: nullcontext())
    for name, fn in cases.items():
        with around(name):
            out = None
            for _ in range(warmup):
                out = fn()
            sync(out)
    out = None
    rounds: dict[str, list[float]] = {name: [] for name in cases}
    process: dict[str, list[float]] = {name: [] for name in cases}
    background = dict.fromkeys(cases, 0)
    for _ in range(repeat):
        for name, fn in cases.items():
            with around(name):
                threads = thread_cpu() if cpu is not None else None
                c0, t0 = time.process_time(), time.perf_counter()
                for _ in range(number):
                    out = fn()
                sync(out)
                rounds[name].append((time.perf_counter() - t0) / number)
                if threads is not None:
                    process[name].append((time.process_time() - c0) / number)
                    background[name] += _background_ns(threads, thread_cpu())
                # freed here, untimed: else the next case's first call pays for releasing this one's result
                out = None
    if cpu is not None:
        for name in cases:
            cpu[name] = (statistics.median(process[name]), background[name] * 1e-9 / (number * repeat))
    return {name: statistics.median(r) for name, r in rounds.items()}


@dataclass
class Row:
    """One line of a benchmark table.

    Args:
        case: what was measured.
        impl: who ran it (Kiln, JAX, PyTorch, MindSpore).
        seconds: median seconds per call, or None when the peer is not available.
        baseline: the `impl` of the row this one is compared with (None for no ratio).
        target: the goal for the ratio, in words ("<= 1.5x").
        note: why a figure is missing, or anything else worth a word.
    """

    case: str
    impl: str
    seconds: float | None
    baseline: str | None = None
    target: str = ""
    note: str = ""


def format_time(seconds: float | None) -> str:
    if seconds is None:
        return "n/a"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} us"
    if seconds < 1:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.2f} s"


def print_table(title: str, rows: list[Row]) -> None:
    """Print `rows` with each row's ratio to the row of the same case whose impl is its baseline."""
    by_key = {(r.case, r.impl): r for r in rows}
    print(f"\n{title}")
    header = f"{'case':44s} {'impl':22s} {'time':>11s} {'ratio':>16s}  target"
    print(header)
    print("-" * len(header))
    for r in rows:
        ratio = ""
        base = by_key.get((r.case, r.baseline)) if r.baseline else None
        if base is not None and r.seconds and base.seconds:
            ratio = f"{r.seconds / base.seconds:.2f}x {r.baseline}"
        line = f"{r.case:44s} {r.impl:22s} {format_time(r.seconds):>11s} {ratio:>16s}  {r.target}"
        if r.note:
            line += f"  ({r.note})"
        print(line.rstrip())


def device_description() -> str:
    """The device the benchmarks run on, e.g. 'cpu: TFRT_CPU_0 (2 cores), jax 0.10.2' or 'gpu: NVIDIA H100 ...'."""
    import os
    import platform

    from kiln._backend import default_platform, devices, jax

    devs = devices()
    kind = devs[0].device_kind if devs else "?"
    where = f"{default_platform()}: {len(devs)} x {kind}"
    if default_platform() == "cpu":
        where += f" ({os.cpu_count()} cores, {_cpu_model() or platform.machine()})"
    return f"{where}, jax {jax.__version__}"


def torch_device(torch) -> str:
    """The device PyTorch's peers run on: 'cuda' when Kiln runs on a GPU and PyTorch sees one (like against like),
    else 'cpu'."""
    from kiln._backend import default_platform  # noqa: PLC0415  (Kiln is imported only where a benchmark runs)

    return "cuda" if default_platform() == "gpu" and torch.cuda.is_available() else "cpu"


def host_malloc() -> str:
    """The C allocator's setting this process started with: `KILN_HUGEPAGES=1 kiln run` adds glibc's huge pages
    (kiln/cli/hugepages.py), a plain `python train.py` has glibc's defaults; `KILN_HOST_MEMORY` changes the
    thresholds Kiln sets (kiln/_backend/host_memory.py). All of them change large CPU buffers' cost."""
    tunables = os.environ.get("GLIBC_TUNABLES")
    setting = os.environ.get("KILN_HOST_MEMORY", "").strip()
    kiln_part = f", KILN_HOST_MEMORY={setting}" if setting else ""
    if tunables is not None:
        return f"GLIBC_TUNABLES={tunables}{kiln_part}"
    return (
        f"glibc's defaults, as a plain `python train.py`{kiln_part} "
        "(`KILN_HUGEPAGES=1 kiln run` adds glibc.malloc.hugetlb=1)"
    )


def print_device() -> None:
    """Print the lines naming the device and the process's allocator setting (every benchmark prints them first)."""
    print(f"device: {device_description()}", flush=True)
    print(f"host malloc: {host_malloc()}", flush=True)


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return ""


def cpu_has_avx512() -> bool:
    """Whether this CPU has AVX-512 (MindSpore's oneDNN kernels take other paths there: see bench_zoo)."""
    try:
        with open("/proc/cpuinfo") as f:
            return any(line.startswith("flags") and " avx512f" in line for line in f)
    except OSError:
        return False


def run_worker(module: str, args: list[str], python: str, env: dict) -> dict | None:
    """Run `python -m module *args` from the repository root and return the last JSON line it printed (its
    result), or None after printing the last line of its error output."""
    proc = subprocess.run([python, "-m", module, *args], capture_output=True, text=True, env=env,
                          cwd=Path(__file__).resolve().parent.parent, check=False)  # fmt: skip
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    tail = (proc.stderr.strip().splitlines() or ["?"])[-1][:160]
    print(f"  worker {module} {' '.join(args)} failed: {tail}", file=sys.stderr)
    return None
