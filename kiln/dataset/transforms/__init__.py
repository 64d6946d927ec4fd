"""General transforms (`mindspore.dataset.transforms`)."""

from kiln.dataset.transforms import c_transforms, transforms
from kiln.dataset.transforms.transforms import Compose, OneHot, TypeCast

__all__ = ["Compose", "OneHot", "TypeCast", "c_transforms", "transforms"]
