"""Time to first result: import, the first PyNative LeNet5 step, the first Graph-mode call; cold and warm.

    python -m benchmarks firstcall            (or: python -m benchmarks.bench_firstcall [--tries N] [--cases A,B]
                                                   [--no-steady])

Every figure comes from a fresh interpreter. "cold" runs on an empty cache folder (KILN_CACHE_DIR set to a
new temporary folder), "warm" is a second fresh process on the folder the cold one filled. Each process
times, from the moment `import kiln` returned:

- import: `import kiln` itself (what `python -c "import kiln"` pays on top of the interpreter);
- PyNative: building LeNet5 + value_and_grad + nn.Momentum (the code of bench_pynative) and the first
  training step, until its loss is on the host (target: <= 1.0 s cold, <= 0.5 s warm);
- Graph: building the same step as a GRAPH_MODE nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt) over
  a LeNet5 defined in this file (a user's Cell, whose class the graph cache must fingerprint) and its first
  call (trace, compile, run), against the same step hand-written in JAX under jax.jit (target: <= 1.10x JAX
  cold, <= 0.25 s warm).

PyNative's per-primitive kernels are kept on disk by kiln/_backend/cache.py's persistent_jit (serialized
executables under primitive, attributes, input signature, device and versions: a warm process loads them
without tracing, lowering or compiling), and the tape's backward pass runs as one compiled program per tape
structure (kiln/_pynative/backward_program.py: one compile for the whole backward instead of one per op).
With the lazy window (kiln/_pynative/lazy.py) the whole step is recorded and runs as ONE program (forward, loss,
backward, optimizer update), kept on disk the same way, and the output types of each op are kept there too (a
warm process traces nothing). Rows for the same process with parts of that switched off:

- "KILN_LAZY=0": each op's kernel launched at once, the backward as one program (what Kiln did before the window);
- "backward op by op": KILN_LAZY=0 KILN_FUSED_BACKWARD=0: each recorded op's backward kernel is dispatched on its own,
  and compiled ahead on a worker thread while the forward runs (what Kiln did before the one program);

- "before: jax.jit kernels": dispatch's kernels are plain jax.jit functions again (what Kiln did before the
  executable store was wired in: JAX's persistent cache, thresholds at 0, looked up after tracing and
  lowering; XLA's default CPU emitters; no compile-ahead);
- "compile-ahead off": KILN_FUSED_BACKWARD=0 and KILN_COMPILE_AHEAD=0 (backward op by op, nothing ahead);
- "quick compile off": KILN_QUICK_COMPILE=0 (kernels whose results cannot depend on LLVM's optimisation level
  are otherwise compiled at -O0 first, and optimised on a background thread from their second call);
- "tiered off", "graph tiered off": KILN_TIERED=0 (a whole program of at least 256 operations, the step's window or
  GRAPH_MODE step, otherwise runs first at XLA optimisation level 0 while the optimised executable compiles on
  a background thread; kiln/_backend/tiers.py). A tiered cold step counts 2 compiles once the optimised one
  is done (the quick one on the step's path, the optimised one beside it);
- "cache off": KILN_CACHE_DIR=off: nothing reaches the disk, so its warm run is another cold one.

Graph mode keeps its executables on disk under a key computed before tracing (kiln/_compiler/cache/persistent.py
`graph_key`): a warm process loads the executable without parsing, analysing, tracing or lowering. "graph
cache off" (KILN_GRAPH_CACHE=0) is what it did before: trace and lower, then find the executable in JAX's cache.

Each worker also counts the XLA compiles its process ran (a load from the cache is not one), the seconds they
took (summed over threads: the compile-ahead and optimising threads run beside the main one) and the entries and
bytes it read from the cache folder: figures that do not depend on how busy the machine is. Every cold/warm
pair gets its own KILN_CACHE_SOURCE_KEY, so an edit of Kiln's sources between the two processes (a shared
working tree) cannot turn the warm run into a cold one. A cold "Kiln PyNative" process compiles 1 program (the
step's window); with KILN_LAZY=0, 15: 13 forward kernels, the backward program and FusedMomentum (set_seed builds
its key on the host, and the CPU compile-option question is answered by the first compile);
tests/pynative/test_cold_step_compiles.py fails when either count grows.

MindSpore 2.10 (PyNative) runs the same code in its own interpreter ($KILN_MINDSPORE_PYTHON, default
/tmp/msvenv/bin/python or /work/msenv/bin/python) when it exists. The best of --tries processes is shown
for each cell (the machine is shared; the minimum is the least disturbed run).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script (the MindSpore worker): make `benchmarks` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.common import Row, format_time, print_device, print_table, run_worker  # noqa: E402

MINDSPORE_PYTHON = os.environ.get("KILN_MINDSPORE_PYTHON") or next(
    (p for p in ("/tmp/msvenv/bin/python", "/work/msvenv/bin/python", "/work/msenv/bin/python") if Path(p).exists()),
    "/tmp/msvenv/bin/python",
)
REPO = Path(__file__).resolve().parent.parent


# ---- workers: one measurement in this fresh process ----------------------------------------------------
def _count_compiles() -> list:
    """The XLA compiles of this process, each as its duration in seconds (JAX's compile entry point, wrapped;
    compiles on worker threads included, refused ones left out); [] when it cannot."""
    compiles: list = []
    try:
        from jax._src import compiler
    except ImportError:
        return compiles
    original = compiler.backend_compile_and_load

    def counted(*args, **kwargs):
        t = time.perf_counter()
        executable = original(*args, **kwargs)
        # a compile XLA refused compiled nothing: jaxlib 0.11 rejects Kiln's first kernel's CPU option once
        compiles.append(time.perf_counter() - t)
        return executable

    compiler.backend_compile_and_load = counted
    return compiles


def _count_reads() -> list:
    """Bytes read from Kiln's cache folder by this process (DiskCache.get, wrapped), one item per entry read."""
    reads: list = []
    from kiln._backend import cache

    original = cache.DiskCache.get

    def counted(self, key):
        data = original(self, key)
        if data is not None:
            reads.append(len(data))
        return data

    cache.DiskCache.get = counted
    return reads


