"""Kiln's loss cells (MindSpore's `mindspore.nn` losses)."""

from kiln.nn.loss import loss as _loss
from kiln.nn.loss.loss import *  # noqa: F403

__all__ = list(_loss.__all__)
