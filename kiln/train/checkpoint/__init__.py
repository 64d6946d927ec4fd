"""Checkpoints: MindSpore's `.ckpt` protobuf layout and safetensors, written atomically."""

from kiln.train.checkpoint.api import load_checkpoint, save_checkpoint, wait_async_saves
from kiln.train.checkpoint.loading import load_param_into_net

__all__ = ["load_checkpoint", "load_param_into_net", "save_checkpoint", "wait_async_saves"]
