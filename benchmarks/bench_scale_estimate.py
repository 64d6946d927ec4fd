"""Scale on paper: one layer of a 7B-parameter GPT-style model compiled for 64 devices (8 hosts x 8), compile only.

    python -m benchmarks scale_estimate        (or: python -m benchmarks.bench_scale_estimate [--layers 32])

The model: hidden 4096, 32 heads, feed-forward 16384, 32 layers, vocabulary 50304, sequences of 2048 tokens
(12 h^2 = 201M parameters per layer, 6.4B in the layers plus 0.2B of embedding: about 7B). The mesh: data 8 x
model 8 x pipeline 1. Model parallelism (Megatron: QKV and the first feed-forward matrix split by columns, the
output and second feed-forward matrix by rows) stays inside a host, where the links are fastest; data
parallelism spans the hosts, one sequence per data rank and micro-step; no pipeline, since a layer split 8 ways
with its optimizer state split 8 more ways (optimizer parallelism over the data ranks) fits one device.

The program is one layer's forward and backward pass with bf16 weights and activations (fp32 accumulation
left to XLA), lowered with `jax.jit(...).lower(...)` over a 64-device CPU mesh (`--xla_force_host_platform_
device_count=64`, set by this script before JAX starts) and compiled; nothing runs. The figures are read from
the compiled program: `compiled.memory_analysis()` (per device) and every collective in `compiled.as_text()`
with its operand bytes (per device, per layer); the whole step multiplies the layer by the layer count and adds
the optimizer state, which the layer program does not hold. This script uses JAX directly (it measures XLA's
partitioner, which Kiln's semi-auto parallel hands the same shardings to).
"""

from __future__ import annotations

import argparse
import os
import re
import sys

os.environ["XLA_FLAGS"] = os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=64"
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import numpy as np  # noqa: E402
from jax import numpy as jnp  # noqa: E402
from jax.sharding import Mesh, NamedSharding  # noqa: E402
from jax.sharding import PartitionSpec as P  # noqa: E402

HIDDEN, HEADS, FFN, VOCAB, SEQ = 4096, 32, 16384, 50304, 2048
DATA, MODEL, PIPELINE = 8, 8, 1
BYTES = {"bf16": 2, "f32": 4, "f16": 2, "s32": 4, "u32": 4, "pred": 1, "s8": 1, "u8": 1, "f64": 8, "s64": 8}
COLLECTIVES = ("all-reduce", "all-gather", "reduce-scatter", "collective-permute", "all-to-all")


