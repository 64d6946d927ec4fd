"""General transforms (`mindspore.dataset.transforms`)."""

from kiln.dataset.transforms import c_transforms, transforms
from kiln.dataset.transforms.transforms import *  # noqa: F403
from kiln.dataset.transforms.transforms import __all__ as _names

__all__ = [*_names, "c_transforms", "transforms"]
