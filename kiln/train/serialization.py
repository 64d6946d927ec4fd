"""MindSpore's module path `mindspore.train.serialization`: saving, loading and converting checkpoints, and the
distributed-checkpoint helpers (all defined in `kiln.train.checkpoint`, whose `__all__` this re-exports)."""

from kiln.common.export import export, load  # noqa: F401  (MindSpore's serialization module has these too)
from kiln.train.checkpoint import *  # noqa: F403
from kiln.train.checkpoint import load_checkpoint, load_param_into_net, save_checkpoint

__all__ = ["load_checkpoint", "load_param_into_net", "save_checkpoint"]