def layer_loss(params, x):
    """One pre-norm transformer layer (attention + feed-forward, each with a residual) and a scalar loss."""
    wqkv, wo, w1, w2, g1, g2 = params
    b, s, h = x.shape

    def norm(v, g):
        v32 = v.astype(jnp.float32)
        return (v32 * jax.lax.rsqrt(jnp.mean(v32 * v32, -1, keepdims=True) + 1e-6) * g).astype(v.dtype)

    qkv = norm(x, g1) @ wqkv  # (b, s, 3h), columns split over "model"
    q, k, v = jnp.split(qkv.reshape(b, s, 3, HEADS, h // HEADS), 3, axis=2)
    q, k, v = (t[:, :, 0].transpose(0, 2, 1, 3) for t in (q, k, v))  # (b, heads, s, d): heads over "model"
    scores = (q @ k.transpose(0, 1, 3, 2)).astype(jnp.float32) / np.sqrt(h // HEADS)
    causal = jnp.tril(jnp.ones((s, s), bool))
    p = jax.nn.softmax(jnp.where(causal, scores, -1e9), -1).astype(x.dtype)
    ctx = (p @ v).transpose(0, 2, 1, 3).reshape(b, s, h)
    x = x + ctx @ wo  # rows of wo over "model": one all-reduce
    x = x + jax.nn.gelu(norm(x, g2) @ w1) @ w2
    return jnp.mean(x.astype(jnp.float32) ** 2)


def _nbytes(shape_text: str) -> int:
    """Bytes of an HLO shape such as `bf16[1,2048,4096]{2,1,0}` or a tuple of them."""
    total = 0
    for dtype, dims in re.findall(r"(\w+)\[([\d,]*)\]", shape_text):
        if dtype in BYTES:
            total += BYTES[dtype] * int(np.prod([int(d) for d in dims.split(",") if d] or [1]))
    return total


def collective_bytes(hlo: str) -> dict[str, list[int]]:
    """Per collective kind: [count, operand bytes] summed over the collectives in the compiled HLO text (an
    operand's bytes come from the line that defines it)."""
    defined = {}
    for line in hlo.splitlines():
        m = re.match(r"\s*(?:ROOT )?(%[\w.-]+) = (\(.*?\)|\S+) ", line)
        if m:
            defined[m.group(1)] = m.group(2)
    out = {k: [0, 0] for k in COLLECTIVES}
    pattern = r"= (?:\(.*?\)|\S+) (" + "|".join(COLLECTIVES) + r")(?:-start)?\(([^)]*)\)"
    for line in hlo.splitlines():
        m = re.search(pattern, line)
        if not m:
            continue
        operands = [o.strip() for o in m.group(2).split(",") if o.strip()]
        out[m.group(1)][0] += 1
        out[m.group(1)][1] += sum(_nbytes(defined.get(o, "")) for o in operands)
    return out


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=32)
    args = parser.parse_args(argv)
    devices = jax.devices()
    assert len(devices) == 64, f"expected 64 devices, got {len(devices)}"
    mesh = Mesh(np.array(devices).reshape(DATA, MODEL), ("data", "model"))
    spec = {
        "wqkv": P(None, "model"), "wo": P("model", None), "w1": P(None, "model"), "w2": P("model", None),
        "g1": P(), "g2": P(), "x": P("data", None, None),
    }  # fmt: skip
    shapes = {"wqkv": (HIDDEN, 3 * HIDDEN), "wo": (HIDDEN, HIDDEN), "w1": (HIDDEN, FFN), "w2": (FFN, HIDDEN),
              "g1": (HIDDEN,), "g2": (HIDDEN,), "x": (DATA, SEQ, HIDDEN)}  # fmt: skip
    names = ("wqkv", "wo", "w1", "w2", "g1", "g2")
    sds = {n: jax.ShapeDtypeStruct(shapes[n], jnp.bfloat16, sharding=NamedSharding(mesh, spec[n])) for n in shapes}
    param_shardings = tuple(NamedSharding(mesh, spec[n]) for n in names)
    step = jax.jit(
        jax.value_and_grad(layer_loss),
        out_shardings=(NamedSharding(mesh, P()), param_shardings),  # gradients reduced over "data"
    )
    compiled = step.lower(tuple(sds[n] for n in names), sds["x"]).compile()
    mem = compiled.memory_analysis()
    coll = collective_bytes(compiled.as_text())
    layer_params = sum(int(np.prod(shapes[n])) for n in names)
    total_params = args.layers * layer_params + VOCAB * HIDDEN
    gib = 2**30
    print(f"mesh: data {DATA} x model {MODEL} x pipeline {PIPELINE}; {total_params / 1e9:.2f}B parameters")
    print(f"one layer: {layer_params / 1e6:.0f}M parameters, compiled for the 64-device mesh (per device):")
    for field in (
        "argument_size_in_bytes",
        "output_size_in_bytes",
        "temp_size_in_bytes",
        "generated_code_size_in_bytes",
    ):
        print(f"  {field}: {getattr(mem, field) / 2**20:.1f} MiB")
    total = 0
    for kind, (count, nbytes) in coll.items():
        if count:
            print(f"  {kind}: {count} op(s), {nbytes / 2**20:.1f} MiB of operands")
            total += nbytes
    print(f"  collectives per layer and step: {total / 2**20:.1f} MiB")
    # The whole step: every layer's weights and gradients (bf16) plus fp32 master weights and Adam moments
    # (12 bytes a parameter) split over model x data by optimizer parallelism, and the activations one layer's
    # program keeps (temp) held for every layer by the backward pass (no recomputation).
    weights = args.layers * mem.argument_size_in_bytes
    grads = args.layers * (mem.output_size_in_bytes)
    optimizer = 12 * total_params / (MODEL * DATA)
    activations = args.layers * mem.temp_size_in_bytes
    print(f"whole model, per device: weights+grads (bf16) {(weights + grads) / gib:.1f} GiB, fp32 master + Adam "
          f"{optimizer / gib:.1f} GiB (ZeRO over data), activations <= {activations / gib:.1f} GiB; "
          f"collectives {args.layers * total / gib:.2f} GiB a step (1 sequence per data rank)")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
