"""Kiln's `nn`: Cell, layers, losses and optimizers (MindSpore's `mindspore.nn`)."""

from __future__ import absolute_import  # noqa: F404, UP010  (MindSpore's nn lists it among its names)

from kiln.nn import dynamic_lr, layer, learning_rate_schedule, loss, optim, wrap
from kiln.nn.cell import Cell, CellDict, CellList, SequentialCell
from kiln.nn.dynamic_lr import *  # noqa: F403
from kiln.nn.grad.cell_grad import Jvp, Vjp
from kiln.nn.graph_cell import GraphCell  # noqa: F401  (an attribute, outside __all__ as before)
from kiln.nn.layer import activation as _activation
from kiln.nn.layer import basic as _basic
from kiln.nn.layer import combined as _combined
from kiln.nn.layer import conv as _conv
from kiln.nn.layer import dense as _dense
from kiln.nn.layer import embedding as _embedding
from kiln.nn.layer import image as _image
from kiln.nn.layer import math as _math
from kiln.nn.layer import normalization as _normalization
from kiln.nn.layer import padding as _padding
from kiln.nn.layer import pooling as _pooling
from kiln.nn.layer import rnn as _rnn
from kiln.nn.layer import sparse as _sparse
from kiln.nn.layer import time_distributed as _time_distributed
from kiln.nn.layer import transformer as _transformer
from kiln.nn.layer.activation import *  # noqa: F403
from kiln.nn.layer.basic import *  # noqa: F403
from kiln.nn.layer.combined import *  # noqa: F403
from kiln.nn.layer.conv import *  # noqa: F403
from kiln.nn.layer.dense import *  # noqa: F403
from kiln.nn.layer.embedding import *  # noqa: F403
from kiln.nn.layer.image import *  # noqa: F403
from kiln.nn.layer.math import *  # noqa: F403
from kiln.nn.layer.normalization import *  # noqa: F403
from kiln.nn.layer.padding import *  # noqa: F403
from kiln.nn.layer.pooling import *  # noqa: F403
from kiln.nn.layer.rnn import *  # noqa: F403
from kiln.nn.layer.sparse import *  # noqa: F403
from kiln.nn.layer.time_distributed import *  # noqa: F403
from kiln.nn.layer.transformer import *  # noqa: F403
from kiln.nn.learning_rate_schedule import *  # noqa: F403
from kiln.nn.loss import *  # noqa: F403
from kiln.nn.optim import *  # noqa: F403
from kiln.nn.wrap import *  # noqa: F403  (the other wrapper cells, listed by wrap.__all__)
from kiln.nn.wrap.cell_wrapper import ForwardValueAndGrad, TrainOneStepCell, WithEvalCell, WithGradCell, WithLossCell
from kiln.nn.wrap.grad_reducer import DistributedGradReducer
from kiln.nn.wrap.loss_scale import DynamicLossScaleUpdateCell, FixedLossScaleUpdateCell, TrainOneStepWithLossScaleCell

__all__ = [
    "Cell", "CellDict", "CellList", "DistributedGradReducer", "SequentialCell", "TrainOneStepCell", "WithEvalCell",
    "WithGradCell", "WithLossCell", "dynamic_lr", "layer", "learning_rate_schedule", "loss", "optim",
    "DynamicLossScaleUpdateCell", "FixedLossScaleUpdateCell", "TrainOneStepWithLossScaleCell", "ForwardValueAndGrad",
    "Jvp", "Vjp",
]  # fmt: skip
# Every public name of the submodules, so `from kiln.nn import *` matches `from mindspore.nn import *`.
for _m in (
    dynamic_lr, _activation, _basic, _conv, _dense, _embedding, _normalization, _pooling, learning_rate_schedule,
    loss, optim, _transformer, _rnn, _padding, _image, _math, _combined, _time_distributed, _sparse, wrap,
):  # fmt: skip
    __all__ += [n for n in _m.__all__ if n not in __all__]
del _m


# MindSpore also exposes its metrics as `nn.Accuracy`, `nn.auc`, ... They live in `kiln.train.metrics` (a layer
# above nn), so they are resolved on first access (the same objects), and listed by `dir(kiln.nn)`.
_FROM_TRAIN = {
    "Accuracy", "BleuScore", "ConfusionMatrix", "ConfusionMatrixMetric", "CosineSimilarity", "Dice", "F1", "Fbeta",
    "HausdorffDistance", "Loss", "MAE", "MSE", "MeanSurfaceDistance", "Metric", "OcclusionSensitivity", "Perplexity",
    "Precision", "ROC", "Recall", "RootMeanSquareDistance", "Top1CategoricalAccuracy", "Top5CategoricalAccuracy",
    "TopKCategoricalAccuracy", "auc", "get_metric_fn", "get_metrics", "names", "rearrange_inputs",
}  # fmt: skip

# MindSpore's `nn.*Ext` classes are its `mint.nn` classes (the same objects); `mint` sits above `nn`.
_FROM_MINT = {
    "AvgPool1dExt": "AvgPool1d", "AvgPool2dExt": "AvgPool2d", "AvgPool3dExt": "AvgPool3d",
    "Dropout2dExt": "Dropout2d", "DropoutExt": "Dropout", "EmbeddingExt": "Embedding", "L1LossExt": "L1Loss",
    "LayerNormExt": "LayerNorm", "LogSoftmaxExt": "LogSoftmax", "MaxPool2dExt": "MaxPool2d", "PReLUExt": "PReLU",
}  # fmt: skip


def __getattr__(name: str):
    if name in _FROM_TRAIN:
        import kiln.train.metrics  # noqa: PLC0415

        return getattr(kiln.train.metrics, name)
    if name in _FROM_MINT:
        import kiln.mint.nn  # noqa: PLC0415

        return getattr(kiln.mint.nn, _FROM_MINT[name])
    raise AttributeError(f"module 'kiln.nn' has no attribute '{name}'")


def __dir__():
    return sorted(set(globals()) | _FROM_TRAIN | set(_FROM_MINT))
