"""Training: `Model`, callbacks, metrics and checkpoints (MindSpore's `mindspore.train`)."""

from __future__ import absolute_import  # noqa: F404, UP010  (MindSpore's train lists it among its names)

from kiln.nn.wrap.cell_wrapper import TrainOneStepCell, WithEvalCell, WithGradCell, WithLossCell
from kiln.train import callback, loss_scale_manager, metrics  # noqa: F401
from kiln.train.callback import *  # noqa: F403
from kiln.train.callback import __all__ as _callback_all
from kiln.train.checkpoint import load_checkpoint, load_param_into_net, save_checkpoint
from kiln.train.dataset_helper import DatasetHelper, connect_network_with_dataset, data_sink
from kiln.train.loss_scale_manager import DynamicLossScaleManager, FixedLossScaleManager, LossScaleManager
from kiln.train.metrics import *  # noqa: F403
from kiln.train.metrics import __all__ as _metrics_all
from kiln.train.model import Model
from kiln.train.serialization_extra import (
    async_ckpt_thread_status,
    build_searched_strategy,
    ckpt_to_safetensors,
    get_ckpt_path_with_strategy,
    load_checkpoint_async,
    safetensors_to_ckpt,
)

__all__ = [
    "DynamicLossScaleManager",
    "FixedLossScaleManager",
    "LossScaleManager",
    "DatasetHelper",
    "Model",
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

# MindSpore's `train` also exposes functions that live in layers Kiln keeps elsewhere (amp imports train; export
# and the distributed checkpoint helpers sit beside it): resolved on first access, the same objects.
_ELSEWHERE = {
    "build_train_network": "kiln.amp",
    "export": "kiln.common.export",
    "load": "kiln.common.export",
    "merge_sliced_parameter": "kiln.parallel._checkpoint",
    "load_distributed_checkpoint": "kiln.parallel._checkpoint",
}


def __getattr__(name: str):
    if name in _ELSEWHERE:
        import importlib  # noqa: PLC0415

        return getattr(importlib.import_module(_ELSEWHERE[name]), name)
    raise AttributeError(f"module 'kiln.train' has no attribute '{name}'")


def __dir__():
    return sorted(set(globals()) | set(_ELSEWHERE))
