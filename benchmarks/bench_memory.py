"""Memory under changing shapes: RSS growth of one jitted function called with 150 different batch sizes.

    python -m benchmarks memory               (or: python -m benchmarks.bench_memory [--sizes N])

A small MLP forward (64 -> 256 -> 256 -> 10, nn.Dense layers) under `@ms.jit`, called once with each batch
size 1..N: every new shape compiles a new executable. Each case runs in a fresh process with the on-disk
cache off; the process's resident set size (RSS, from /proc/self/statm) is read after a first call and after
the N-th (with gc.collect() before each reading). The same function hand-written under jax.jit is the
reference: what the backend itself keeps per executable.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.common import Row, print_device, print_table  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
MiB = 2**20


def rss_bytes() -> int:
    """Resident set size of this process now (Linux), else the peak (other platforms)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024


def _worker(which: str, sizes: int) -> dict:
    import numpy as np

    import kiln as ms
    from kiln import nn, ops
    from kiln._backend import jax

    ms.set_seed(0)
    layers = [nn.Dense(64, 256), nn.Dense(256, 256), nn.Dense(256, 10)]
    rng = np.random.default_rng(0)
    xs = [rng.standard_normal((b, 64)).astype(np.float32) for b in range(1, sizes + 1)]
    if which == "kiln":
        net = nn.SequentialCell([layers[0], nn.ReLU(), layers[1], nn.ReLU(), layers[2]])

        @ms.jit
        def f(x):
            return ops.softmax(net(x), axis=-1)

        inputs = [ms.Tensor(x) for x in xs]
        call = lambda x: f(x).asnumpy()  # noqa: E731
    else:
        from kiln._backend import jnp

        ws = [(jnp.asarray(d.weight.asnumpy()), jnp.asarray(d.bias.asnumpy())) for d in layers]

        @jax.jit
        def g(ws, x):
            for i, (w, b) in enumerate(ws):
                x = x @ w.T + b
                if i < len(ws) - 1:
                    x = jax.nn.relu(x)
            return jax.nn.softmax(x, axis=-1)

        inputs = [jax.device_put(x) for x in xs]
        call = lambda x: np.asarray(g(ws, x))  # noqa: E731
    call(inputs[0])
    gc.collect()
    before = rss_bytes()
    t0 = time.perf_counter()
    for x in inputs[1:]:
        call(x)
    seconds = time.perf_counter() - t0
    gc.collect()
    after = rss_bytes()
    result = {"before": before, "after": after, "seconds_per_compile": seconds / max(1, sizes - 1)}
    if which == "jax":  # does dropping the executables give the memory back?
        jax.clear_caches()
        gc.collect()
        result["after_clear"] = rss_bytes()
        try:  # glibc keeps freed heap pages unless asked to hand them back
            import ctypes

            ctypes.CDLL("libc.so.6").malloc_trim(0)
            result["after_trim"] = rss_bytes()
        except (OSError, AttributeError):
            pass
    return result


def _spawn(which: str, sizes: int) -> dict | None:
    env = {**os.environ, "KILN_CACHE_DIR": "off", "PYTHONPATH": str(REPO)}
    cmd = [sys.executable, "-m", "benchmarks.bench_memory", "--worker", which, "--sizes", str(sizes)]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=REPO, check=False)
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    print(f"  worker {which} failed: {(proc.stderr.strip().splitlines() or ['?'])[-1][:160]}", file=sys.stderr)
    return None


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, default=150, help="batch sizes 1..N (default 150)")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(_worker(args.worker, args.sizes)))
        return
    print_device()
    rows, notes = [], []
    case = f"RSS growth, {args.sizes} batch sizes"
    for which, impl in (("kiln", "Kiln @ms.jit"), ("jax", "JAX jax.jit")):
        r = _spawn(which, args.sizes)
        if r is None:
            rows.append(Row(case, impl, None, None, "", "failed"))
            continue
        grown = (r["after"] - r["before"]) / MiB
        per = (r["after"] - r["before"]) / max(1, args.sizes - 1) / 1024
        notes.append(
            f"{impl:14s} RSS {r['before'] / MiB:7.1f} MiB -> {r['after'] / MiB:7.1f} MiB: "
            f"+{grown:.1f} MiB ({per:.0f} KiB per shape), {r['seconds_per_compile'] * 1e3:.1f} ms per new shape"
        )
        if "after_clear" in r:
            notes.append(f"{'':14s} after jax.clear_caches(): {r['after_clear'] / MiB:7.1f} MiB")
        if "after_trim" in r:
            notes.append(f"{'':14s} then glibc malloc_trim(0): {r['after_trim'] / MiB:7.1f} MiB")
        rows.append(Row(case, impl, r["seconds_per_compile"], None if which == "jax" else "JAX jax.jit"))
    print(f"\nMemory under changing shapes: one jitted function, batch sizes 1..{args.sizes} (fresh processes)")
    for n in notes:
        print(n)
    print_table("Time per new shape (trace + compile + run)", rows)


if __name__ == "__main__":
    main()
