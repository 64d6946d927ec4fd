"""Pipeline parallelism: a GPipe schedule of heterogeneous stages inside one compiled program.

The devices of the job form a mesh ("stage", "stage_replica"): stage s runs on the s-th contiguous group of
devices (across processes, process order: with one process per stage, each process is a stage). One program
runs on every device (`jax.shard_map` over the mesh, manual on both axes):

- each stage's parameters are packed into one flat row of a (stages, width) buffer split over "stage", so a
  device reads its own stage's row only, and `lax.switch` on the stage index runs that stage's computation;
- a GPipe schedule: `micro_size + stages - 1` ticks (a `lax.scan`); at tick t stage s runs micro-batch t - s
  and `lax.ppermute` carries its output (flattened and padded to one width) to stage s + 1;
- the last stage's outputs, one per micro-batch, are summed over "stage" (the other stages contribute zeros),
  so every device ends with them.

The backward pass is the backend's derivative of that program: the transpose of each `ppermute` carries
cotangents from stage s + 1 back to stage s, ticks in reverse order (GPipe: every forward micro-batch, then
every backward one). The gradients are those of the unpipelined stages run one after the other.
Devices of one stage ("stage_replica") compute the same values.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import jax
import numpy as np
from jax import lax
from jax import numpy as jnp
from jax.sharding import Mesh
from jax.sharding import PartitionSpec as P

__all__ = ["gpipe", "stage_mesh"]

STAGE_AXIS = "stage"
REPLICA_AXIS = "stage_replica"

_meshes: dict = {}


def stage_mesh(stages: int) -> Mesh:
    """The mesh of every device of the job as `stages` groups of consecutive devices (axes "stage",
    "stage_replica").

    Raises:
        ValueError: the number of devices is not a multiple of `stages`.
    """
    devices = jax.devices()
    if len(devices) % stages:
        raise ValueError(
            f"pipeline_stages={stages} must divide the number of devices of the job ({len(devices)}): each stage "
            "runs on an equal group of devices."
        )
    key = (stages, tuple(d.id for d in devices))
    mesh = _meshes.get(key)
    if mesh is None:
        grid = np.array(devices, dtype=object).reshape(stages, len(devices) // stages)
        mesh = _meshes[key] = Mesh(grid, (STAGE_AXIS, REPLICA_AXIS))
    return mesh


def _size(shape: tuple) -> int:
    return int(np.prod(shape, dtype=np.int64))


def _pack(arrays: Sequence, width: int, dtype):
    """`arrays` flattened into one vector of `width` (zero padded), as `dtype`."""
    flat = [jnp.ravel(a).astype(dtype) for a in arrays]
    used = sum(f.size for f in flat)
    if used < width:
        flat.append(jnp.zeros((width - used,), dtype))
    return jnp.concatenate(flat) if flat else jnp.zeros((width,), dtype)


def _varying(a):
    """`a` typed as differing between stages (what every branch of the stage switch returns)."""
    aval = jax.typeof(a)
    manual = getattr(aval, "mat", None)  # the manual axes a value varies over (`vma` in older JAX)
    varying = manual.varying if manual is not None else getattr(aval, "vma", frozenset())
    if STAGE_AXIS in varying:
        return a
    return lax.pcast(a, (STAGE_AXIS,), to="varying")


def _unpack(flat, structs: Sequence) -> list:
    """The arrays of `structs` (shapes and dtypes) from the front of vector `flat`."""
    out, start = [], 0
    for s in structs:
        n = _size(s.shape)
        out.append(lax.slice_in_dim(flat, start, start + n).reshape(s.shape).astype(s.dtype))
        start += n
    return out


def gpipe(
    stage_fns: Sequence[Callable], stage_params: Sequence[Sequence], inputs: Sequence, micro_size: int, mesh: Mesh
):
    """Run `stages` functions one after the other on `micro_size` micro-batches of `inputs`, stage s on the
    devices of row s of `mesh`, in a GPipe schedule (see the module docstring).

    Args:
        stage_fns: `fn(params, carried, micro_inputs) -> array` per stage: `params` its parameters, `carried` the
            previous stage's output (None for the first stage), `micro_inputs` one micro-batch of every input.
        stage_params: per stage, its parameter arrays.
        inputs: arrays whose first dimension `micro_size` divides (the batch, labels...).
        micro_size: the number of micro-batches.
        mesh: `stage_mesh(len(stage_fns))`.

    Returns:
        The last stage's outputs stacked: an array (micro_size, *output shape).
    """
    stages = len(stage_fns)
    micro = [jnp.reshape(x, (micro_size, x.shape[0] // micro_size, *x.shape[1:])) for x in inputs]
    one = [jax.ShapeDtypeStruct(m.shape[1:], m.dtype) for m in micro]
    param_structs = [[jax.ShapeDtypeStruct(p.shape, p.dtype) for p in ps] for ps in stage_params]

    # The shape of what each stage passes on, found stage after stage without computing anything.
    carried = [None]
    for k in range(stages):
        carried.append(jax.eval_shape(stage_fns[k], param_structs[k], carried[k], one))
    boundaries, out = carried[1:-1], carried[-1]
    carry_dtype = jnp.result_type(*(b.dtype for b in boundaries)) if boundaries else jnp.float32
    carry_width = max([_size(b.shape) for b in boundaries] or [1])
    param_dtype = jnp.result_type(*(p.dtype for ps in stage_params for p in ps)) if any(stage_params) else jnp.float32
    param_width = max([sum(_size(p.shape) for p in ps) for ps in stage_params] + [1])
    packed = jnp.stack([_pack(ps, param_width, param_dtype) for ps in stage_params])

    def branch(k: int):
        def run(row, carry, micro_inputs):
            previous = None if k == 0 else _unpack(carry, [carried[k]])[0]
            y = stage_fns[k](_unpack(row, param_structs[k]), previous, micro_inputs)
            if k == stages - 1:
                passed, result = jnp.zeros((carry_width,), carry_dtype), y
            else:
                passed, result = _pack([y], carry_width, carry_dtype), jnp.zeros(out.shape, out.dtype)
            return _varying(passed), _varying(result)

        return run

    branches = [branch(k) for k in range(stages)]
    forward = [(k, k + 1) for k in range(stages - 1)]

    def per_device(rows, *micro_inputs):
        s = lax.axis_index(STAGE_AXIS)
        row = rows[0]

        def tick(state, t):
            carry, outs = state
            m = jnp.clip(t - s, 0, micro_size - 1)  # this stage's micro-batch (clamped on idle ticks)
            now = [lax.dynamic_index_in_dim(x, m, keepdims=False) for x in micro_inputs]
            passed, y = lax.switch(s, branches, row, carry, now)
            done = t - (stages - 1)  # the micro-batch the last stage finishes at this tick
            keep = (s == stages - 1) & (done >= 0)
            slot = jnp.clip(done, 0, micro_size - 1)
            current = lax.dynamic_index_in_dim(outs, slot, keepdims=False)
            outs = lax.dynamic_update_index_in_dim(outs, jnp.where(keep, y, current), slot, 0)
            return (lax.ppermute(passed, STAGE_AXIS, forward), outs), None

        start = (jnp.zeros((carry_width,), carry_dtype), jnp.zeros((micro_size, *out.shape), out.dtype))
        start = jax.tree_util.tree_map(_varying, start)
        (_, outs), _ = lax.scan(tick, start, jnp.arange(micro_size + stages - 1))
        return lax.psum(outs, STAGE_AXIS)

    run = jax.shard_map(
        per_device, mesh=mesh, in_specs=(P(STAGE_AXIS), *(P() for _ in micro)), out_specs=P(), check_vma=True
    )
    return run(packed, *micro)
