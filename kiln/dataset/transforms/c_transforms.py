"""Alias of `kiln.dataset.transforms.transforms` under MindSpore's older module name."""

from kiln.dataset.transforms.transforms import *  # noqa: F403
from kiln.dataset.transforms.transforms import __all__  # noqa: F401
