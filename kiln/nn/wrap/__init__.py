"""Wrapper cells around a network (MindSpore's `nn.wrap`): the loss and training-step cells (`cell_wrapper`),
loss-scaled steps and their scale-update cells (`loss_scale`), gradient reducers (`grad_reducer`), micro-batch
loops (`micro_batch`) and the deferred-initialisation marker (`deferred_init`)."""

from kiln.nn.wrap.cell_wrapper import (
    ForwardValueAndGrad,
    TrainOneStepCell,
    VirtualDatasetCellTriple,
    WithEvalCell,
    WithGradCell,
    WithLossCell,
    _VirtualDatasetCell,  # noqa: F401  (private; zoo scripts import it from nn.wrap.cell_wrapper, mapped here)
)
from kiln.nn.wrap.deferred_init import no_init_parameters
from kiln.nn.wrap.grad_reducer import DistributedGradReducer, PipelineGradReducer
from kiln.nn.wrap.loss_scale import DynamicLossScaleUpdateCell, FixedLossScaleUpdateCell, TrainOneStepWithLossScaleCell
from kiln.nn.wrap.micro_batch import GradAccumulationCell, MicroBatchInterleaved, PipelineCell

__all__ = [
    "DistributedGradReducer", "DynamicLossScaleUpdateCell", "FixedLossScaleUpdateCell", "ForwardValueAndGrad",
    "GradAccumulationCell", "MicroBatchInterleaved", "PipelineCell", "PipelineGradReducer", "TrainOneStepCell",
    "TrainOneStepWithLossScaleCell", "VirtualDatasetCellTriple", "WithEvalCell", "WithGradCell", "WithLossCell",
    "no_init_parameters",
]  # fmt: skip
