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
