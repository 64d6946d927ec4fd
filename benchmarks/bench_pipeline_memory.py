"""Pipeline schedules on paper: the gradient program of a 4-stage MLP under GPipe and 1F1B, compile only.

    python -m benchmarks pipeline_memory        (or: python -m benchmarks.bench_pipeline_memory)

The stages (kiln/_backend/pipeline.py, the programs `nn.PipelineCell` runs with `pipeline_stages=4`): 256 -> 1024
(tanh) -> 256 -> 1024 (tanh) -> 256 and a mean-squared loss, a global batch of 8192 rows cut into 8, 16 or 32
micro-batches, over 4 CPU devices (`--xla_force_host_platform_device_count=4`, set by this script before JAX
starts). Each program is `jax.jit(jax.grad(loss))` lowered and compiled; nothing runs. Read from the compiled
program: the temporary bytes per device (`compiled.memory_analysis().temp_size_in_bytes`: the activations kept
for the backward pass live there). GPipe keeps every micro-batch's activations until the backward passes (about
the whole batch's, however it is cut); 1F1B at most `stages` micro-batches' stage inputs, so its figure falls as
the micro-batches get smaller.
"""

from __future__ import annotations

import os

os.environ["XLA_FLAGS"] = os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=4"
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import numpy as np  # noqa: E402
from jax import numpy as jnp  # noqa: E402

from kiln._backend import pipeline as BP  # noqa: E402

STAGES, WIDTH, HIDDEN, BATCH = 4, 256, 1024, 8192


def _stage(k: int):
    def run(params, carried, micro_inputs):
        h = micro_inputs[0] if k == 0 else carried
        h = jnp.tanh(h @ params[0]) if k % 2 == 0 else h @ params[0]
        return jnp.mean((h - micro_inputs[1]) ** 2) if k == STAGES - 1 else h

    return run


def main() -> None:
    rng = np.random.default_rng(0)
    shapes = [(WIDTH, HIDDEN), (HIDDEN, WIDTH)] * (STAGES // 2)
    weights = [jnp.asarray(rng.standard_normal(s) * 0.05, jnp.float32) for s in shapes]
    x = jnp.asarray(rng.standard_normal((BATCH, WIDTH)), jnp.float32)
    y = jnp.asarray(rng.standard_normal((BATCH, WIDTH)), jnp.float32)
    fns, mesh = [_stage(k) for k in range(STAGES)], BP.stage_mesh(STAGES)
    devices = len(jax.devices())
    print(f"{STAGES} stages on {devices} devices, batch {BATCH}: temporary MiB per device of the gradient program")
    print("| micro-batches | GPipe | 1F1B |")
    print("| --- | --- | --- |")
    for micro in (8, 16, 32):
        schedules = {
            "gpipe": lambda w, m=micro: BP.gpipe(fns, [[p] for p in w], [x, y], m, mesh).sum(),
            "1f1b": lambda w, m=micro: BP.one_f_one_b(fns, [[p] for p in w], [x, y], m, mesh),
        }
        temp = {}
        for name, loss in schedules.items():
            compiled = jax.jit(jax.grad(loss)).lower(weights).compile()
            temp[name] = compiled.memory_analysis().temp_size_in_bytes / 2**20
        print(f"| {micro} | {temp['gpipe']:.1f} | {temp['1f1b']:.1f} |")


if __name__ == "__main__":
    main()
