"""Micro-batch wrapper cells: GradAccumulationCell, PipelineCell and MicroBatchInterleaved split every input along
axis 0 into micro-batches, run the network on each and sum the outputs.

GradAccumulationCell and MicroBatchInterleaved run the micro-batches one after the other inside the step (in a
graph, one program): the gradient of the summed output is the accumulated gradient, and the optimizer steps once.

PipelineCell with `set_auto_parallel_context(pipeline_stages=N)` (semi-auto modes) runs its network's stages on N
disjoint groups of the job's devices in a 1F1B or GPipe schedule (`kiln._parallel.pipeline`). The network is an
`nn.SequentialCell`, or an `nn.WithLossCell` around one (the loss then runs on the last stage); each cell of the
sequence belongs to the stage its `pipeline_stage` names, or else to the stage of the cell before it. Stages hold
no state updated by the forward pass (no BatchNorm statistics) and draw no random numbers. With
`pipeline_stages=1` PipelineCell is the micro-batch loop.
"""

from __future__ import annotations

import contextlib

from kiln import ops
from kiln._compiler.ir import graph as G
from kiln._core import random_state
from kiln._core.tensor import Tensor
from kiln._parallel import pipeline as PP
from kiln._pynative import tape
from kiln.context import PYNATIVE_MODE, _context
from kiln.nn.cell import Cell, CellList, SequentialCell
from kiln.nn.wrap.cell_wrapper import WithLossCell

__all__ = ["GradAccumulationCell", "MicroBatchInterleaved", "PipelineCell"]


def _micro_batch(inputs: tuple, i: int, n: int, cls: str) -> tuple:
    out = []
    for x in inputs:
        if x.shape[0] % n != 0:
            raise ValueError(f"For '{cls}', the first dimension of every input ({x.shape[0]}) must be divisible by "
                             f"{n}.")  # fmt: skip
        step = x.shape[0] // n
        out.append(x[i * step : (i + 1) * step])
    return tuple(out)


def _check(cls: str, network, name: str, n) -> None:
    if not isinstance(network, Cell):
        raise TypeError(f"{cls} wraps a Cell; got a {type(network).__name__}.")
    if not isinstance(n, int) or isinstance(n, bool):
        raise TypeError(f"{cls}: '{name}' counts micro-batches, so it is an int; got a {type(n).__name__}.")
    if n <= 0:
        raise ValueError(f"{cls}: '{name}' counts micro-batches and must be at least 1; got {n}.")


class _MicroBatch(Cell):
    """Micro-batch `i` of `micro_size` of every input: the slice `[i * b, (i + 1) * b)` of its first axis."""

    def __init__(self, micro_size: int, owner: str) -> None:
        super().__init__()
        self.shape = ops.Shape()
        self.micro_size = micro_size
        self.strided_slice = ops.StridedSlice()
        self.__dict__["_owner"] = owner  # the wrapper named in errors

    def construct(self, i, *inputs):
        return _micro_batch(inputs, i, self.micro_size, self.__dict__["_owner"])


class _MicroBatchSum(Cell):
    # MindSpore's attributes: the count (`micro_size` / `interleave_num`), a CellList of `_MicroBatch` slicers
    # (`micro_inputs` / `interleave_inputs`) and the Add that sums the outputs (`add`; `add_list` holds one per
    # micro-batch where MindSpore keeps it).
    _arg, _slicers, _adds_per_batch = "micro_size", "micro_inputs", True

    def __init__(self, network, n: int) -> None:
        super().__init__(auto_prefix=False)
        _check(type(self).__name__, network, self._arg, n)
        self.network = network
        setattr(self, self._arg, n)
        setattr(self, self._slicers, CellList([_MicroBatch(n, type(self).__name__) for _ in range(n)]))
        self.add = ops.Add()
        if self._adds_per_batch:
            self.add_list = [ops.Add() for _ in range(n)]

    def construct(self, *inputs):
        n = getattr(self, self._arg)
        slicers = getattr(self, self._slicers)
        out = None
        for i in range(n):
            y = self.network(*slicers[i](i, *inputs))
            out = y if out is None else ops.add(out, y)
        return out


class GradAccumulationCell(_MicroBatchSum):
    """Run `network` on `micro_size` slices of the batch and sum the outputs (gradients accumulate through the sum)."""


class PipelineCell(_MicroBatchSum):
    """MindSpore's pipeline-parallel wrapper: the batch split into `micro_size` micro-batches, the network's outputs
    on them summed.

    With `pipeline_stages` > 1 (semi-auto modes) the network's stages run on disjoint groups of devices in a 1F1B
    or GPipe schedule (see the module docstring); otherwise the micro-batches run one after the other.

    Args:
        network (Cell): an `nn.SequentialCell`, or an `nn.WithLossCell` around one, when pipelined.
        micro_size (int): the number of micro-batches.
        stage_config (dict, optional): {sub-cell name: stage}, set as those cells' `pipeline_stage`.
        segment_config (dict, optional): kept; Kiln's schedule has no segments.

    Raises:
        KeyError: `stage_config` names a cell the network does not have.
    """

    runs_pipeline_stages = True  # what a training step looks for when pipeline_stages > 1

    def __init__(self, network, micro_size, stage_config=None, segment_config=None) -> None:
        super().__init__(network, micro_size)
        pending = dict(stage_config or {})
        for name, cell in network.cells_and_names():
            if name and name in pending:
                cell.pipeline_stage = pending.pop(name)
        if pending:
            raise KeyError(f"For 'PipelineCell', the argument 'stage_config' : {pending} is not found in 'network'.")
        self.segment_config = segment_config
        self.__dict__["_stage_plan"] = None

    def construct(self, *inputs):
        if not PP.pipelined():
            return super().construct(*inputs)
        plan = self.__dict__["_stage_plan"]
        if plan is None or plan[0].micro_size != self.micro_size or len(plan[1]) != PP.stage_count():
            plan = self.__dict__["_stage_plan"] = _plan(self.network, self.micro_size, len(inputs))
        return PP.run_stages(plan[0], inputs, plan[1])


