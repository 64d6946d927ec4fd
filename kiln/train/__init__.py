"""Training: checkpoints (more is added as it lands)."""

from kiln.train.checkpoint import load_checkpoint, load_param_into_net, save_checkpoint

__all__ = ["load_checkpoint", "load_param_into_net", "save_checkpoint"]