def _worker(which: str) -> dict:
    compiles = _count_compiles() if which != "mindspore" else []
    t0 = time.perf_counter()
    if which == "mindspore":
        import mindspore as ms

        ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    else:
        import kiln as ms
    t_import = time.perf_counter() - t0
    reads = _count_reads() if which != "mindspore" else []
    result = {"import": t_import}
    if which in ("pynative", "pynative-before", "mindspore"):
        from benchmarks.bench_pynative import lenet_train_step

        if which == "pynative-before":
            _dispatch_through_plain_jit()
        t1 = time.perf_counter()
        ms.set_seed(0)
        step = lenet_train_step(ms)
        t2 = time.perf_counter()
        step().asnumpy()
        t3 = time.perf_counter()
        result.update(build=t2 - t1, step=t3 - t2, total=t3 - t1)
    elif which == "graph":
        import numpy as np

        from kiln import Tensor, nn
        from kiln.demo.lenet import LeNet5 as KilnLeNet5

        class LeNet5(KilnLeNet5):  # a user-defined Cell, as in a user's script (its module is not Kiln's)
            def __init__(self):
                super().__init__()

        t1 = time.perf_counter()
        ms.set_context(mode=ms.GRAPH_MODE)
        ms.set_seed(0)
        net = LeNet5()
        loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        opt = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)
        step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)
        rng = np.random.default_rng(0)
        x = Tensor(rng.standard_normal((32, 1, 32, 32)).astype(np.float32))
        y = Tensor(rng.integers(0, 10, 32).astype(np.int32))
        t2 = time.perf_counter()
        step(x, y).asnumpy()
        t3 = time.perf_counter()
        result.update(build=t2 - t1, step=t3 - t2, total=t3 - t1)
    elif which == "jax":
        from benchmarks.bench_pynative import _jax_lenet

        t1 = time.perf_counter()
        step, ws, moms, x, y, jax = _jax_lenet()
        t2 = time.perf_counter()
        jax.block_until_ready(jax.jit(step)(ws, moms, x, y))
        t3 = time.perf_counter()
        result.update(build=t2 - t1, step=t3 - t2, total=t3 - t1)
    result["compiles"] = len(compiles)
    result["compile_s"] = sum(compiles)
    result["read_bytes"] = sum(reads)
    result["reads"] = len(reads)
    return result


