"""PyNative (eager) speed: dispatch overhead of one small op, and a LeNet5 training step.

    python -m benchmarks pynative            (or: python -m benchmarks.bench_pynative [--repeat N] [--steps N])

(a) `ops.add` on two (4, 4) float32 tensors vs raw JAX eager `jnp.add` on device arrays
    (target: <= 1.5x), vs a call of a jitted `jnp.add` (the backend's launch floor) and vs PyTorch's
    `torch.add`, with a few other small-op paths for context.
(b) LeNet5 train step (batch 32, 1x32x32, value_and_grad + nn.Momentum), the same MindSpore-API
    code run by Kiln in PyNative mode and by MindSpore 2.10 PyNative in its own environment
    (target: >= 10x faster than MindSpore), against PyTorch eager (target: <= 1.2x) and
    hand-written JAX (eager and jit, for context).
PyTorch runs on CUDA when Kiln runs on a GPU and torch sees one (each torch row's note names its device).

Each LeNet5 row's note gives the process CPU per step and, for Kiln, the CPU Kiln's background threads (tier-up,
kernel upgrades, cache writes) used during its timed rounds: 0 in a steady state (the rounds start after
`cache.wait_optimized()` and `cache.flush_writes()`). A row slower than in bench_graph with the same CPU per step waited
for a busy machine; the @jit row's note gives the load average over the rounds.

Peers that are not installed are reported as n/a. MindSpore runs as a subprocess with the
interpreter in $KILN_MINDSPORE_PYTHON (default /work/msenv/bin/python) when it exists.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import numpy as np

if __package__ in (None, ""):  # run as a script (the MindSpore worker): make `benchmarks` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.common import Row, measure, measure_interleaved, print_table, torch_device  # noqa: E402

MINDSPORE_PYTHON = os.environ.get("KILN_MINDSPORE_PYTHON") or next(
    (p for p in ("/work/msvenv/bin/python", "/work/msenv/bin/python") if Path(p).exists()), "/work/msenv/bin/python"
)
BATCH, CLASSES = 32, 10


# ---- (a) dispatch ------------------------------------------------------------------------------------
def bench_dispatch(repeat: int) -> list[Row]:
    import kiln
    from kiln import Tensor, ops
    from kiln._backend import jax, jnp

    a = np.random.default_rng(0).standard_normal((4, 4)).astype(np.float32)
    x, y = Tensor(a), Tensor(a + 1)
    jx, jy = jax.device_put(a), jax.device_put(a + 1)
    number = 2000
    case = "(a) add (4,4) float32, one eager call"
    t_jax = measure(lambda: jnp.add(jx, jy), number=number, repeat=repeat)
    jitted_add = jax.jit(jnp.add)
    t_jit = measure(lambda: jitted_add(jx, jy), number=number, repeat=repeat)
    t_torch = None
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None:
        tx, ty = (torch.from_numpy(v).to(torch_device(torch)) for v in (a, a + 1))
        t_torch = measure(lambda: torch.add(tx, ty), number=number, repeat=repeat)
    from kiln._backend import cache
    from kiln._pynative import dispatch

    add = ops.Add()  # a Primitive is built once, as in a Cell's __init__
    chain = {"y": y}

    def add_chain():  # each add depends on the one before: the lazy window computes every one
        chain["y"] = ops.add(chain["y"], x)
        return chain["y"]

    kiln_cases = {
        "Kiln ops.add": lambda: ops.add(x, y),
        "Kiln x + y": lambda: x + y,
        "Kiln ops.Add() instance": lambda: add(x, y),
        "Kiln ops.add, KILN_LAZY=0": lambda: ops.add(x, y),
        "Kiln y = ops.add(y, x) chain": add_chain,
        "Kiln ops.matmul": lambda: ops.matmul(x, y),
    }

    @contextmanager
    def mode(name):
        saved = dispatch.LAZY
        dispatch.LAZY = saved and not name.endswith("KILN_LAZY=0")
        try:
            yield
        finally:
            dispatch.LAZY = saved

    # Kiln's kernels reach their steady state first: the first calls compile a quick executable, the optimised
    # one is compiled in the background from the second call and the entries are written to disk meanwhile; a
    # case timed while that runs pays for it (the 163 us of `ops.add`, timed first, against 15.6 us for `x + y`).
    for name, fn in kiln_cases.items():
        with mode(name):
            for _ in range(3 * number):
                out = fn()
            out.asnumpy()
    cache.wait_optimized()
    cache.flush_writes()
    times = measure_interleaved(kiln_cases, number=number, repeat=repeat, around=mode)
    t_kiln, t_op, t_prim = times["Kiln ops.add"], times["Kiln x + y"], times["Kiln ops.Add() instance"]
    t_matmul_jax = measure(lambda: jnp.matmul(jx, jy), number=number, repeat=repeat)
    t_matmul = times["Kiln ops.matmul"]

    def taped():
        return kiln.grad(lambda u: ops.add(u, y).sum())(x)

    t_taped = measure(taped, number=200, repeat=repeat)
    lazy_note = "lazy window: a call records the op; an unread result is never computed"
    return [
        Row(case, "JAX jnp.add", t_jax),
        Row(case, "JAX jax.jit(jnp.add)", t_jit, None, "", "a jitted call: the backend's launch floor"),
        Row(case, "PyTorch torch.add", t_torch, None, "", "" if t_torch is not None else "PyTorch not installed"),
        Row(case, "Kiln ops.add", t_kiln, "JAX jnp.add", "<= 1.5x", lazy_note),
        Row(case, "Kiln ops.add, KILN_LAZY=0", times["Kiln ops.add, KILN_LAZY=0"], "JAX jnp.add", "", "launched"),
        Row(case, "Kiln y = ops.add(y, x) chain", times["Kiln y = ops.add(y, x) chain"], "JAX jnp.add", "", "computed"),
        Row(case, "Kiln ops.add, vs jit", t_kiln, "JAX jax.jit(jnp.add)", "", "the same figure, other base"),
        Row(case, "Kiln ops.add, vs torch", t_kiln, "PyTorch torch.add", "", "the same figure, other base"),
        Row(case, "Kiln x + y", t_op, "JAX jnp.add"),
        Row(case, "Kiln ops.Add() instance", t_prim, "JAX jnp.add"),
        Row("(a) matmul (4,4) float32, one eager call", "JAX jnp.matmul", t_matmul_jax),
        Row("(a) matmul (4,4) float32, one eager call", "Kiln ops.matmul", t_matmul, "JAX jnp.matmul"),
        Row("(a) grad of add(x, y).sum() (3 ops + 3 bwd)", "Kiln", t_taped, None, "", "context"),
    ]


# ---- (b) LeNet5, written once against the MindSpore API ----------------------------------------------
def lenet_train_step(ms, compiled: bool = False):
    """Build LeNet5 and its train step with the framework module `ms` (kiln or mindspore).

    Args:
        ms: the framework module.
        compiled: wrap the step in `ms.jit` (graph mode), to compare the same code compiled.

    Returns:
        A function running one step on fixed data and returning the loss.
    """
    nn = ms.nn
    normal = importlib.import_module(f"{ms.__name__}.common.initializer").Normal

    class LeNet5(nn.Cell):
        def __init__(self, num_class=CLASSES, num_channel=1):
            super().__init__()
            self.conv1 = nn.Conv2d(num_channel, 6, 5, pad_mode="valid")
            self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid")
            self.fc1 = nn.Dense(16 * 5 * 5, 120, weight_init=normal(0.02))
            self.fc2 = nn.Dense(120, 84, weight_init=normal(0.02))
            self.fc3 = nn.Dense(84, num_class, weight_init=normal(0.02))
            self.relu = nn.ReLU()
            self.max_pool2d = nn.MaxPool2d(kernel_size=2, stride=2)
            self.flatten = nn.Flatten()

        def construct(self, x):
            x = self.max_pool2d(self.relu(self.conv1(x)))
            x = self.max_pool2d(self.relu(self.conv2(x)))
            x = self.flatten(x)
            x = self.relu(self.fc1(x))
            x = self.relu(self.fc2(x))
            return self.fc3(x)

    net = LeNet5()
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    optimizer = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)

    def forward_fn(data, label):
        logits = net(data)
        return loss_fn(logits, label), logits

    grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)

    def train_step(data, label):
        (loss, _), grads = grad_fn(data, label)
        optimizer(grads)
        return loss

    if compiled:
        train_step = ms.jit(train_step)
    rng = np.random.default_rng(0)
    data = ms.Tensor(rng.standard_normal((BATCH, 1, 32, 32)).astype(np.float32))
    label = ms.Tensor(rng.integers(0, CLASSES, BATCH).astype(np.int32))
    return lambda: train_step(data, label)


def _lenet_steps(step, steps: int, repeat: int) -> float:
    return measure(step, number=steps, repeat=repeat, warmup=3)


def lenet_kiln_steps() -> dict:
    """Kiln PyNative steps by dispatch mode: {case: (step, lazy window on, backward as one program)}."""
    import kiln
    from kiln._backend import cache

    kiln.set_context(mode=kiln.PYNATIVE_MODE)
    kiln.set_seed(0)
    cases = {
        "Kiln (PyNative)": (lenet_train_step(kiln), True, True),
        "Kiln, KILN_LAZY=0": (lenet_train_step(kiln), False, True),
        "Kiln, op by op": (lenet_train_step(kiln), False, False),
        "Kiln @jit (graph)": (lenet_train_step(kiln, compiled=True), True, True),
    }
    for name in cases:
        with _kiln_mode(cases, name):
            for _ in range(3):  # quick kernels: their optimised executables are asked for at the second call
                cases[name][0]().asnumpy()
    # a steady state: nothing compiling or writing in the background (measure_interleaved's `cpu` shows it stayed so)
    cache.wait_optimized()
    cache.flush_writes()
    return cases


@contextmanager
def _kiln_mode(cases: dict, name: str):
    from kiln._pynative import dispatch, tape

    saved = dispatch.LAZY, tape.FUSED_BACKWARD
    if name in cases:
        dispatch.LAZY, tape.FUSED_BACKWARD = cases[name][1], cases[name][2]
    try:
        yield
    finally:
        dispatch.LAZY, tape.FUSED_BACKWARD = saved


def bench_lenet_mindspore(steps: int, repeat: int) -> tuple[float | None, str]:
    """MindSpore 2.10 PyNative, in its own interpreter: (seconds per step or None, note)."""
    if not Path(MINDSPORE_PYTHON).exists():
        return None, f"no MindSpore interpreter at {MINDSPORE_PYTHON}"
    cmd = [MINDSPORE_PYTHON, str(Path(__file__).resolve()), "--mindspore-worker", f"--steps={steps}"]
    proc = subprocess.run(cmd + [f"--repeat={repeat}"], capture_output=True, text=True, check=False)
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith("{"):
            return json.loads(line)["seconds_per_step"], ""
    return None, "MindSpore run failed: " + (proc.stderr.strip().splitlines() or ["?"])[-1][:120]


def _mindspore_worker(steps: int, repeat: int) -> None:
    import mindspore as ms

    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    ms.set_seed(0)
    seconds = _lenet_steps(lenet_train_step(ms), steps, repeat)
    print(json.dumps({"seconds_per_step": seconds}))


def lenet_torch_step(threads: int | None):
    """PyTorch eager's LeNet5 step on `threads` intra-op threads (None: its default, as at import): (step, note),
    or (None, why). The step sets its thread count itself, so that it can be interleaved with another."""
    try:
        import torch
    except ImportError:
        return None, "PyTorch not installed"
    from torch import nn as tnn

    wanted = threads or _TORCH_DEFAULT_THREADS.setdefault("n", torch.get_num_threads())
    torch.manual_seed(0)
    net = tnn.Sequential(
        tnn.Conv2d(1, 6, 5), tnn.ReLU(), tnn.MaxPool2d(2, 2),
        tnn.Conv2d(6, 16, 5), tnn.ReLU(), tnn.MaxPool2d(2, 2), tnn.Flatten(),
        tnn.Linear(400, 120), tnn.ReLU(), tnn.Linear(120, 84), tnn.ReLU(), tnn.Linear(84, CLASSES),
    )  # fmt: skip
    device = torch_device(torch)
    net = net.to(device)
    opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    loss_fn = tnn.CrossEntropyLoss()
    rng = np.random.default_rng(0)
    data = torch.from_numpy(rng.standard_normal((BATCH, 1, 32, 32)).astype(np.float32)).to(device)
    label = torch.from_numpy(rng.integers(0, CLASSES, BATCH).astype(np.int64)).to(device)

    def step():
        if torch.get_num_threads() != wanted:
            torch.set_num_threads(wanted)
        opt.zero_grad()
        loss = loss_fn(net(data), label)
        loss.backward()
        opt.step()
        return loss.detach()

    return step, f"torch {torch.__version__} on {device}, {wanted} thread(s)"


_TORCH_DEFAULT_THREADS: dict = {}


def _jax_lenet():
    """The same network and Momentum update, hand-written in JAX."""
    from kiln._backend import jax, jnp, lax

    rng = np.random.default_rng(0)
    shapes = [(6, 1, 5, 5), (6,), (16, 6, 5, 5), (16,), (120, 400), (120,), (84, 120), (84,), (CLASSES, 84), (CLASSES,)]
    ws = [jnp.asarray(rng.normal(0, 0.05, s).astype(np.float32)) for s in shapes]
    moms = [jnp.zeros_like(w) for w in ws]

    def conv(x, w, b):
        y = lax.conv_general_dilated(x, w, (1, 1), "VALID", dimension_numbers=("NCHW", "OIHW", "NCHW"))
        return y + b[None, :, None, None]

    def pool(x):
        return lax.reduce_window(x, -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")

    def loss_fn(ws, x, y):
        h = pool(jax.nn.relu(conv(x, ws[0], ws[1])))
        h = pool(jax.nn.relu(conv(h, ws[2], ws[3]))).reshape(x.shape[0], -1)
        h = jax.nn.relu(h @ ws[4].T + ws[5])
        h = jax.nn.relu(h @ ws[6].T + ws[7])
        logits = h @ ws[8].T + ws[9]
        return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(logits), y[:, None], 1))

    def step(ws, moms, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(ws, x, y)
        moms = [0.9 * m + g for m, g in zip(moms, grads)]
        return loss, [w - 0.01 * m for w, m in zip(ws, moms)], moms

    x = jnp.asarray(rng.standard_normal((BATCH, 1, 32, 32)).astype(np.float32))
    y = jnp.asarray(rng.integers(0, CLASSES, BATCH).astype(np.int32))
    return step, ws, moms, x, y, jax


def bench_lenet_jax(steps: int, repeat: int) -> tuple[float, float]:
    step, ws, moms, x, y, jax = _jax_lenet()
    state = {"ws": ws, "moms": moms}

    def run(fn):
        def once():
            loss, state["ws"], state["moms"] = fn(state["ws"], state["moms"], x, y)
            return loss

        return once

    t_eager = _lenet_steps(run(step), steps, repeat)
    t_jit = _lenet_steps(run(jax.jit(step)), steps, repeat)
    return t_eager, t_jit


def bench_lenet(steps: int, repeat: int) -> list[Row]:
    """Kiln's dispatch modes and PyTorch eager (its default threads and one thread), rounds interleaved."""
    case = "(b) LeNet5 train step, batch 32, PyNative"
    kiln_cases = lenet_kiln_steps()
    cases = {name: step for name, (step, _, _) in kiln_cases.items()}
    torch_default, torch_note = lenet_torch_step(None)
    torch_one, torch1_note = lenet_torch_step(1)
    if torch_default is not None:
        # PyTorch's default thread count can collapse on a busy 2-core machine (spinning workers): measure it on
        # its default and on one thread, and compare Kiln with the faster. Its 1-thread round follows its default
        # one, not a Kiln case: PyTorch's OpenMP worker keeps spinning after a round (a @jit round run right after a
        # 2-thread PyTorch round took 2.7x the wall time, its worker using 0.75 ms of CPU per step; load 14)
        cases["PyTorch eager"], cases["PyTorch eager, 1 thread"] = torch_default, torch_one
    cpu: dict = {}
    load_before = os.getloadavg()[0]
    times = measure_interleaved(
        cases, number=steps, repeat=repeat, warmup=3, around=lambda name: _kiln_mode(kiln_cases, name), cpu=cpu
    )
    load = f"load average {load_before:.1f} -> {os.getloadavg()[0]:.1f} over the rounds"
    best = None
    if torch_default is not None:
        best = (
            "PyTorch eager" if times["PyTorch eager"] <= times["PyTorch eager, 1 thread"] else "PyTorch eager, 1 thread"
        )
    t_ms, ms_note = bench_lenet_mindspore(steps, repeat)
    t_jax_eager, t_jax_jit = bench_lenet_jax(steps, repeat)
    k = "Kiln (PyNative)"

    def used(name: str, note: str) -> str:
        # Process CPU per step says whether a slow round did more work or waited for a busy machine; Kiln's
        # background threads' CPU during the rounds (0 in a steady state) says whether Kiln was still compiling
        # or writing beside them.
        process, background = cpu[name]
        text = f"{note}; CPU {process * 1e3:.2f} ms/step"
        return text + (f", Kiln background {background * 1e3:.2f} ms/step" if name in kiln_cases else "")

    jit_, t1 = "Kiln @jit (graph)", "PyTorch eager, 1 thread"
    notes = {
        k: "lazy window: the step is one program",
        "Kiln, KILN_LAZY=0": "ops launched one by one",
        "Kiln, op by op": "KILN_LAZY=0 KILN_FUSED_BACKWARD=0",
        jit_: f"the step compiled; {load}",
        "PyTorch eager": torch_note,
        t1: torch1_note,
    }
    notes = {name: used(name, note) if name in cpu else note for name, note in notes.items()}
    return [
        Row(case, k, times[k], best, "<= 1.2x PyTorch eager (the faster)", notes[k]),
        Row(case, "Kiln, KILN_LAZY=0", times["Kiln, KILN_LAZY=0"], k, "", notes["Kiln, KILN_LAZY=0"]),
        Row(case, "Kiln, op by op", times["Kiln, op by op"], k, "", notes["Kiln, op by op"]),
        Row(case, jit_, times[jit_], best, "<= 0.8x PyTorch eager", notes[jit_]),
        Row(case, "PyTorch eager", times.get("PyTorch eager"), None, "", notes["PyTorch eager"]),
        Row(case, t1, times.get(t1), None, "", notes[t1]),
        Row(case, "MindSpore 2.10 PyNative", t_ms, k, ">= 10x Kiln", ms_note),
        Row(case, "JAX eager (hand-written)", t_jax_eager, k, "", "context"),
        Row(case, "JAX jax.jit (hand-written)", t_jax_jit, k, "", "context: whole step compiled"),
    ]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=7, help="timed rounds per case (the median is shown)")
    parser.add_argument("--steps", type=int, default=10, help="LeNet5 steps per timed round")
    parser.add_argument("--mindspore-worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.mindspore_worker:
        _mindspore_worker(args.steps, args.repeat)
        return
    rows = bench_dispatch(args.repeat) + bench_lenet(args.steps, args.repeat)
    print_table("PyNative: eager dispatch and a LeNet5 train step (median of repeats)", rows)


if __name__ == "__main__":
    main()
