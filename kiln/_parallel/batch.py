"""How each rank's batch and the parameters enter a program over every process's devices (semi-auto parallel
across processes).

With SEMI_AUTO_PARALLEL / AUTO_PARALLEL in a job of several processes, one program runs over the devices of all
of them (XLA's SPMD partitioner splits it and inserts the collectives), so every array it reads must be a global
array over those devices:

- a batch is fed as MindSpore's `dataset_strategy` and `full_batch` define it: by default ("data_parallel",
  `full_batch=False`) each rank passes its own slice of the global batch, which is split along dimension 0 over
  all devices; with `full_batch=True` every rank passes the whole batch (the same values); a tuple of strategies
  says how each input is split, each rank passing the part its devices hold;
- a parameter with no strategy is copied onto every device; one a strategy splits is placed split when the
  strategy first meets it (`shard.constrain`), so each device keeps its slice only.

Training steps (`nn.TrainOneStepCell`, so `Model.train`) and `Model.eval` (`job_wide`) read their inputs so.

Optimizer parallelism (`enable_parallel_optimizer=True`, in those modes, one process or several): each optimizer
state (moments and the like) is split along its first dimension over `optimizer_weight_shard_size` devices (all
of them by default; a dimension the size does not divide is split as far as it divides); a state smaller than
`parallel_optimizer_config`'s "parallel_optimizer_threshold" KiB stays whole. The update is
elementwise, so XLA's partitioner computes each slice of it where that slice of the state lives, reads the
matching slice of the gradient and gathers the updated parameter back to its own layout: ZeRO stage 1/2
through sharding constraints, with no transport of Kiln's own.
"""

from __future__ import annotations

import math

from kiln._backend import distributed as D
from kiln._compiler.ir import graph as G
from kiln._core.tensor import Tensor
from kiln._parallel import context as PC
from kiln._parallel.shard import spec_for

__all__ = [
    "global_inputs", "global_parameters", "job_wide", "shard_optimizer_state", "shards_optimizer_state",
    "spans_processes",
]  # fmt: skip


def spans_processes() -> bool:
    """Whether strategies split programs over the devices of several processes (semi-auto, several processes)."""
    return PC.parallel_mode() in (PC.SEMI_AUTO_PARALLEL, PC.AUTO_PARALLEL) and D.process_count() > 1


def _whole(x: Tensor) -> tuple:
    """The layout of `x` copied onto every device (on the mesh the strategies use)."""
    return spec_for("replicate", "a tensor", (1,) * x.ndim, tuple(x.shape))


def _input_strategy(position: int, ndim: int):
    """The strategy of input `position`: from a tuple `dataset_strategy`, else dimension 0 split over all devices."""
    strategy = PC._context["dataset_strategy"]
    if isinstance(strategy, tuple):
        if position >= len(strategy):
            raise ValueError(
                f"set_auto_parallel_context(dataset_strategy=...) has {len(strategy)} strategies, but the step has "
                f"more tensor inputs (input {position})."
            )
        return strategy[position]
    return (D.device_count(),) + (1,) * (ndim - 1)


def _global_input(x: Tensor, position: int) -> Tensor:
    data = x._data
    if G.is_symbolic(data) or D.spans_processes(data):
        return x
    if PC._context["full_batch"] or x.ndim == 0:
        try:
            return Tensor._wrap(D.replicate_on_world(data, _whole(x)))
        except D.DifferingValueError as err:
            raise ValueError(
                f"Input {position} of the training step: {err}. With full_batch=True every rank feeds the whole "
                "global batch (the same values); to feed each rank's slice, leave full_batch False."
            ) from None
    strategy = _input_strategy(position, x.ndim)
    # Which devices hold which part depends on the strategy alone; the global shape follows from the local
    # slices (JAX adds them up), so the shape given here only has to be one the strategy divides.
    shape = tuple(d * k for d, k in zip(x.shape, strategy, strict=False))
    layout = spec_for(f"input {position}", "the batch", tuple(strategy), shape)
    return Tensor._wrap(D.from_process_parts(data, layout))


def global_inputs(inputs: tuple) -> tuple:
    """This rank's inputs of a step as global arrays (see the module docstring)."""
    out, position = [], 0
    for x in inputs:
        if isinstance(x, Tensor):
            x = _global_input(x, position)
            position += 1
        out.append(x)
    return tuple(out)


def global_parameters(parameters) -> None:
    """Copy every parameter that lives on this process's devices only onto every device of the job."""
    for p in parameters:
        if not G.is_symbolic(p._data) and not D.spans_processes(p._data):
            p._data = D.replicate_on_world(p._data, _whole(p))


def job_wide(network, inputs: tuple) -> tuple:
    """A step that is not a training step (`Model.eval`) across processes: `network`'s parameters and this rank's
    inputs as global arrays, as a training step reads them (see the module docstring); otherwise the inputs.

    Args:
        network: the cell about to be called (its parameters are placed over every device of the job).
        inputs: this rank's inputs of the call.

    Returns:
        The inputs to call `network` with.
    """
    if not spans_processes():
        return tuple(inputs)
    global_parameters(network.get_parameters())
    return global_inputs(tuple(inputs))


def shards_optimizer_state() -> bool:
    """Whether optimizer states are split over the devices (`enable_parallel_optimizer` in semi-auto modes)."""
    active = PC.parallel_mode() in (PC.SEMI_AUTO_PARALLEL, PC.AUTO_PARALLEL)
    return active and PC._context["enable_parallel_optimizer"] and D.device_count() > 1


def _state_layout(p) -> tuple | None:
    size = PC._context["optimizer_weight_shard_size"]
    size = D.device_count() if size in (-1, None) else size
    if D.device_count() % size:
        raise ValueError(
            f"set_auto_parallel_context(optimizer_weight_shard_size={size}) must divide the number of devices "
            f"({D.device_count()})."
        )
    threshold_kib = (PC._context["parallel_optimizer_config"] or {}).get("parallel_optimizer_threshold", 0)
    if p.ndim == 0 or p.nbytes < threshold_kib * 1024:
        return None
    pieces = math.gcd(size, p.shape[0])
    if pieces == 1:
        return None
    return spec_for(p.name, "an optimizer state", (pieces,) + (1,) * (p.ndim - 1), tuple(p.shape))


def shard_optimizer_state(step) -> None:
    """Place each state of the training step's optimizer (`step.optimizer`'s parameters that are not the
    network's) split along its first dimension (see the module docstring)."""
    optimizer = getattr(step, "optimizer", None)
    if optimizer is None:
        return
    weights = {id(w) for w in getattr(step, "weights", ())}
    for p in optimizer.get_parameters():
        if id(p) in weights:
            continue
        if G.is_symbolic(p._data):
            continue
        layout = _state_layout(p)
        if layout is not None:
            p._data = D.sharding_constraint(p._data, layout)
