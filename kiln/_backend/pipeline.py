"""Pipeline parallelism: GPipe and 1F1B schedules of heterogeneous stages inside one compiled program.

The devices of the job form a mesh ("stage", "stage_replica"): stage s runs on the s-th contiguous group of
devices (across processes, process order: with one process per stage, each process is a stage). One program
runs on every device (`jax.shard_map` over the mesh, manual on both axes):

- each stage's parameters are packed into one flat row of a (stages, width) buffer split over "stage", so a
  device reads its own stage's row only, and `lax.switch` on the stage index runs that stage's computation;
- `gpipe`: `micro_size + stages - 1` ticks (a `lax.scan`); at tick t stage s runs micro-batch t - s and
  `lax.ppermute` carries its output (flattened and padded to one width) to stage s + 1; the last stage's outputs,
  one per micro-batch, are summed over "stage" (the other stages contribute zeros), so every device ends with
  them. Its derivative is the backend's: the transpose of each `ppermute` carries cotangents from stage s + 1
  back to stage s, ticks in reverse order (every forward micro-batch, then every backward one);
- `one_f_one_b`: for a scalar loss, the derivative is its own program following `one_f_one_b_schedule` (a
  static table of which stage runs which forward or backward pass at each tick), activations sent forward and
  cotangents back by `ppermute` at every tick, so a stage holds at most `stages` micro-batches in flight.

Either way the gradients are those of the unpipelined stages run one after the other. Devices of one stage
("stage_replica") compute the same values.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import jax
import numpy as np
from jax import lax
from jax import numpy as jnp
from jax.sharding import Mesh
from jax.sharding import PartitionSpec as P

__all__ = ["NotScalarError", "check_stages", "gpipe", "one_f_one_b", "one_f_one_b_schedule", "stage_mesh"]


class NotScalarError(ValueError):
    """The 1F1B schedule was asked of stages whose last one does not return a scalar."""


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


class _Stages:
    """What both schedules need to know of the stages: shapes passed between them, the packed parameters."""

    def __init__(self, stage_fns: Sequence[Callable], stage_params: Sequence[Sequence], inputs: Sequence, micro_size):
        self.fns = list(stage_fns)
        self.count = len(stage_fns)
        self.micro_size = micro_size
        self.micro = [jnp.reshape(x, (micro_size, x.shape[0] // micro_size, *x.shape[1:])) for x in inputs]
        one = [jax.ShapeDtypeStruct(m.shape[1:], m.dtype) for m in self.micro]
        self.param_structs = [[jax.ShapeDtypeStruct(p.shape, p.dtype) for p in ps] for ps in stage_params]
        # The shape of what each stage passes on, found stage after stage without computing anything.
        carried = [None]
        for k in range(self.count):
            carried.append(jax.eval_shape(self.fns[k], self.param_structs[k], carried[k], one))
        self.carried, self.out = carried, carried[-1]
        boundaries = carried[1:-1]
        self.carry_dtype = jnp.result_type(*(b.dtype for b in boundaries)) if boundaries else jnp.float32
        self.carry_width = max([_size(b.shape) for b in boundaries] or [1])
        flat = [p for ps in stage_params for p in ps]
        self.param_dtype = jnp.result_type(*(p.dtype for p in flat)) if flat else jnp.float32
        self.param_width = max([sum(_size(p.shape) for p in ps) for ps in stage_params] + [1])
        self.packed = jnp.stack([_pack(ps, self.param_width, self.param_dtype) for ps in stage_params])

    def run(self, k: int, row, carry, micro_inputs):
        """Stage k's output on one micro-batch, its parameters read from `row`, its input from `carry`."""
        previous = None if k == 0 else _unpack(carry, [self.carried[k]])[0]
        return self.fns[k](_unpack(row, self.param_structs[k]), previous, micro_inputs)

    def pass_on(self, y):
        return _pack([y], self.carry_width, self.carry_dtype)

    def no_carry(self):
        return jnp.zeros((self.carry_width,), self.carry_dtype)

    def shard_map(self, per_device, mesh: Mesh, out_specs):
        in_specs = (P(STAGE_AXIS), *(P() for _ in self.micro))
        return jax.shard_map(per_device, mesh=mesh, in_specs=in_specs, out_specs=out_specs, check_vma=True)


