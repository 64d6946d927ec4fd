"""Bytecode capture (PIJit) against the AST graph and against eager (PyNative), in one process.

    python -m benchmarks bytecode          (or: python -m benchmarks.bench_bytecode [--repeat N] [--number N])

1. A model with no graph break, per step: jit(capture_mode="bytecode") vs jit (AST). Target <= 1.10x.
   (an MLP forward, and a training step with value_and_grad and an optimizer inside the jitted function)
2. The guard check per call (the generated check of one cached graph), and the whole hit path of a tiny
   function (flatten arguments, key lookup, guards, launch) against the AST graph's. Target <= 20 us (check).
3. A function with one host read (`float(t.asnumpy())`): bytecode capture runs it as two graphs and one Python
   step; reported against eager and against the AST graph (which compiles the read as a host callback).
Cases are timed interleaved (round k of every case before round k+1 of any), median of rounds.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.common import Row, measure_interleaved, print_device, print_table  # noqa: E402


def _models():
    from kiln import nn, ops

    class MLP(nn.Cell):
        def __init__(self):
            super().__init__()
            self.l1 = nn.Dense(256, 512)
            self.l2 = nn.Dense(512, 512)
            self.l3 = nn.Dense(512, 10)
            self.act = nn.ReLU()

        def construct(self, x):
            h = self.act(self.l1(x))
            h = self.act(self.l2(h)) + h
            return ops.log_softmax(self.l3(h), -1)

    return MLP


def bench_no_break(number: int, repeat: int) -> list[Row]:
    import kiln as ms
    from kiln import Tensor, nn, ops

    ms.set_seed(0)
    mlp = _models()()
    x = Tensor(np.random.default_rng(0).standard_normal((64, 256)).astype(np.float32))
    y = Tensor(np.random.default_rng(1).integers(0, 10, 64).astype(np.int32))

    def forward(x):
        return mlp(x)

    loss_fn = nn.NLLLoss()
    opt = nn.SGD(mlp.trainable_params(), learning_rate=0.01)

    def net_loss(x, y):
        return loss_fn(mlp(x), y)

    grad_fn = ms.value_and_grad(net_loss, None, opt.parameters)

    def train_step(x, y):
        loss, grads = grad_fn(x, y)
        opt(grads)
        return loss

    rows = []
    for case, fn, args in (("MLP forward (64x256)", forward, (x,)), ("MLP train step (64x256)", train_step, (x, y))):
        ast = ms.jit(fn)
        byte = ms.jit(fn, capture_mode="bytecode")
        t = measure_interleaved(
            {"ast": lambda f=ast, a=args: f(*a), "bytecode": lambda f=byte, a=args: f(*a)},
            number=number,
            repeat=repeat,
        )
        rows.append(Row(case, "Kiln AST graph", t["ast"]))
        rows.append(Row(case, "Kiln bytecode graph", t["bytecode"], "Kiln AST graph", "<= 1.10x"))
    _ = ops
    return rows


GAIN = 2.0


def bench_guards(number: int, repeat: int) -> list[Row]:
    import kiln as ms
    from kiln import Tensor
    from kiln._compiler.frontend.bytecode import runtime

    def tiny(x, n):
        return x * GAIN + n

    x = Tensor(np.ones(4, np.float32))
    ast = ms.jit(tiny)
    byte = ms.jit(tiny, capture_mode="bytecode")
    byte(x, 1)
    mlp = _models()()
    fwd = ms.jit(mlp.construct, capture_mode="bytecode")
    fwd(Tensor(np.ones((2, 256), np.float32)))
    rows = []
    for case, jf in (("guard check, tiny function", byte), ("guard check, MLP construct", fwd)):
        seg = next(iter(runtime._BY_JIT[jf._cache].segments.values()))[0]
        check = seg.check
        best = float("inf")
        for _ in range(repeat):
            t0 = time.perf_counter()
            for _ in range(number * 20):
                check()
            best = min(best, (time.perf_counter() - t0) / (number * 20))
        rows.append(Row(f"{case} ({len(seg.guards.items)} guards)", "Kiln bytecode", best, None, "<= 20 us"))
    t = measure_interleaved(
        {"ast": lambda: ast(x, 1), "bytecode": lambda: byte(x, 1)}, number=number * 4, repeat=repeat
    )
    return [
        *rows,
        Row("tiny function, whole call", "Kiln AST graph", t["ast"]),
        Row("tiny function, whole call", "Kiln bytecode graph", t["bytecode"], "Kiln AST graph", "",
            f"+{(t['bytecode'] - t['ast']) * 1e6:.1f} us per call"),
    ]  # fmt: skip


def bench_one_break(number: int, repeat: int) -> list[Row]:
    import kiln as ms
    from kiln import Tensor, ops
    from kiln._compiler.frontend.bytecode import explain

    w = Tensor(np.random.default_rng(0).standard_normal((128, 128)).astype(np.float32) * 0.1)

    def with_read(x):
        h = ops.tanh(ops.matmul(x, w))
        h = ops.tanh(ops.matmul(h, w)) + h
        scale = float(h.abs().mean().asnumpy())  # the host read
        out = ops.tanh(ops.matmul(h, w)) / (scale + 1.0)
        return ops.softmax(out, -1)

    x = Tensor(np.random.default_rng(1).standard_normal((64, 128)).astype(np.float32))
    ast = ms.jit(with_read)
    byte = ms.jit(with_read, capture_mode="bytecode")
    byte(x)
    e = explain(byte)
    note = f"{e.last_call['graphs']} graphs + {e.last_call['steps']} Python step per call"
    t = measure_interleaved(
        {"eager": lambda: with_read(x), "ast": lambda: ast(x), "bytecode": lambda: byte(x)},
        number=number,
        repeat=repeat,
    )
    return [
        Row("one host read (64x128, 3 matmuls)", "Kiln PyNative", t["eager"]),
        Row("one host read (64x128, 3 matmuls)", "Kiln AST graph", t["ast"], "Kiln PyNative", "", "host callback"),
        Row("one host read (64x128, 3 matmuls)", "Kiln bytecode graphs", t["bytecode"], "Kiln PyNative", "", note),
        Row("one host read (64x128, 3 matmuls)", "Kiln bytecode graphs ", t["bytecode"], "Kiln AST graph"),
    ]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=7)
    p.add_argument("--number", type=int, default=50)
    ns = p.parse_args(argv)
    print_device()
    print_table("Bytecode capture, no graph break: per step", bench_no_break(ns.number, ns.repeat))
    print_table("Bytecode capture: guard check and cache-hit path", bench_guards(ns.number, ns.repeat))
    print_table("Bytecode capture, one graph break", bench_one_break(ns.number, ns.repeat))
    return 0


if __name__ == "__main__":
    sys.exit(main())
