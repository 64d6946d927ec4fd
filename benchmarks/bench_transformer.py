"""A small transformer's training step: Kiln PyNative, GRAPH_MODE and @jit against hand-written JAX and PyTorch.

    python -m benchmarks transformer          (or: python -m benchmarks.bench_transformer [--repeat N] [--steps N])

The model is the demo's (kiln/demo/transformer.py): digits read as 8 tokens of 8 features, an embedding, a
learned position table, 2 pre-norm encoder layers (4-head self-attention, GELU MLP of width 128,
d_model 64), LayerNorm, mean pooling, a linear head; batch 32; softmax cross-entropy and Momentum
(lr 0.01, 0.9). Hundreds of small ops per step: the kind of model where PyNative pays per op.

- Kiln PyNative: `nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)` called eagerly;
- Kiln GRAPH_MODE: the same cell after `set_context(mode=GRAPH_MODE)`;
- Kiln @jit: MindSpore 2.x's idiom, `value_and_grad` + optimizer inside an `@ms.jit` function;
- JAX: the same step hand-written (jax.value_and_grad, the same initial weights), eager and under jax.jit;
- PyTorch eager: the same step hand-written with torch functions and torch.optim.SGD(momentum=0.9), if torch
  is installed (on CUDA when Kiln runs on a GPU and torch sees one).

All cases run in this one process with their timing rounds interleaved (the median of --repeat rounds of
--steps steps, each round waited for), so the ratios hold even on a busy machine. The first step's loss
of every implementation is checked against Kiln PyNative's. The first call (trace + compile + run) of the
compiled cases is shown too, measured in this process with the on-disk cache off.
"""

from __future__ import annotations

import argparse
import os
import time
from contextlib import contextmanager

import numpy as np

os.environ.setdefault("KILN_CACHE_DIR", "off")  # first-call figures must not come from the on-disk cache

from benchmarks.common import Row, measure_interleaved, print_device, print_table, sync, torch_device  # noqa: E402

BATCH, TOKENS, FEATURES, CLASSES = 32, 8, 8, 10
D_MODEL, HEADS, D_FF, LAYERS = 64, 4, 128, 2
LR, MOMENTUM = 0.01, 0.9


def _data():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((BATCH, TOKENS, FEATURES)).astype(np.float32)
    y = rng.integers(0, CLASSES, BATCH).astype(np.int32)
    return x, y


# ---- Kiln ---------------------------------------------------------------------------------------------
def kiln_cell_step(mode):
    """A TrainOneStepCell over the demo's transformer in `mode`; returns (step, initial parameters)."""
    import kiln as ms
    from kiln import nn
    from kiln.demo.transformer import DigitTransformer

    ms.set_context(mode=mode)
    ms.set_seed(0)
    net = DigitTransformer(TOKENS, FEATURES, CLASSES, D_MODEL, HEADS, D_FF, LAYERS)
    init = {p.name: p.asnumpy() for p in net.trainable_params()}
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), learning_rate=LR, momentum=MOMENTUM)
    cell = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)
    x, y = (ms.Tensor(a) for a in _data())
    return (lambda: cell(x, y)), init


def kiln_jit_step():
    """MindSpore 2.x style: value_and_grad and the optimizer inside an @ms.jit function (PyNative context)."""
    import kiln as ms
    from kiln import nn
    from kiln.demo.transformer import DigitTransformer

    ms.set_context(mode=ms.PYNATIVE_MODE)
    ms.set_seed(0)
    net = DigitTransformer(TOKENS, FEATURES, CLASSES, D_MODEL, HEADS, D_FF, LAYERS)
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), learning_rate=LR, momentum=MOMENTUM)

    def forward_fn(data, label):
        return loss_fn(net(data), label)

    grad_fn = ms.value_and_grad(forward_fn, None, opt.parameters)

    @ms.jit
    def train_step(data, label):
        loss, grads = grad_fn(data, label)
        opt(grads)
        return loss

    x, y = (ms.Tensor(a) for a in _data())
    return lambda: train_step(x, y)


