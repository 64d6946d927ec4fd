"""Cost of the PyNative value checks (index and label bounds): the same calls with checks on and off.

    python -m benchmarks checks            (or: python -m benchmarks.bench_checks [--repeat N] [--steps N])
    python -m benchmarks.bench_checks --only lr-table     (the learning-rate table's check alone)

A checked primitive runs its bounds test on the host with NumPy, on its (small) index inputs only,
while the op itself runs asynchronously; `set_context(runtime_checks=False)` (or `KILN_CHECKS=off`)
skips it. Rounds of the two settings are interleaved and the best round of each is kept, so the load of other
processes on a shared machine hits both alike.
Target: <= 1.05x on the training steps (LeNet5, a small token transformer with an Embedding).

A learning rate given per step (a list or 1-D Tensor) is checked against the global step before each step (past the
table's end the step raises). The last table compares GRAPH_MODE TrainOneStepCell steps with a fixed rate, with such
a table (checked), and with the table unchecked (`set_checks(False)`), interleaved, and the same in PyNative. The
check reads the global step on the host: predicted from the step before (`input_checks.successors`) instead of read
back from the device, it need not wait for that step. Target: the table's step <= 1.05x the fixed rate's. (With
checks off a GRAPH_MODE call takes the compile cache's generic path, not its generated hit, so that setting is slower
than its program alone: a reference for the check's cost, not a floor.)
"""

from __future__ import annotations

import argparse
import functools
import sys
import time
from pathlib import Path

import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.common import Row, print_device, print_table, sync  # noqa: E402


def _pair(case: str, fn, number: int, repeat: int, target: str = "") -> list[Row]:
    """Best round of `number` calls with checks off and on, rounds interleaved.

    The best round (not the median) is reported: on a shared machine the other processes' load only
    ever adds time, and interleaving gives both settings the same chances at a quiet moment.
    """
    import kiln

    best = {}
    for on in (False, True, False, True):  # warm-up, both settings
        kiln.set_context(runtime_checks=on)
        sync(fn())
    for _ in range(repeat):
        for on in (False, True):
            kiln.set_context(runtime_checks=on)
            t0 = time.perf_counter()
            for _ in range(number):
                out = fn()
            sync(out)
            best[on] = min(best.get(on, float("inf")), (time.perf_counter() - t0) / number)
    kiln.set_context(runtime_checks=True)
    added = (best[True] - best[False]) * 1e6
    return [
        Row(case, "Kiln, checks off", best[False]),
        Row(case, "Kiln, checks on", best[True], "Kiln, checks off", target, f"{added:+.0f} us per call"),
    ]


def bench_ops(repeat: int) -> list[Row]:
    import kiln
    from kiln import Tensor, nn, ops

    rng = np.random.default_rng(0)
    x6 = Tensor(np.arange(6, dtype=np.float32))
    i2 = Tensor(np.array([1, 4], np.int64))
    table = Tensor(rng.standard_normal((10000, 128)).astype(np.float32))
    tokens = Tensor(rng.integers(0, 10000, (32, 64)).astype(np.int32))
    embedding = nn.Embedding(10000, 128)
    x2d = Tensor(rng.standard_normal((512, 64)).astype(np.float32))
    rows_idx = Tensor(rng.integers(0, 512, 256).astype(np.int64))
    logits = Tensor(rng.standard_normal((32, 10)).astype(np.float32))
    labels = Tensor(rng.integers(0, 10, 32).astype(np.int32))
    sce = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    kiln.set_context(mode=kiln.PYNATIVE_MODE)
    rows = []
    rows += _pair("gather (6,) at 2 indices", lambda: ops.gather(x6, i2, 0), 2000, repeat)
    rows += _pair("gather (10000,128) at (32,64) tokens", lambda: ops.gather(table, tokens, 0), 300, repeat)
    rows += _pair("nn.Embedding(10000,128), (32,64) tokens", lambda: embedding(tokens), 300, repeat)
    rows += _pair("x[idx]: (512,64) at 256 rows", lambda: x2d[rows_idx], 1000, repeat)
    rows += _pair("cross_entropy (32,10)", lambda: ops.cross_entropy(logits, labels), 1000, repeat)
    rows += _pair("SoftmaxCE(sparse) (32,10)", lambda: sce(logits, labels), 1000, repeat)
    return rows


