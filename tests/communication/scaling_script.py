"""Measurements for the README (not a test): data-parallel step time and bytes communicated per step.

    XLA_FLAGS=--xla_force_host_platform_device_count=4 python tests/communication/scaling_script.py
        GRAPH_MODE TrainOneStepCell of an MLP on a global batch of 256, the 4 virtual CPU devices used as
        1, 2 and 4 ranks (`virtual_ranks`); bytes communicated from the compiled XLA program's all-reduces.
    kiln run --nproc 2 tests/communication/scaling_script.py --processes   (and `kiln run ... --processes`)
        the same step with each rank a process (2 workers over loopback, gloo) or one process.

Prints one JSON line per configuration.
"""

from __future__ import annotations

import json
import re
import sys
import time

import numpy as np

import kiln as ms
from kiln import nn
from kiln._backend import distributed as D
from kiln.communication import get_group_size, get_rank, init
from kiln.communication._virtual import to_ranks, virtual_ranks

GLOBAL_BATCH, STEPS = 256, 30
_BYTES = {"f32": 4, "f64": 8, "f16": 2, "bf16": 2, "s32": 4, "s64": 8}


def communicated_bytes(hlo: str) -> int:
    """Sum of the result sizes of the program's all-reduce / all-gather / reduce-scatter / all-to-all ops."""
    total = 0
    for line in hlo.splitlines():
        m = re.search(r"=\s*(.*?)\s+(all-reduce|all-gather|reduce-scatter|all-to-all)(-start)?\(", line)
        if not m:
            continue
        for dtype, dims in re.findall(r"(\w+)\[([\d,]*)\]", m.group(1)):
            n = int(np.prod([int(d) for d in dims.split(",") if d])) if dims else 1
            total += n * _BYTES.get(dtype, 4)
    return total


def make_step(data_parallel: bool):
    ms.reset_auto_parallel_context()
    if data_parallel:
        ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
    ms.set_seed(0)
    net = nn.SequentialCell(nn.Dense(256, 512), nn.ReLU(), nn.Dense(512, 512), nn.ReLU(), nn.Dense(512, 10))
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    return nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.Momentum(net.trainable_params(), 0.01, 0.9))


def timed(step, inputs) -> float:
    for _ in range(3):
        step(*inputs).asnumpy()
    times = []
    for _ in range(STEPS):
        t = time.perf_counter()
        step(*inputs).asnumpy()
        times.append(time.perf_counter() - t)
    return float(np.median(times))


rng = np.random.default_rng(0)
x = rng.standard_normal((GLOBAL_BATCH, 256)).astype(np.float32)
y = rng.integers(0, 10, GLOBAL_BATCH).astype(np.int32)
ms.set_context(mode=ms.GRAPH_MODE)
captured = []
_call = D.SpmdProgram.__call__


def _capture(self, *args):
    captured.append((self, args))
    return _call(self, *args)


D.SpmdProgram.__call__ = _capture

if "--processes" in sys.argv:
    init()
    n, r = get_group_size(), get_rank()
    step = make_step(n > 1)
    b = GLOBAL_BATCH // n
    ms_s = timed(step, (ms.Tensor(x[r * b : (r + 1) * b]), ms.Tensor(y[r * b : (r + 1) * b])))
    hlo_bytes = 0
    if captured:
        program, args = captured[-1]
        hlo_bytes = communicated_bytes(program.lower(*args).compile().as_text())
    print(json.dumps({"ranks": n, "kind": "processes", "rank": r, "step_ms": round(1e3 * ms_s, 2),
                      "bytes_per_step": hlo_bytes}), flush=True)  # fmt: skip
else:
    init()
    for n in (1, 2, 4):
        captured.clear()
        if n == 1:
            step = make_step(False)
            ms_s = timed(step, (ms.Tensor(x), ms.Tensor(y)))
        else:
            with virtual_ranks(n):
                step = make_step(True)
                ms_s = timed(step, (to_ranks(np.split(x, n)), to_ranks(np.split(y, n))))
                program, args = captured[-1]
                hlo = program.lower(*args).compile().as_text()
        print(json.dumps({"ranks": n, "kind": "virtual devices", "step_ms": round(1e3 * ms_s, 2),
                          "bytes_per_step": communicated_bytes(hlo) if n > 1 else 0}), flush=True)  # fmt: skip