# ---- JAX, hand-written -----------------------------------------------------------------------------------
def jax_step(init: dict, jit: bool):
    from kiln._backend import jax, jnp

    scale = float(1.0 / np.sqrt(D_MODEL // HEADS))  # a Python float: weakly typed, the math stays float32

    def dense(p, name, x):
        return x @ p[f"{name}.weight"].T + p[f"{name}.bias"]

    def layer_norm(p, name, x):
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) / jnp.sqrt(var + 1e-5) * p[f"{name}.gamma"] + p[f"{name}.beta"]

    def attention(p, pre, x):
        b, t, d = x.shape

        def heads(h):
            return h.reshape(b, t, HEADS, d // HEADS).transpose(0, 2, 1, 3)

        q, k, v = (heads(dense(p, f"{pre}.{n}", x)) for n in "qkv")
        w = jax.nn.softmax(q @ k.transpose(0, 1, 3, 2) * scale, axis=-1)
        return dense(p, f"{pre}.out", (w @ v).transpose(0, 2, 1, 3).reshape(b, t, d))

    def loss_fn(p, x, y):
        h = dense(p, "embed", x) + p["pos"]
        for i in range(LAYERS):
            pre = f"layers.{i}"
            h = h + attention(p, f"{pre}.attn", layer_norm(p, f"{pre}.norm1", h))
            mlp = jax.nn.gelu(dense(p, f"{pre}.fc1", layer_norm(p, f"{pre}.norm2", h)), approximate=True)
            h = h + dense(p, f"{pre}.fc2", mlp)
        logits = dense(p, "head", layer_norm(p, "norm", h).mean(1))
        return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(logits), y[:, None], axis=1))

    def step(p, m, x, y):
        loss, g = jax.value_and_grad(loss_fn)(p, x, y)
        m = {k: MOMENTUM * m[k] + g[k] for k in p}
        return loss, {k: p[k] - LR * m[k] for k in p}, m

    fn = jax.jit(step, donate_argnums=(0, 1)) if jit else step
    state = {"p": {k: jnp.asarray(v) for k, v in init.items()}}
    state["m"] = {k: jnp.zeros_like(v) for k, v in state["p"].items()}
    x, y = (jnp.asarray(a) for a in _data())

    def once():
        loss, state["p"], state["m"] = fn(state["p"], state["m"], x, y)
        return loss

    return once


