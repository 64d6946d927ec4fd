"""Checkpoints: MindSpore's `.ckpt` protobuf layout and safetensors, written atomically."""

from kiln.train.checkpoint.api import (
    async_ckpt_thread_status,
    load_checkpoint,
    load_checkpoint_async,
    save_checkpoint,
    wait_async_saves,
)
from kiln.train.checkpoint.convert import ckpt_to_safetensors, safetensors_to_ckpt
from kiln.train.checkpoint.distributed import (
    build_searched_strategy,
    get_ckpt_path_with_strategy,
    load_distributed_checkpoint,
    merge_sliced_parameter,
)
from kiln.train.checkpoint.loading import load_param_into_net

__all__ = [
    "async_ckpt_thread_status", "build_searched_strategy", "ckpt_to_safetensors", "get_ckpt_path_with_strategy",
    "load_checkpoint", "load_checkpoint_async", "load_distributed_checkpoint", "load_param_into_net",
    "merge_sliced_parameter", "safetensors_to_ckpt", "save_checkpoint", "wait_async_saves",
]  # fmt: skip
