"""Micro-batch wrapper cells: GradAccumulationCell, PipelineCell and MicroBatchInterleaved split every input along
axis 0 into micro-batches, run the network on each and sum the outputs (one process: the pipeline is the loop)."""

from __future__ import annotations

from kiln import ops
from kiln.nn.cell import Cell

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


class _MicroBatchSum(Cell):
    _arg = "micro_size"

    def __init__(self, network, n: int) -> None:
        super().__init__(auto_prefix=False)
        _check(type(self).__name__, network, self._arg, n)
        self.network = network
        setattr(self, self._arg, n)

    def construct(self, *inputs):
        n = getattr(self, self._arg)
        out = None
        for i in range(n):
            y = self.network(*_micro_batch(inputs, i, n, type(self).__name__))
            out = y if out is None else ops.add(out, y)
        return out


class GradAccumulationCell(_MicroBatchSum):
    """Run `network` on `micro_size` slices of the batch and sum the outputs (gradients accumulate through the sum)."""


class PipelineCell(_MicroBatchSum):
    """MindSpore's pipeline-parallel wrapper. In one process it is the micro-batch loop: the batch is split into
    `micro_size` slices, the outputs summed; `stage_config` sets `pipeline_stage` on the named sub-cells."""

    def __init__(self, network, micro_size, stage_config=None, segment_config=None) -> None:
        super().__init__(network, micro_size)
        pending = dict(stage_config or {})
        for name, cell in network.cells_and_names():
            if name and name in pending:
                cell.pipeline_stage = pending.pop(name)
        if pending:
            raise KeyError(f"For 'PipelineCell', the argument 'stage_config' : {pending} is not found in 'network'.")
        self.segment_config = segment_config


class MicroBatchInterleaved(_MicroBatchSum):
    """Split the batch into `interleave_num` parts, run `network` on each, and sum the outputs."""

    _arg = "interleave_num"

    def __init__(self, network, interleave_num=2) -> None:
        super().__init__(network, interleave_num)