def check_stages(stage_fns: Sequence[Callable], param_specs, input_specs, micro_size: int, schedule: str) -> str:
    """Run the stages on shapes only (their own errors surface here, before any program is built) and resolve the
    schedule.

    Args:
        stage_fns: as `gpipe`.
        param_specs: per stage, (shape, dtype) of each parameter.
        input_specs: (shape, dtype) of each input (the whole batch).
        micro_size: the number of micro-batches.
        schedule: "1f1b", "gpipe", or "auto" (1F1B when the last stage returns a scalar, else GPipe).

    Returns:
        "1f1b" or "gpipe".

    Raises:
        NotScalarError: "1f1b" asked of stages whose last one does not return a scalar.
    """
    one = [jax.ShapeDtypeStruct((shape[0] // micro_size, *shape[1:]), dtype) for shape, dtype in input_specs]
    carried = None
    for fn, specs in zip(stage_fns, param_specs, strict=True):
        params = [jax.ShapeDtypeStruct(shape, dtype) for shape, dtype in specs]
        carried = jax.eval_shape(fn, params, carried, one)
    if carried.shape == ():
        return "1f1b" if schedule in ("1f1b", "auto") else "gpipe"
    if schedule == "1f1b":
        raise NotScalarError(f"the 1F1B schedule needs the last stage to return a scalar (a loss), not {carried.shape}")
    return "gpipe"


def _gpipe_outputs(st: _Stages, mesh: Mesh, packed, micro):
    """The GPipe forward: the last stage's output per micro-batch, (micro_size, *output shape) on every device."""
    stages, micro_size, out = st.count, st.micro_size, st.out

    def branch(k: int):
        def run(row, carry, micro_inputs):
            y = st.run(k, row, carry, micro_inputs)
            if k == stages - 1:
                return _varying(st.no_carry()), _varying(y)
            return _varying(st.pass_on(y)), _varying(jnp.zeros(out.shape, out.dtype))

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

        start = (st.no_carry(), jnp.zeros((micro_size, *out.shape), out.dtype))
        start = jax.tree_util.tree_map(_varying, start)
        (_, outs), _ = lax.scan(tick, start, jnp.arange(micro_size + stages - 1))
        return lax.psum(outs, STAGE_AXIS)

    return st.shard_map(per_device, mesh, P())(packed, *micro)


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
    st = _Stages(stage_fns, stage_params, inputs, micro_size)
    return _gpipe_outputs(st, mesh, st.packed, st.micro)


IDLE, FORWARD, BACKWARD = 0, 1, 2


def _slots(stages: int, live: dict) -> int:
    """The fewest buffer slots (micro-batch m in slot m % slots) in which no two live values of a stage collide.

    `live` maps (stage, micro-batch) to the ticks [first, last] its value must be kept."""
    for slots in range(1, max([m for _, m in live] + [0]) + 2):
        taken: dict = {}
        clash = False
        for (s, m), (first, last) in live.items():
            for t in range(first, last + 1):
                if taken.setdefault((s, t, m % slots), m) != m:
                    clash = True
        if not clash:
            return slots
    raise AssertionError("unreachable: one slot per micro-batch never collides")


def one_f_one_b_schedule(stages: int, micro_size: int) -> dict:
    """The 1F1B schedule as tables over (tick, stage): what each stage does and which micro-batch values arrive.

    Stage s first runs `stages - s - 1` forward passes (warm-up), then alternates one forward and one backward,
    then runs the backward passes left; an operation waits until its input arrived (a tick after the neighbour
    produced it). At most `stages - s` micro-batches are in flight on stage s, the memory 1F1B saves over GPipe.

    Returns:
        dict of NumPy arrays (ticks, stages): "op" (IDLE/FORWARD/BACKWARD), "micro" (its micro-batch),
        "act_in"/"cot_in" (the micro-batch whose activation / cotangent arrives at that tick, -1 for none), and
        the int buffer sizes "act_slots"/"cot_slots".
    """
    orders = []
    for s in range(stages):
        warm = min(stages - s - 1, micro_size)
        order = [(FORWARD, m) for m in range(warm)]
        for i in range(micro_size - warm):
            order += [(FORWARD, warm + i), (BACKWARD, i)]
        order += [(BACKWARD, m) for m in range(micro_size - warm, micro_size)]
        orders.append(order)
    done: dict = {}
    position = [0] * stages
    rows = []
    while any(position[s] < len(orders[s]) for s in range(stages)):
        t = len(rows)
        row = []
        for s in range(stages):
            if position[s] == len(orders[s]):
                row.append((IDLE, 0))
                continue
            op, m = orders[s][position[s]]
            if op == FORWARD:
                source = None if s == 0 else (FORWARD, s - 1, m)
            else:
                source = (FORWARD, s, m) if s == stages - 1 else (BACKWARD, s + 1, m)
            ready = source is None or done.get(source, t) < t
            row.append((op, m) if ready else (IDLE, 0))
        for s, (op, m) in enumerate(row):
            if op != IDLE:
                done[(op, s, m)] = t
                position[s] += 1
        rows.append(row)
    ticks = len(rows)
    table = {k: np.full((ticks, stages), -1, np.int32) for k in ("act_in", "cot_in")}
    table["op"] = np.array([[op for op, _ in row] for row in rows], np.int32)
    table["micro"] = np.array([[m for _, m in row] for row in rows], np.int32)
    act_live, cot_live = {}, {}
    for (op, s, m), t in done.items():
        if op == FORWARD and s < stages - 1 and t + 1 < ticks:
            table["act_in"][t + 1, s + 1] = m
            act_live[(s + 1, m)] = (t + 1, done[(BACKWARD, s + 1, m)])
        if op == BACKWARD and s > 0 and t + 1 < ticks:
            table["cot_in"][t + 1, s - 1] = m
            cot_live[(s - 1, m)] = (t + 1, done[(BACKWARD, s - 1, m)])
    table["act_slots"] = _slots(stages, act_live)
    table["cot_slots"] = _slots(stages, cot_live)
    return table


def _differentiable(a) -> bool:
    return jnp.issubdtype(a.dtype, jnp.inexact)


def _one_f_one_b_gradients(st: _Stages, mesh: Mesh, packed, micro):
    """The 1F1B program: the summed (scalar) output, its gradient with respect to the packed parameters (a row per
    stage) and to the micro-batched inputs (zeros for integer ones)."""
    stages, micro_size = st.count, st.micro_size
    table = one_f_one_b_schedule(stages, micro_size)
    act_slots, cot_slots = table["act_slots"], table["cot_slots"]
    out_dtype = st.out.dtype
    diff = [_differentiable(m) for m in micro]

    def zeros_like_inputs(now):
        return [jnp.zeros(x.shape, x.dtype) if d else jnp.zeros((), jnp.float32) for x, d in zip(now, diff)]

    def idle(row, act, cot, now):
        nothing = (st.no_carry(), st.no_carry(), jnp.zeros((), out_dtype), jnp.zeros_like(row))
        return jax.tree_util.tree_map(_varying, (*nothing, zeros_like_inputs(now)))

    def forward(k: int):
        def run(row, act, cot, now):
            y = st.run(k, row, act, now)
            last = k == stages - 1
            sent = st.no_carry() if last else st.pass_on(y)
            value = y.astype(out_dtype) if last else jnp.zeros((), out_dtype)
            out = (sent, st.no_carry(), value, jnp.zeros_like(row), zeros_like_inputs(now))
            return jax.tree_util.tree_map(_varying, out)

        return run

    def backward(k: int):
        def run(row, act, cot, now):
            fixed = [None if d else x for x, d in zip(now, diff)]

            def stage(row_, act_, *floats):
                it = iter(floats)
                inputs = [next(it) if d else x for x, d in zip(fixed, diff)]
                return st.run(k, row_, act_, inputs)

            floats = [x for x, d in zip(now, diff) if d]
            y, pull = jax.vjp(stage, row, act, *floats)
            if k == stages - 1:
                seed = jnp.ones(y.shape, y.dtype)  # d(sum of the outputs)/dy
            else:
                seed = _unpack(cot, [st.carried[k + 1]])[0]
            d_row, d_act, *d_floats = pull(_varying(seed))
            it = iter(d_floats)
            d_now = [next(it) if d else jnp.zeros((), jnp.float32) for d in diff]
            sent_back = st.no_carry() if k == 0 else d_act
            out = (st.no_carry(), sent_back, jnp.zeros((), out_dtype), d_row, d_now)
            return jax.tree_util.tree_map(_varying, out)

        return run

    branches = [idle] + [forward(k) for k in range(stages)] + [backward(k) for k in range(stages)]
    ahead = [(k, k + 1) for k in range(stages - 1)]
    behind = [(k + 1, k) for k in range(stages - 1)]
    tables = {k: jnp.asarray(table[k]) for k in ("op", "micro", "act_in", "cot_in")}

    def per_device(rows, *micro_inputs):
        s = lax.axis_index(STAGE_AXIS)
        row = rows[0]

        def tick(state, t):
            acts, cots, act_in, cot_in, total, grad, d_micro = state
            got_act, got_cot = tables["act_in"][t, s], tables["cot_in"][t, s]
            acts = jnp.where(got_act >= 0, acts.at[got_act % act_slots].set(act_in), acts)
            cots = jnp.where(got_cot >= 0, cots.at[got_cot % cot_slots].set(cot_in), cots)
            op, m = tables["op"][t, s], tables["micro"][t, s]
            now = [lax.dynamic_index_in_dim(x, m, keepdims=False) for x in micro_inputs]
            which = jnp.where(op == IDLE, 0, jnp.where(op == FORWARD, 1 + s, 1 + stages + s))
            sent, sent_back, value, d_row, d_now = lax.switch(
                which, branches, row, acts[m % act_slots], cots[m % cot_slots], now
            )
            total = total + value
            grad = grad + d_row
            d_micro = [
                lax.dynamic_update_index_in_dim(d, lax.dynamic_index_in_dim(d, m, keepdims=False) + dn, m, 0)
                if flag
                else d
                for d, dn, flag in zip(d_micro, d_now, diff)
            ]
            act_in = lax.ppermute(sent, STAGE_AXIS, ahead)
            cot_in = lax.ppermute(sent_back, STAGE_AXIS, behind)
            return (acts, cots, act_in, cot_in, total, grad, d_micro), None

        width, dtype = st.carry_width, st.carry_dtype
        start = (
            jnp.zeros((act_slots, width), dtype),
            jnp.zeros((cot_slots, width), dtype),
            st.no_carry(),
            st.no_carry(),
            jnp.zeros((), out_dtype),
            jnp.zeros_like(row),
            [jnp.zeros(x.shape, x.dtype) if d else jnp.zeros((), jnp.float32) for x, d in zip(micro_inputs, diff)],
        )
        start = jax.tree_util.tree_map(_varying, start)
        final, _ = lax.scan(tick, start, jnp.arange(len(table["op"])))
        _, _, _, _, total, grad, d_micro = final
        return lax.psum(total, STAGE_AXIS), grad[None], [lax.psum(d, STAGE_AXIS) for d in d_micro]

    out_specs = (P(), P(STAGE_AXIS), [P() for _ in micro])
    return st.shard_map(per_device, mesh, out_specs)(packed, *micro)


def one_f_one_b(
    stage_fns: Sequence[Callable], stage_params: Sequence[Sequence], inputs: Sequence, micro_size: int, mesh: Mesh
):
    """`gpipe(...).sum(0)` for stages whose last one returns a scalar (the loss), differentiated in a 1F1B schedule.

    The value alone is the GPipe forward pass. Its derivative is one program that runs each micro-batch's backward
    pass as soon as its forward pass has left the last stage (`one_f_one_b_schedule`), so a stage keeps at most
    `stages` micro-batches in flight instead of all of them. A backward pass recomputes its stage's forward pass
    from the stage's input (only stage inputs are kept), and the output's cotangent scales the gradients found
    for a cotangent of 1 (the output is a scalar).

    Args: as `gpipe`.

    Returns:
        A scalar: the sum over micro-batches of the last stage's output.

    Raises:
        NotScalarError: the last stage's output is not a scalar.
    """
    st = _Stages(stage_fns, stage_params, inputs, micro_size)
    if st.out.shape != ():
        raise NotScalarError(f"the 1F1B schedule needs the last stage to return a scalar (a loss), not {st.out.shape}")

    @jax.custom_vjp
    def summed(packed, *micro):
        return _gpipe_outputs(st, mesh, packed, micro).sum(0)

    def summed_forward(packed, *micro):
        total, grad, d_micro = _one_f_one_b_gradients(st, mesh, packed, micro)
        return total, (grad, d_micro)

    def summed_backward(saved, g):
        grad, d_micro = saved
        scale = lambda d: (d * g).astype(d.dtype)  # noqa: E731
        d_inputs = [
            scale(d) if _differentiable(m) else np.zeros(m.shape, jax.dtypes.float0) for d, m in zip(d_micro, st.micro)
        ]
        return (scale(grad), *d_inputs)

    summed.defvjp(summed_forward, summed_backward)
    return summed(st.packed, *st.micro)