def _dispatch_through_plain_jit() -> None:
    """What dispatch did before its kernels went through the executable store: one plain jax.jit per
    (primitive, attributes), found in JAX's persistent cache only after tracing and lowering; no compile-ahead."""
    from kiln import _backend as B
    from kiln._pynative import dispatch, tape

    def _compile(prim, attrs):
        kw = prim.attrs_dict(attrs)
        impl = prim.impl
        fn = B.jit((lambda *xs: impl(*xs, **kw)) if kw else impl)
        dispatch._compiled[(prim, attrs)] = fn
        return fn

    dispatch._compile = _compile
    dispatch.COMPILE_BACKWARD_AHEAD = False
    tape.FUSED_BACKWARD = False


def steady_costs(repeat: int) -> list[Row]:
    """What the executable store, compile-ahead and the one-program backward cost once warm: the same LeNet5
    step and ops.add with PyNative's kernels from plain jax.jit (before), from persistent_jit with the backward
    as one program (now), op by op with and without compile-ahead, in this process, rounds interleaved."""
    from contextlib import contextmanager

    import numpy as np

    import kiln as ms
    from benchmarks.bench_pynative import lenet_train_step
    from benchmarks.common import measure_interleaved
    from kiln._pynative import dispatch, tape

    def state():
        return (
            dispatch._compiled,
            dispatch._compile,
            dispatch.COMPILE_BACKWARD_AHEAD,
            tape.FUSED_BACKWARD,
            dispatch.LAZY,
        )

    def restore(values):
        (dispatch._compiled, dispatch._compile, dispatch.COMPILE_BACKWARD_AHEAD, tape.FUSED_BACKWARD, dispatch.LAZY) = (
            values
        )

    saved = state()
    variants = {
        "now": ({}, dispatch._compile, True, True, True),
        "KILN_LAZY=0": ({}, dispatch._compile, True, True, False),
        "backward op by op": ({}, dispatch._compile, True, False, False),
        "compile-ahead off": ({}, dispatch._compile, False, False, False),
    }
    _dispatch_through_plain_jit()
    variants["before: jax.jit kernels"] = ({}, dispatch._compile, False, False, False)

    @contextmanager
    def around(name):
        restore(variants[name.split(": ", 1)[1]])
        yield

    from kiln._backend import cache  # noqa: PLC0415

    a = ms.Tensor(np.ones((4, 4), np.float32))
    steps, adds = {}, {}
    try:
        for v in variants:
            with around(f"x: {v}"):
                ms.set_seed(0)
                steps[f"LeNet5 step: {v}"] = lenet_train_step(ms)
                adds[f"ops.add: {v}"] = lambda: ms.ops.add(a, a)
                for _ in range(3):  # quick kernels: their optimised executables are asked for at the second call
                    steps[f"LeNet5 step: {v}"]().asnumpy()
                    adds[f"ops.add: {v}"]().asnumpy()
        cache.wait_optimized()  # a steady state: every kernel optimised, nothing compiling in the background
        t_steps = measure_interleaved(steps, number=5, repeat=repeat, warmup=2, around=around)
        t_adds = measure_interleaved(adds, number=500, repeat=repeat, warmup=5, around=around)
    finally:
        restore(saved)
    rows = []
    for case, times in (("steady LeNet5 PyNative step", t_steps), ("ops.add (4,4), one eager call", t_adds)):
        for name, t in times.items():
            v = name.split(": ", 1)[1]
            base = None if v == "before: jax.jit kernels" else "before: jax.jit kernels"
            rows.append(Row(case, v, t, base))
    return rows


