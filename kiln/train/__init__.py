"""Training: `Model`, callbacks, metrics and checkpoints (MindSpore's `mindspore.train`)."""

from __future__ import absolute_import  # noqa: F404, UP010  (MindSpore's train lists it among its names)

from kiln.common.export import export, load  # noqa: F401  (attributes of train, outside __all__ as before)
from kiln.nn.wrap.cell_wrapper import TrainOneStepCell, WithEvalCell, WithGradCell, WithLossCell
from kiln.train import callback, loss_scale_manager, metrics  # noqa: F401
from kiln.train.amp import build_train_network
from kiln.train.callback import *  # noqa: F403
from kiln.train.callback import __all__ as _callback_all
from kiln.train.checkpoint import (  # noqa: F401  (the distributed-checkpoint pair: attributes outside __all__)
    async_ckpt_thread_status,
    build_searched_strategy,
    ckpt_to_safetensors,
    get_ckpt_path_with_strategy,
    load_checkpoint,
    load_checkpoint_async,
    load_distributed_checkpoint,
    load_param_into_net,
    merge_sliced_parameter,
    safetensors_to_ckpt,
    save_checkpoint,
)
from kiln.train.dataset_helper import DatasetHelper, connect_network_with_dataset, data_sink
from kiln.train.loss_scale_manager import DynamicLossScaleManager, FixedLossScaleManager, LossScaleManager
from kiln.train.metrics import *  # noqa: F403
from kiln.train.metrics import __all__ as _metrics_all
from kiln.train.model import Model
from kiln.train.summary import SummaryRecord
from kiln.train.train_thor import ConvertModelUtils

__all__ = [
    "DynamicLossScaleManager",
    "FixedLossScaleManager",
    "LossScaleManager",
    "DatasetHelper",
    "Model",
    "SummaryRecord",
    "ConvertModelUtils",
    "build_train_network",
    "async_ckpt_thread_status",
    "build_searched_strategy",
    "get_ckpt_path_with_strategy",
    "ckpt_to_safetensors",
    "connect_network_with_dataset",
    "data_sink",
    "load_checkpoint_async",
    "safetensors_to_ckpt",
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
