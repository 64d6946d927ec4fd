"""PyNative (eager) speed: dispatch overhead of one small op, and a LeNet5 training step.

    python -m benchmarks pynative            (or: python -m benchmarks.bench_pynative [--repeat N] [--steps N])

(a) `ops.add` on two (4, 4) float32 tensors vs raw JAX eager `jnp.add` on device arrays
    (target: <= 1.5x), vs a call of a jitted `jnp.add` (the backend's launch floor) and vs PyTorch's
    `torch.add`, with a few other small-op paths for context.
(b) LeNet5 train step (batch 32, 1x32x32, value_and_grad + nn.Momentum), the same MindSpore-API
    code run by Kiln in PyNative mode and by MindSpore 2.10 PyNative in its own environment
    (target: >= 10x faster than MindSpore), against PyTorch eager (target: <= 1.2x) and
    hand-written JAX (eager and jit, for context).

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
from pathlib import Path

import numpy as np

if __package__ in (None, ""):  # run as a script (the MindSpore worker): make `benchmarks` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.common import Row, measure, print_table  # noqa: E402

MINDSPORE_PYTHON = os.environ.get("KILN_MINDSPORE_PYTHON", "/work/msenv/bin/python")
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
        tx, ty = torch.from_numpy(a), torch.from_numpy(a + 1)
        t_torch = measure(lambda: torch.add(tx, ty), number=number, repeat=repeat)
    t_kiln = measure(lambda: ops.add(x, y), number=number, repeat=repeat)
    t_op = measure(lambda: x + y, number=number, repeat=repeat)
    add = ops.Add()  # a Primitive is built once, as in a Cell's __init__
    t_prim = measure(lambda: add(x, y), number=number, repeat=repeat)
    t_matmul_jax = measure(lambda: jnp.matmul(jx, jy), number=number, repeat=repeat)
    t_matmul = measure(lambda: ops.matmul(x, y), number=number, repeat=repeat)

    def taped():
        return kiln.grad(lambda u: ops.add(u, y).sum())(x)

    t_taped = measure(taped, number=200, repeat=repeat)
    return [
        Row(case, "JAX jnp.add", t_jax),
        Row(case, "JAX jax.jit(jnp.add)", t_jit, None, "", "a jitted call: the backend's launch floor"),
        Row(case, "PyTorch torch.add", t_torch, None, "", "" if t_torch is not None else "PyTorch not installed"),
        Row(case, "Kiln ops.add", t_kiln, "JAX jnp.add", "<= 1.5x"),
        Row(case, "Kiln ops.add, vs jit", t_kiln, "JAX jax.jit(jnp.add)", "", "the same figure, other base"),
        Row(case, "Kiln ops.add, vs torch", t_kiln, "PyTorch torch.add", "", "the same figure, other base"),
        Row(case, "Kiln x + y", t_op, "JAX jnp.add"),
        Row(case, "Kiln ops.Add() instance", t_prim, "JAX jnp.add"),
        Row("(a) matmul (4,4) float32, one eager call", "JAX jnp.matmul", t_matmul_jax),
        Row("(a) matmul (4,4) float32, one eager call", "Kiln ops.matmul", t_matmul, "JAX jnp.matmul"),
        Row("(a) grad of add(x, y).sum() (3 ops + 3 bwd)", "Kiln", t_taped, None, "", "context"),
    ]


# ---- (b) LeNet5, written once against the MindSpore API ----------------------------------------------
def lenet_train_step(ms):
    """Build LeNet5 and its PyNative train step with the framework module `ms` (kiln or mindspore)."""
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

    rng = np.random.default_rng(0)
    data = ms.Tensor(rng.standard_normal((BATCH, 1, 32, 32)).astype(np.float32))
    label = ms.Tensor(rng.integers(0, CLASSES, BATCH).astype(np.int32))
    return lambda: train_step(data, label)


def _lenet_steps(step, steps: int, repeat: int) -> float:
    return measure(step, number=steps, repeat=repeat, warmup=3)


def bench_lenet_kiln(steps: int, repeat: int, fused_backward: bool = True) -> float:
    """Kiln PyNative; `fused_backward=False`: the backward dispatched op by op (KILN_FUSED_BACKWARD=0)."""
    import kiln
    from kiln._backend import cache
    from kiln._pynative import tape

    kiln.set_context(mode=kiln.PYNATIVE_MODE)
    kiln.set_seed(0)
    saved, tape.FUSED_BACKWARD = tape.FUSED_BACKWARD, fused_backward
    try:
        step = lenet_train_step(kiln)
        for _ in range(3):  # quick kernels: their optimised executables are asked for at the second call
            step().asnumpy()
        cache.wait_optimized()  # a steady state: nothing compiling in the background
        return _lenet_steps(step, steps, repeat)
    finally:
        tape.FUSED_BACKWARD = saved


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


def bench_lenet_torch(steps: int, repeat: int, threads: int | None) -> tuple[float | None, str]:
    """PyTorch eager on `threads` intra-op threads (None: its default)."""
    try:
        import torch
    except ImportError:
        return None, "PyTorch not installed"
    from torch import nn as tnn

    saved = torch.get_num_threads()
    if threads is not None:
        torch.set_num_threads(threads)
    torch.manual_seed(0)
    net = tnn.Sequential(
        tnn.Conv2d(1, 6, 5), tnn.ReLU(), tnn.MaxPool2d(2, 2),
        tnn.Conv2d(6, 16, 5), tnn.ReLU(), tnn.MaxPool2d(2, 2), tnn.Flatten(),
        tnn.Linear(400, 120), tnn.ReLU(), tnn.Linear(120, 84), tnn.ReLU(), tnn.Linear(84, CLASSES),
    )  # fmt: skip
    opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    loss_fn = tnn.CrossEntropyLoss()
    rng = np.random.default_rng(0)
    data = torch.from_numpy(rng.standard_normal((BATCH, 1, 32, 32)).astype(np.float32))
    label = torch.from_numpy(rng.integers(0, CLASSES, BATCH).astype(np.int64))

    def step():
        opt.zero_grad()
        loss = loss_fn(net(data), label)
        loss.backward()
        opt.step()
        return loss.detach()

    try:
        seconds = _lenet_steps(step, steps, repeat)
        return seconds, f"torch {torch.__version__}, {torch.get_num_threads()} thread(s)"
    finally:
        torch.set_num_threads(saved)


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
    case = "(b) LeNet5 train step, batch 32, PyNative"
    t_kiln = bench_lenet_kiln(steps, repeat)
    t_kiln_per_op = bench_lenet_kiln(steps, repeat, fused_backward=False)
    # PyTorch's default thread count can collapse on a busy 2-core machine (spinning workers):
    # measure it on its default and on one thread, and compare Kiln with the faster.
    t_torch, torch_note = bench_lenet_torch(steps, repeat, None)
    t_torch1, torch1_note = bench_lenet_torch(steps, repeat, 1)
    best = None
    if t_torch is not None:
        best = "PyTorch eager" if t_torch <= t_torch1 else "PyTorch eager, 1 thread"
    t_ms, ms_note = bench_lenet_mindspore(steps, repeat)
    t_jax_eager, t_jax_jit = bench_lenet_jax(steps, repeat)
    return [
        Row(case, "Kiln (PyNative)", t_kiln, best, "<= 1.2x PyTorch eager (the faster)"),
        Row(case, "Kiln, backward op by op", t_kiln_per_op, "Kiln (PyNative)", "", "KILN_FUSED_BACKWARD=0"),
        Row(case, "PyTorch eager", t_torch, None, "", torch_note),
        Row(case, "PyTorch eager, 1 thread", t_torch1, None, "", torch1_note),
        Row(case, "MindSpore 2.10 PyNative", t_ms, "Kiln (PyNative)", ">= 10x Kiln", ms_note),
        Row(case, "JAX eager (hand-written)", t_jax_eager, "Kiln (PyNative)", "", "context"),
        Row(case, "JAX jax.jit (hand-written)", t_jax_jit, "Kiln (PyNative)", "", "context: whole step compiled"),
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
