"""Kiln's loss cells (MindSpore's `mindspore.nn` losses)."""

from kiln.nn.loss.loss import *  # noqa: F403
from kiln.nn.loss.loss import __all__  # noqa: F401
