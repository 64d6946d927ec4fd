"""Alias of `kiln.dataset.vision.transforms` under MindSpore's older module name."""

from kiln.dataset.vision.transforms import *  # noqa: F403
from kiln.dataset.vision.transforms import __all__  # noqa: F401