def _spawn(which: str, cache_dir: str, python: str = sys.executable, env_extra: dict | None = None) -> dict | None:
    env = {**os.environ, "KILN_CACHE_DIR": cache_dir, "PYTHONPATH": str(REPO), **(env_extra or {})}
    return run_worker("benchmarks.bench_firstcall", ["--worker", which], python, env)


CASES = (  # (worker, row name, cache on, environment)
    ("pynative", "Kiln PyNative", True, {}),
    ("pynative", "KILN_LAZY=0", True, {"KILN_LAZY": "0"}),
    ("pynative-before", "before: jax.jit kernels", True, {"KILN_LAZY": "0"}),
    ("pynative", "backward op by op", True, {"KILN_LAZY": "0", "KILN_FUSED_BACKWARD": "0"}),
    ("pynative", "compile-ahead off", True, {"KILN_LAZY": "0", "KILN_FUSED_BACKWARD": "0", "KILN_COMPILE_AHEAD": "0"}),
    ("pynative", "quick compile off", True, {"KILN_QUICK_COMPILE": "0"}),
    ("pynative", "tiered off", True, {"KILN_TIERED": "0"}),
    ("pynative", "cache off", False, {}),
    ("graph", "Kiln GRAPH_MODE", True, {}),
    ("graph", "graph tiered off", True, {"KILN_TIERED": "0"}),
    ("graph", "graph cache off", True, {"KILN_GRAPH_CACHE": "0"}),
    ("jax", "JAX jax.jit", True, {}),
)


PYNATIVE_VARIANTS = (  # the PyNative rows besides "Kiln PyNative", in the table's order
    "KILN_LAZY=0",
    "before: jax.jit kernels",
    "backward op by op",
    "compile-ahead off",
    "quick compile off",
    "tiered off",
    "cache off",
)


def _folder_size(folder: str) -> tuple[int, int]:
    files = [p for p in Path(folder).rglob("*") if p.is_file()]
    return len(files), sum(p.stat().st_size for p in files)