# ---- PyTorch eager, hand-written --------------------------------------------------------------------------
def torch_step(init: dict):
    try:
        import torch
        import torch.nn.functional as F
    except ImportError:
        return None, "PyTorch not installed"
    device = torch_device(torch)
    p = {k: torch.tensor(v, requires_grad=True, device=device) for k, v in init.items()}
    opt = torch.optim.SGD(p.values(), lr=LR, momentum=MOMENTUM)
    x, y = (torch.from_numpy(a).to(device) for a in _data())
    y = y.long()

    def attention(pre, h):
        b, t, d = h.shape

        def heads(z):
            return z.reshape(b, t, HEADS, d // HEADS).transpose(1, 2)

        q, k, v = (heads(F.linear(h, p[f"{pre}.{n}.weight"], p[f"{pre}.{n}.bias"])) for n in "qkv")
        w = torch.softmax(q @ k.transpose(-1, -2) * float(1.0 / np.sqrt(d // HEADS)), dim=-1)
        return F.linear((w @ v).transpose(1, 2).reshape(b, t, d), p[f"{pre}.out.weight"], p[f"{pre}.out.bias"])

    def ln(name, h):
        return F.layer_norm(h, (D_MODEL,), p[f"{name}.gamma"], p[f"{name}.beta"], eps=1e-5)

    def once():
        opt.zero_grad()
        h = F.linear(x, p["embed.weight"], p["embed.bias"]) + p["pos"]
        for i in range(LAYERS):
            pre = f"layers.{i}"
            h = h + attention(f"{pre}.attn", ln(f"{pre}.norm1", h))
            fc1 = F.linear(ln(f"{pre}.norm2", h), p[f"{pre}.fc1.weight"], p[f"{pre}.fc1.bias"])
            mlp = F.gelu(fc1, approximate="tanh")
            h = h + F.linear(mlp, p[f"{pre}.fc2.weight"], p[f"{pre}.fc2.bias"])
        logits = F.linear(ln("norm", h).mean(1), p["head.weight"], p["head.bias"])
        loss = F.cross_entropy(logits, y)
        loss.backward()
        opt.step()
        return loss.detach()

    return once, f"torch {torch.__version__} on {device}, {torch.get_num_threads()} thread(s)"


def _first(fn) -> tuple[float, float]:
    """(seconds of the first call, its loss)."""
    t0 = time.perf_counter()
    out = fn()
    sync(out)
    seconds = time.perf_counter() - t0
    if hasattr(out, "asnumpy"):
        return seconds, float(np.asarray(out.asnumpy()))
    return seconds, float(out.item())  # a JAX array or a torch tensor (on CUDA, where np.asarray refuses it)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=9, help="timed rounds per case (the median is shown)")
    parser.add_argument("--steps", type=int, default=10, help="training steps per timed round")
    args = parser.parse_args(argv)
    print_device()
    import kiln as ms
    from kiln._backend import tiers
    from kiln._pynative import dispatch

    py_step, init = kiln_cell_step(ms.PYNATIVE_MODE)
    eager_step, _ = kiln_cell_step(ms.PYNATIVE_MODE)
    graph_step, _ = kiln_cell_step(ms.GRAPH_MODE)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    jit_step = kiln_jit_step()
    jax_eager, jax_jit = jax_step(init, jit=False), jax_step(init, jit=True)
    torch_once, torch_note = torch_step(init)

    cases = {
        "Kiln PyNative": py_step,
        "Kiln PyNative, KILN_LAZY=0": eager_step,
        "Kiln GRAPH_MODE": graph_step,
        "Kiln @jit": jit_step,
        "JAX jax.jit": jax_jit,
        "JAX eager": jax_eager,
    }
    if torch_once is not None:
        cases["PyTorch eager"] = torch_once

    @contextmanager
    def in_mode(name):  # GRAPH_MODE is a context setting: it holds while that case's rounds run
        ms.set_context(mode=ms.GRAPH_MODE if name == "Kiln GRAPH_MODE" else ms.PYNATIVE_MODE)
        saved, dispatch.LAZY = dispatch.LAZY, dispatch.LAZY and name != "Kiln PyNative, KILN_LAZY=0"
        try:
            yield
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
            dispatch.LAZY = saved

    firsts, losses = {}, {}
    for name, fn in cases.items():  # the first call of each (compiles the compiled ones)
        with in_mode(name):
            firsts[name], losses[name] = _first(fn)
    ref = losses["Kiln PyNative"]
    mismatched = {n: v for n, v in losses.items() if abs(v - ref) > 1e-4 * max(1.0, abs(ref))}
    print(f"first-step loss {ref:.6f} in every implementation" if not mismatched else f"LOSSES DIFFER: {losses}")

    # the compiled cases' first calls ran quick-tier executables; time the optimised ones that take over
    tiers.wait()
    times = measure_interleaved(cases, number=args.steps, repeat=args.repeat, warmup=2, around=in_mode)
    case = "transformer train step, batch 32"
    rows = [
        Row(case, "Kiln PyNative", times["Kiln PyNative"], "Kiln GRAPH_MODE", "", "x GRAPH_MODE (lazy window)"),
        Row(case, "Kiln PyNative, KILN_LAZY=0", times["Kiln PyNative, KILN_LAZY=0"], "Kiln PyNative", "", "op by op"),
        Row(case, "Kiln GRAPH_MODE", times["Kiln GRAPH_MODE"], "JAX jax.jit", "<= 0.9x jax.jit"),
        Row(case, "Kiln @jit", times["Kiln @jit"], "JAX jax.jit", "<= 1.10x jax.jit"),
        Row(case, "JAX jax.jit", times["JAX jax.jit"]),
        Row(case, "JAX eager", times["JAX eager"], "Kiln PyNative", "", "hand-written, op by op"),
        Row(
            case,
            "PyTorch eager",
            times.get("PyTorch eager"),
            "Kiln PyNative",
            "",
            torch_note,
        ),
    ]
    versus_torch = "transformer train step, vs PyTorch"
    rows.append(Row(versus_torch, "Kiln PyNative", times["Kiln PyNative"], "PyTorch eager", "<= 1.0x torch"))
    rows.append(Row(versus_torch, "Kiln GRAPH_MODE", times["Kiln GRAPH_MODE"], "PyTorch eager", "<= 0.5x torch"))
    rows.append(Row(versus_torch, "PyTorch eager", times.get("PyTorch eager"), None, "", torch_note))
    first_case = "transformer step, first call (cache off)"
    for name in ("Kiln GRAPH_MODE", "Kiln @jit", "JAX jax.jit"):
        base = None if name == "JAX jax.jit" else "JAX jax.jit"
        rows.append(Row(first_case, name, firsts[name], base, "", "trace + compile + run"))
    rows.append(Row(first_case, "Kiln PyNative", firsts["Kiln PyNative"], None, "", "compiles the step's program"))
    rows.append(
        Row(first_case, "Kiln PyNative, KILN_LAZY=0", firsts["Kiln PyNative, KILN_LAZY=0"], None, "", "kernels warm")
    )
    print_table(f"Transformer training step (median of {args.repeat} interleaved rounds of {args.steps} steps)", rows)


if __name__ == "__main__":
    main()