def _stage_of(cell, index: int, previous: int) -> int:
    stage = cell.__dict__.get("pipeline_stage", previous)
    if isinstance(stage, bool) or not isinstance(stage, int) or stage < 0:
        raise ValueError(f"For 'PipelineCell', cell {index} has pipeline_stage={stage!r}; it must be an int >= 0.")
    return stage


def _stages(network) -> tuple[list[list[Cell]], object]:
    """The cells of each stage, in order, and the loss (run on the last stage; None without one)."""
    backbone, loss = network, None
    if isinstance(network, WithLossCell):
        backbone, loss = network.backbone_network, network._loss_fn
    if not isinstance(backbone, SequentialCell):
        raise NotImplementedError(
            f"For 'PipelineCell' with pipeline_stages > 1, Kiln cuts the network into stages along an "
            f"nn.SequentialCell (or an nn.WithLossCell around one), but got a {type(backbone).__name__}: write the "
            "network as a SequentialCell whose cells carry pipeline_stage."
        )
    count = PP.stage_count()
    groups: list[list[Cell]] = [[] for _ in range(count)]
    current = 0
    for i, cell in enumerate(backbone):
        stage = _stage_of(cell, i, current)
        if stage < current or stage >= count:
            raise ValueError(
                f"For 'PipelineCell', cell {i} ({type(cell).__name__}) has pipeline_stage={stage}: stages must not "
                f"decrease along the sequence and must be below pipeline_stages={count}."
            )
        current = stage
        groups[stage].append(cell)
    empty = [k for k, g in enumerate(groups) if not g]
    if empty:
        raise ValueError(f"For 'PipelineCell', no cell has pipeline_stage {empty[0]} (pipeline_stages={count}).")
    return groups, loss


@contextlib.contextmanager
def _eagerly():
    """Run cells op by op on the arrays given (inside the stage functions), whatever the mode and recording."""
    mode = _context["mode"]
    _context["mode"] = PYNATIVE_MODE
    try:
        with G.recording(None), tape.pause():
            yield
    finally:
        _context["mode"] = mode


def _stage_fn(cells: list, params: list, loss, first: bool):
    """Stage function over backend arrays (see `_backend.pipeline.gpipe`): the cells run on the arrays given, with
    the stage's parameters standing for the arrays of `param_arrays` while they run."""

    def run(param_arrays, carried, micro_inputs):
        with _eagerly():
            key = random_state._key  # the global generator: a stage drawing from it would bake its numbers in
            saved = [p._data for p in params]
            for p, a in zip(params, param_arrays, strict=True):
                p._data = a
            try:
                h = Tensor._wrap(micro_inputs[0] if first else carried)
                for cell in cells:
                    h = cell(h)
                if loss is not None:
                    h = loss(h, *(Tensor._wrap(x) for x in micro_inputs[1:]))
                written = [p.name for p, a in zip(params, param_arrays, strict=True) if p._data is not a]
            finally:
                for p, value in zip(params, saved, strict=True):
                    p._data = value
                drew = random_state._key is not key
                random_state._key = key
        if drew:
            raise NotImplementedError(
                "For 'PipelineCell', a stage draws random numbers (e.g. Dropout in training), which Kiln's pipeline "
                "schedule does not carry between steps."
            )
        if written:
            raise NotImplementedError(
                f"For 'PipelineCell', a stage writes its parameters {written} in the forward pass (e.g. BatchNorm "
                "statistics), which Kiln's pipeline schedule does not carry."
            )
        return h._data

    return run


def _plan(network, micro_size: int, input_count: int) -> tuple:
    """The StagePlan of `network` and the parameters of each stage."""
    groups, loss = _stages(network)
    stage_params, seen = [], {}
    for k, cells in enumerate(groups):
        owners = cells + ([loss] if loss is not None and k == len(groups) - 1 and isinstance(loss, Cell) else [])
        params = []
        for cell in owners:
            for p in cell.get_parameters():
                if seen.setdefault(id(p), k) != k:
                    raise NotImplementedError(
                        f"For 'PipelineCell', parameter '{p.name}' is used by stages {seen[id(p)]} and {k}; "
                        "Kiln's stages do not share parameters."
                    )
                if all(q is not p for q in params):
                    params.append(p)
        stage_params.append(params)
    last = len(groups) - 1
    fns = [_stage_fn(cells, stage_params[k], loss if k == last else None, k == 0) for k, cells in enumerate(groups)]
    plan = PP.StagePlan(fns, [len(ps) for ps in stage_params], input_count, micro_size)
    return plan, stage_params


class MicroBatchInterleaved(_MicroBatchSum):
    """Split the batch into `interleave_num` parts, run `network` on each, and sum the outputs."""

    _arg, _slicers, _adds_per_batch = "interleave_num", "interleave_inputs", False

    def __init__(self, network, interleave_num=2) -> None:
        super().__init__(network, interleave_num)
