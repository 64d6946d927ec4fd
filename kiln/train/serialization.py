"""MindSpore's module path `mindspore.train.serialization`."""

from kiln.train.checkpoint import load_checkpoint, load_param_into_net, save_checkpoint

__all__ = ["load_checkpoint", "load_param_into_net", "save_checkpoint"]