def _train_step(kiln, net, data, label):
    from kiln import nn

    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    optimizer = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)

    def forward_fn(x, y):
        return loss_fn(net(x), y)

    grad_fn = kiln.value_and_grad(forward_fn, None, optimizer.parameters)

    def step():
        loss, grads = grad_fn(data, label)
        optimizer(grads)
        return loss

    return step


def bench_steps(steps: int, repeat: int) -> list[Row]:
    import kiln
    from kiln import Tensor, nn, ops
    from kiln.demo.lenet import LeNet5
    from kiln.demo.transformer import EncoderLayer

    kiln.set_context(mode=kiln.PYNATIVE_MODE)
    kiln.set_seed(0)
    rng = np.random.default_rng(0)
    lenet = _train_step(
        kiln,
        LeNet5(),
        Tensor(rng.standard_normal((32, 1, 32, 32)).astype(np.float32)),
        Tensor(rng.integers(0, 10, 32).astype(np.int32)),
    )

    class TokenTransformer(nn.Cell):
        def __init__(self, vocab=1000, d_model=64, classes=10):
            super().__init__()
            self.embed = nn.Embedding(vocab, d_model)
            self.layers = nn.CellList([EncoderLayer(d_model, 4, 128) for _ in range(2)])
            self.head = nn.Dense(d_model, classes)

        def construct(self, ids):
            h = self.embed(ids)
            for layer in self.layers:
                h = layer(h)
            return self.head(ops.mean(h, 1))

    transformer = _train_step(
        kiln,
        TokenTransformer(),
        Tensor(rng.integers(0, 1000, (32, 16)).astype(np.int32)),
        Tensor(rng.integers(0, 10, 32).astype(np.int32)),
    )
    rows = []
    for case, step in (
        ("LeNet5 train step, batch 32", lenet),
        ("token transformer train step, batch 32x16", transformer),
    ):
        pair = _pair(case, step, steps, repeat, "<= 1.05x")
        inside, calls = _time_in_checks(step, steps)
        share = inside / pair[0].seconds * 100
        pair[1].note += f"; {calls:.0f} checks/step take {inside * 1e6:.0f} us = {share:.1f}% of the step"
        rows += pair
    return rows


def _time_in_checks(step, steps: int) -> tuple[float, float]:
    """Seconds per step spent inside the checks themselves, and checks per step (immune to load drift)."""
    from kiln._core.primitive import Bounds

    original, spent = Bounds.host_check, [0.0, 0]

    def timed(self, arrays, attrs):
        t0 = time.perf_counter()
        try:
            return original(self, arrays, attrs)
        finally:
            spent[0] += time.perf_counter() - t0
            spent[1] += 1

    Bounds.host_check = timed
    try:
        for _ in range(steps):
            out = step()
        sync(out)
    finally:
        Bounds.host_check = original
    return spent[0] / steps, spent[1] / steps


