"""Training: `Model`, callbacks, metrics and checkpoints (MindSpore's `mindspore.train`)."""

from __future__ import absolute_import  # noqa: F404, UP010  (MindSpore's train lists it among its names)

from kiln.nn.wrap import TrainOneStepCell, WithEvalCell, WithGradCell, WithLossCell
from kiln.train import callback, loss_scale_manager, metrics  # noqa: F401
from kiln.train.callback import *  # noqa: F403
from kiln.train.callback import __all__ as _callback_all
from kiln.train.checkpoint import load_checkpoint, load_param_into_net, save_checkpoint
from kiln.train.loss_scale_manager import DynamicLossScaleManager, FixedLossScaleManager, LossScaleManager
from kiln.train.metrics import *  # noqa: F403
from kiln.train.metrics import __all__ as _metrics_all
from kiln.train.model import Model

__all__ = [
    "DynamicLossScaleManager",
    "FixedLossScaleManager",
    "LossScaleManager",
    "Model",
    "TrainOneStepCell",
    "WithEvalCell",
    "WithGradCell",
    "WithLossCell",
    "callback",
    "load_checkpoint",
    "load_param_into_net",
    "metrics",
    "save_checkpoint",
    *_callback_all,
    *_metrics_all,
]