def run_cases(tries: int, only: frozenset[str] | None = None) -> tuple[dict, dict]:
    """{row name: (cold, warm)}, each the best (smallest total) of `tries`; the cases' process pairs are
    interleaved (try 1 of every case, then try 2...), so a busy spell of the machine hits them alike.
    Also {row name: (files, bytes)} the cold process left in its cache folder. `only`: the row names to run
    (None: all); the others are left out of the result."""
    cases = [case for case in CASES if only is None or case[1] in only]
    runs: dict[str, tuple[list, list]] = {name: ([], []) for _, name, _, _ in cases}
    sizes = {}
    if Path(MINDSPORE_PYTHON).exists():
        cases.append(("mindspore", "MindSpore 2.10 PyNative", True, {}))
        runs["MindSpore 2.10 PyNative"] = ([], [])
    for _ in range(tries):
        for which, name, on, extra in cases:
            python = MINDSPORE_PYTHON if which == "mindspore" else sys.executable
            with tempfile.TemporaryDirectory(prefix="kiln-firstcall-") as d:
                folder = d if on else "off"
                env = {**extra, "KILN_CACHE_SOURCE_KEY": Path(d).name}
                runs[name][0].append(_spawn(which, folder, python, env))
                sizes[name] = _folder_size(d)
                runs[name][1].append(_spawn(which, folder, python, env))

    def best(rs):
        rs = [r for r in rs if r]
        return min(rs, key=lambda r: r.get("total", r["import"])) if rs else None

    return {name: (best(c), best(w)) for name, (c, w) in runs.items()}, sizes


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tries", type=int, default=2, help="cold+warm process pairs per case (best shown)")
    parser.add_argument("--repeat", type=int, default=7, help="rounds of the steady-state comparison")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument(
        "--cases", help="comma-separated row names to run (default: all), e.g. 'Kiln PyNative,JAX jax.jit'"
    )
    parser.add_argument("--no-steady", action="store_true", help="leave out the in-process steady-state table")
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(_worker(args.worker)))
        return
    print_device()
    results, sizes = run_cases(args.tries, frozenset(args.cases.split(",")) if args.cases else None)
    none = (None, None)
    results = {name: results.get(name, none) for _, name, _, _ in CASES} | results  # a case not run: n/a
    rows = []
    get = lambda r, k: r[k] if r else None  # noqa: E731
    for temp, idx in (("cold", 0), ("warm", 1)):
        py = results["Kiln PyNative"][idx]
        graph, jx = results["Kiln GRAPH_MODE"][idx], results["JAX jax.jit"][idx]
        msp = results.get("MindSpore 2.10 PyNative", none)[idx]
        case_i, case_p, case_g = f"import, {temp}", f"first PyNative LeNet5 step, {temp}", f"first Graph call, {temp}"
        rows.append(Row(case_i, "Kiln `import kiln`", get(py, "import")))
        rows.append(Row(case_i, "MindSpore 2.10", get(msp, "import"), "Kiln `import kiln`", "", "" if msp else "n/a"))
        target_p = "<= 1.0 s" if temp == "cold" else "<= 0.5 s"
        rows.append(Row(case_p, "Kiln PyNative", get(py, "total"), "before: jax.jit kernels", target_p, _split(py)))
        for name in PYNATIVE_VARIANTS:
            r = results[name][idx]
            base = None if name == "before: jax.jit kernels" else "before: jax.jit kernels"
            note = ("KILN_CACHE_DIR=off: " if name == "cache off" else "") + _split(r)
            rows.append(Row(case_p, name, get(r, "total"), base, "", note))
        rows.append(Row(case_p, "MindSpore 2.10 PyNative", get(msp, "total"), "Kiln PyNative", "", _split(msp)))
        target_g = "<= 1.10x JAX" if temp == "cold" else "<= 0.25 s"
        rows.append(Row(case_g, "Kiln GRAPH_MODE", get(graph, "total"), "JAX jax.jit", target_g, _split(graph)))
        tiers_off = results["graph tiered off"][idx]
        note = "KILN_TIERED=0: " + _split(tiers_off)
        rows.append(Row(case_g, "graph tiered off", get(tiers_off, "total"), "JAX jax.jit", "", note))
        off = results["graph cache off"][idx]
        rows.append(
            Row(case_g, "graph cache off", get(off, "total"), "JAX jax.jit", "", "KILN_GRAPH_CACHE=0: " + _split(off))
        )
        rows.append(Row(case_g, "JAX jax.jit", get(jx, "total"), None, "", _split(jx)))
    print_table(f"First results in fresh processes, seconds after `import` returned (best of {args.tries} each)", rows)
    for name in ("Kiln PyNative", "before: jax.jit kernels", "Kiln GRAPH_MODE", "graph cache off"):
        files, size = sizes.get(name, (0, 0))
        print(f"cache folder after one cold {name} process: {files} files, {size / 2**20:.2f} MiB")
    if not args.no_steady:
        print_table(
            "What the executable store and compile-ahead cost once warm (this process, rounds interleaved, median)",
            steady_costs(args.repeat),
        )


def _split(r: dict | None) -> str:
    if not r:
        return "n/a"
    text = f"build {format_time(r['build'])} + first step {format_time(r['step'])}"
    if "compiles" in r:
        text += f", {r['compiles']} XLA compiles"
        if r.get("compiles"):
            text += f" ({format_time(r.get('compile_s', 0.0))} of compiling, all threads)"
    if r.get("reads"):
        text += f", {r['reads']} entries read ({r['read_bytes'] / 2**10:.0f} KiB)"
    return text


if __name__ == "__main__":
    main()
