"""Kiln's loss cells (MindSpore's `mindspore.nn` losses)."""

from kiln.nn.loss import extra as _extra
from kiln.nn.loss import loss as _loss
from kiln.nn.loss.extra import *  # noqa: F403
from kiln.nn.loss.loss import *  # noqa: F403

__all__ = [*_loss.__all__, *_extra.__all__]
