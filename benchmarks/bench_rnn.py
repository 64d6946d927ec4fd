"""Recurrent layers against sequence length: a 2-layer bidirectional nn.LSTM(32, 64) train step, batch 8.

    python -m benchmarks rnn                    (or: python -m benchmarks.bench_rnn [--lengths 50,500,2000])

Each cell is a fresh interpreter: build the network (LSTM, a Dense head on the last step, softmax cross
entropy, Adam) as nn.TrainOneStepCell(nn.WithLossCell(...)), then the first step (trace, compile, run: what a
user waits for) and the median of the following steps. Kiln in GRAPH_MODE and PyNative, MindSpore 2.10 in
both modes in its own interpreter ($KILN_MINDSPORE_PYTHON, default /tmp/msvenv/bin/python; left out when
absent). Kiln's caches are off (KILN_GRAPH_CACHE=0 and KILN_CACHE_DIR=off, as in bench_zoo.py) so every first
step compiles everything: with the executable cache folder on, an earlier run's optimised programs were loaded
from it instead of compiled. Kiln's first steps run
quickly compiled programs (kiln/_backend/tiers.py): as in benchmarks/bench_zoo.py, one more step runs on them
(its time is printed), then the steady steps are timed once the optimised programs have taken over and the steps
no longer fault their temporary buffers in afresh (`_settle`; each cell prints how many timed steps still did and
their median system time). Issue 21's
bound: Kiln's GRAPH_MODE first step at most MindSpore's and flat in length, its steady step at most half of
MindSpore's.

MindSpore at length 500 takes minutes: `--mindspore-results FILE` keeps its cells in FILE (written when they
run, read back when FILE holds them) and `--cells` picks the cells run, so Kiln's side can be re-run alone.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script (the MindSpore worker): make `benchmarks` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bench_zoo import _xla_compiles  # noqa: E402
from benchmarks.common import measure_interleaved, print_device, run_worker  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
MINDSPORE_PYTHON = os.environ.get("KILN_MINDSPORE_PYTHON") or next(
    (p for p in ("/tmp/msvenv/bin/python", "/work/msvenv/bin/python") if Path(p).exists()), "/tmp/msvenv/bin/python"
)


# minor page faults above which a steady step counts as having faulted its temporary buffer in afresh (the length-500
# step's is about 54 MB: 13,800 faults of 4 KB; a step that reuses it takes tens)
FAULTED_STEP = 1000
# Untimed steps before the timed ones, until two in a row fault fewer pages in (at most this many): each of XLA's
# threads that runs a step maps a heap for its temporary buffer the first time (kiln/_backend/host_memory.py keeps
# it; before, glibc deleted it at each free), and a step that does takes 20-28 ms of system time at length 500 (a
# quiet 5-step median read 40.9 ms against 25 ms in the next runs)
SETTLE_STEPS = 20


def _settle(run) -> int:
    """Call `run()` until two calls in a row fault at most FAULTED_STEP pages in (or SETTLE_STEPS calls); how many."""
    quiet = 0
    for calls in range(1, SETTLE_STEPS + 1):
        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        run()
        quiet = quiet + 1 if resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before <= FAULTED_STEP else 0
        if quiet == 2:
            return calls
    return SETTLE_STEPS


CELLS = ("kiln-graph", "kiln-pynative", "mindspore-graph", "mindspore-pynative")

# the network's sizes (`_worker`'s Net): LSTM(INPUT, HIDDEN, num_layers=LAYERS, bidirectional=True), batch BATCH
INPUT, HIDDEN, LAYERS, DIRECTIONS, BATCH, CLASSES = 32, 64, 2, 2, 8, 2
MATMUL_SIZE = 512  # the reference product, (512x512)@(512x512): 2 * 512**3 FLOPs


def step_multiply_adds(steps: int) -> dict[str, int]:
    """The train step's multiply-adds in its matrix products, {"outside": ..., "loops": ...}: the products over all
    time steps at once (input projections, their weight and input gradients, the hidden weights' gradients, the head)
    and the products the time loops run one step at a time (h @ w_hh forward, d_gates @ w_hh backward). The
    elementwise work (gates, activations, Adam) is left out: a few percent of these."""
    gates = 4 * HIDDEN
    outside = loops = 0
    for layer in range(LAYERS):
        width = INPUT if layer == 0 else DIRECTIONS * HIDDEN
        per_time = BATCH * DIRECTIONS
        projection = steps * per_time * width * gates  # x @ w_ih.T, each direction
        outside += 2 * projection if layer > 0 else projection  # and its input's gradient (none for the data)
        outside += projection  # the input weight's gradient
        outside += steps * per_time * HIDDEN * gates  # the hidden weight's gradient, one product after the loop
        loops += 2 * steps * per_time * HIDDEN * gates  # h @ w_hh forward and d_gates @ w_hh backward, per step
    head = BATCH * DIRECTIONS * HIDDEN * CLASSES
    return {"outside": outside + 3 * head, "loops": loops}  # the head: forward, weight and input gradients


def _worker(framework: str, mode: str, steps: int, repeat: int) -> dict:
    import numpy as np

    if framework == "mindspore":
        import mindspore as ms
        from mindspore import nn

        ms.set_context(device_target="CPU")
        compiles = None
    else:
        import kiln as ms
        from kiln import nn

        compiles = _xla_compiles()

    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    ms.set_seed(0)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(32, 64, num_layers=2, bidirectional=True)
            self.head = nn.Dense(128, 2)

        def construct(self, x):
            out, _ = self.lstm(x)
            return self.head(out[-1])

    net = Net()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.Adam(net.trainable_params(), 1e-3))
    rng = np.random.default_rng(0)
    x = ms.Tensor(rng.standard_normal((steps, 8, 32)).astype(np.float32))
    y = ms.Tensor(rng.integers(0, 2, 8).astype(np.int32))
    t0 = time.perf_counter()
    first = float(step(x, y).asnumpy())
    t1 = time.perf_counter()
    result = {"first": t1 - t0, "loss": first}
    if compiles is not None:
        from kiln._backend import tiers

        result["xla_compile"] = sum(c[0] for c in compiles)
        result["compiles"] = len(compiles)
        t = time.perf_counter()
        step(x, y).asnumpy()
        result["quick_step"] = time.perf_counter() - t
        t = time.perf_counter()
        tiers.wait()
        result["tier_wait"] = time.perf_counter() - t
        step(x, y).asnumpy()  # the call boundary where the optimised programs take over
    result["settle"] = _settle(lambda: step(x, y).asnumpy())
    times, faults, system = [], [], []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_SELF)
        t = time.perf_counter()
        step(x, y).asnumpy()
        times.append(time.perf_counter() - t)
        after = resource.getrusage(resource.RUSAGE_SELF)
        faults.append(after.ru_minflt - before.ru_minflt)
        system.append(after.ru_stime - before.ru_stime)
    # a step whose temporary buffer the C allocator mapped afresh faults all its pages in (kernel time): said per cell,
    # so that a slow reading shows whether it was that
    faulted = sum(f > FAULTED_STEP for f in faults)
    steady = {"step": statistics.median(times), "system": statistics.median(system), "faulted": faulted}
    if compiles is not None:
        result.update(_against_matmul(lambda: step(x, y), repeat))
    return {**result, **steady, "timed": repeat}


def _against_matmul(run, repeat: int) -> dict:
    """Median seconds of `run()` and of a (512x512)@(512x512) float32 matmul (jax.jit), their calls interleaved."""
    import jax  # the MindSpore worker imports this module without JAX

    a = jax.numpy.ones((MATMUL_SIZE, MATMUL_SIZE), "float32")
    dot = jax.jit(lambda u: u @ u)
    times = measure_interleaved({"step": run, "matmul": lambda: dot(a)}, number=1, repeat=max(repeat, 5), warmup=2)
    return {"step_beside_matmul": times["step"], "matmul": times["matmul"]}


def _spawn(framework: str, mode: str, steps: int, repeat: int) -> dict | None:
    python = MINDSPORE_PYTHON if framework == "mindspore" else sys.executable
    env = {**os.environ, "PYTHONPATH": str(REPO), "KILN_GRAPH_CACHE": "0", "KILN_CACHE_DIR": "off"}
    return run_worker("benchmarks.bench_rnn", ["--worker", framework, mode, str(steps), str(repeat)], python, env)


def _floor_line(steps: int, r: dict) -> str:
    """The step's multiply-adds and GFLOP/s, against the 512^3 matmul timed beside it in the same process."""
    macs = step_multiply_adds(steps)
    flop = 2 * (macs["outside"] + macs["loops"])
    peak = 2 * MATMUL_SIZE**3 / r["matmul"] / 1e9
    rate = flop / r["step_beside_matmul"] / 1e9
    return (f"{'':>8}step {(macs['outside'] + macs['loops']) / 1e9:.3f} G multiply-adds ({macs['loops'] / 1e9:.3f} G "
            f"in the time loops); {1000 * r['step_beside_matmul']:.1f}ms beside the matmul: {rate:.1f} GFLOP/s, "
            f"{rate / peak:.0%} of the 512^3 matmul's {peak:.1f} (at its rate the step would take "
            f"{flop / peak / 1e6:.2f}ms)")  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", default="50,500,2000", help="sequence lengths, comma-separated")
    parser.add_argument("--repeat", type=int, default=5, help="steady steps timed per cell")
    parser.add_argument("--mindspore-max-length", type=int, default=500,
                        help="longest sequence MindSpore runs (its steps grow long past it)")  # fmt: skip
    parser.add_argument("--cells", default=",".join(CELLS), help="cells run, comma-separated, of " + ",".join(CELLS))
    parser.add_argument("--mindspore-results", type=Path,
                        help="JSON file of MindSpore's cells: read when it holds a cell, else written")  # fmt: skip
    parser.add_argument("--worker", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        framework, mode, steps, repeat = args.worker
        print(json.dumps(_worker(framework, mode, int(steps), int(repeat))))
        return
    print_device()
    have_ms = Path(MINDSPORE_PYTHON).exists()
    print(f"LSTM(32, 64, num_layers=2, bidirectional=True), batch 8, train step; MindSpore: "
          f"{MINDSPORE_PYTHON if have_ms else 'not found (set KILN_MINDSPORE_PYTHON)'}")  # fmt: skip
    print(f"{'length':>7} {'framework':<22} {'first step':>11} {'steady step':>12} {'first / MS':>11} "
          f"{'step / MS':>10}")  # fmt: skip
    cells = args.cells.split(",")
    saved = {}
    if args.mindspore_results is not None and args.mindspore_results.exists():
        saved = json.loads(args.mindspore_results.read_text())
    for steps in (int(s) for s in args.lengths.split(",")):
        results = {}
        for cell in CELLS:
            framework, mode = cell.split("-")
            if framework == "mindspore":
                if f"{mode} {steps}" in saved:  # MindSpore's cell from an earlier run
                    results[framework, mode] = saved[f"{mode} {steps}"]
                    continue
                if not have_ms or steps > args.mindspore_max_length:
                    continue
            if cell not in cells:
                continue
            repeat = args.repeat if framework == "kiln" else max(1, min(args.repeat, 3))
            results[framework, mode] = _spawn(framework, mode, steps, repeat)
            if framework == "mindspore" and args.mindspore_results is not None and results[framework, mode]:
                saved[f"{mode} {steps}"] = results[framework, mode]
                args.mindspore_results.write_text(json.dumps(saved, indent=1))
        for (framework, mode), r in results.items():
            if r is None:
                continue
            ms_r = results.get(("mindspore", mode))
            ratio_first = f"{r['first'] / ms_r['first']:.2f}x" if ms_r and framework == "kiln" else ""
            ratio_step = f"{r['step'] / ms_r['step']:.2f}x" if ms_r and framework == "kiln" else ""
            name = f"{'Kiln' if framework == 'kiln' else 'MindSpore 2.10'} {mode}"
            print(f"{steps:>7} {name:<22} {r['first']:>10.2f}s {1000 * r['step']:>10.1f}ms {ratio_first:>11} "
                  f"{ratio_step:>10}", flush=True)  # fmt: skip
            if "quick_step" in r:
                print(f"{'':>8}first step's XLA compiles {r['xla_compile']:.2f}s ({r['compiles']}); next step "
                      f"(quick tier) {1000 * r['quick_step']:.1f}ms; waited {r['tier_wait']:.2f}s for the "
                      f"optimised tier", flush=True)  # fmt: skip
            if "faulted" in r:
                print(f"{'':>8}untimed settling steps {r['settle']}; timed steps that faulted over {FAULTED_STEP} "
                      f"pages in: {r['faulted']} of {r['timed']}; "
                      f"median system time {1000 * r['system']:.1f}ms a step", flush=True)  # fmt: skip
            if "matmul" in r:
                print(_floor_line(steps, r), flush=True)


if __name__ == "__main__":
    main()
