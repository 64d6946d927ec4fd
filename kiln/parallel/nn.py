"""MindSpore 2.10's `mindspore.parallel.nn`: the parallel training wrappers under their newer names (`Pipeline`,
`GradAccumulation`) beside `PipelineCell`, `MicroBatchInterleaved` and `PipelineGradReducer` (kiln/nn/wrap)."""

from kiln.nn.wrap.grad_reducer import PipelineGradReducer
from kiln.nn.wrap.micro_batch import GradAccumulationCell, MicroBatchInterleaved, PipelineCell

__all__ = ["GradAccumulation", "MicroBatchInterleaved", "Pipeline", "PipelineCell", "PipelineGradReducer"]


class Pipeline(PipelineCell):
    """MindSpore 2.10's name for `nn.PipelineCell` (the same arguments and behaviour): with `pipeline_stages` > 1 the
    network's stages run on disjoint device groups in a 1F1B or GPipe schedule, else the micro-batches run one by
    one."""


class GradAccumulation(GradAccumulationCell):
    """MindSpore 2.10's name for `nn.GradAccumulationCell`: `network` run on `micro_size` slices of the batch, the
    outputs summed, so one optimizer step applies the accumulated gradient."""