def _lr_table_steps(mode: str):
    """(case, {setting: step}) for each network: TrainOneStepCell steps (GRAPH_MODE) or value_and_grad + optimizer
    steps (PyNative), Momentum with a fixed rate, with a table of rates (one per step, long enough for the run) and
    the same table with checks off (the setting is switched around its calls, `_rounds`)."""
    import kiln
    from kiln import Tensor, nn
    from kiln.demo.lenet import LeNet5

    rng = np.random.default_rng(0)
    nets = (
        (
            "Dense 64-64-10, batch 32",
            lambda: nn.SequentialCell(nn.Dense(64, 64), nn.ReLU(), nn.Dense(64, 10)),
            (32, 64),
        ),
        ("LeNet5, batch 32", LeNet5, (32, 1, 32, 32)),
    )
    table = Tensor(np.full(1_000_000, 0.01, np.float32))
    cases = []
    for case, make_net, shape in nets:
        data = Tensor(rng.standard_normal(shape).astype(np.float32))
        label = Tensor(rng.integers(0, 10, shape[0]).astype(np.int32))
        steps = {}
        for setting, lr in (("fixed rate", 0.01), ("rate table", table), ("rate table, checks off", table)):
            kiln.set_seed(0)
            net = make_net()
            loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
            optimizer = nn.Momentum(net.trainable_params(), lr, 0.9)
            if mode == "graph":
                steps[setting] = functools.partial(
                    nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn), optimizer), data, label
                )
            else:
                grad_fn = kiln.value_and_grad(lambda x, y, n=net, f=loss_fn: f(n(x), y), None, optimizer.parameters)
                steps[setting] = functools.partial(_optimizer_step, grad_fn, optimizer, data, label)
        cases.append((f"{case}, {mode}", steps))
    return cases


def _optimizer_step(grad_fn, optimizer, data, label):
    loss, grads = grad_fn(data, label)
    optimizer(grads)
    return loss


def _rounds(steps: dict, number: int, repeat: int) -> dict:
    """{setting: (wall seconds, host-thread CPU seconds)} per step of each setting, each the median over `repeat`
    rounds of `number` steps, the settings interleaved in each round (a shared machine's load hits them alike); and
    under "ratios", {setting: (wall, CPU)} the medians of its per-round ratios to the first setting's. Checks are off
    only around the unchecked setting. The host thread's CPU time is what the step costs the host (the checks run
    there); the other processes of a loaded machine hardly change it."""
    from kiln._core.primitive import set_checks

    def one(setting, n):
        set_checks("checks off" not in setting)
        try:
            t0, c0 = time.perf_counter(), time.thread_time()
            for _ in range(n):
                out = steps[setting]()
            c1 = time.thread_time()
            sync(out)
            return (time.perf_counter() - t0) / n, (c1 - c0) / n
        finally:
            set_checks(True)

    for setting in steps:  # compiles and warms each
        one(setting, 3)
    times: dict = {setting: [] for setting in steps}
    for _ in range(repeat):
        for setting in steps:
            times[setting].append(one(setting, number))
    arrays = {setting: np.array(t) for setting, t in times.items()}
    first = arrays[next(iter(steps))]
    out: dict = {setting: tuple(np.median(a, axis=0)) for setting, a in arrays.items()}
    out["ratios"] = {setting: tuple(np.median(a / first, axis=0)) for setting, a in arrays.items()}
    return out


def bench_lr_table(steps: int, repeat: int) -> list[Row]:
    import kiln

    rows = []
    for mode, context in (("graph", kiln.GRAPH_MODE), ("pynative", kiln.PYNATIVE_MODE)):
        kiln.set_context(mode=context)
        for case, cells in _lr_table_steps(mode):
            median = _rounds(cells, steps * 10 if mode == "graph" else steps, repeat)
            ratios = median["ratios"]
            for setting in cells:
                wall, cpu = median[setting]
                note = f"host thread {cpu * 1e6:.1f} us"
                if setting != "fixed rate":
                    note += f"; per round: {ratios[setting][0]:.2f}x wall, {ratios[setting][1]:.2f}x host CPU"
                target = "<= 1.05x" if setting == "rate table" else ""
                baseline = None if setting == "fixed rate" else "fixed rate"
                rows.append(Row(case, setting, wall, baseline, target, note))
    return rows


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=15)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--only", choices=("ops", "steps", "lr-table"), default=None)
    ns = p.parse_args(argv)
    print_device()
    if ns.only in (None, "ops"):
        print_table("PyNative value checks: one op", bench_ops(ns.repeat))
    if ns.only in (None, "steps"):
        print_table("PyNative value checks: training steps", bench_steps(ns.steps, ns.repeat))
    if ns.only in (None, "lr-table"):
        print_table(
            "A learning rate per step: its check before each step (median of interleaved rounds)",
            bench_lr_table(ns.steps, ns.repeat),
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
