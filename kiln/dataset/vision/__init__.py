"""Image transforms and enums (`mindspore.dataset.vision`)."""

from kiln.dataset.vision import c_transforms, transforms, utils
from kiln.dataset.vision.transforms import (
    HWC2CHW,
    Border,
    CenterCrop,
    Decode,
    Inter,
    Normalize,
    Pad,
    RandomCrop,
    RandomHorizontalFlip,
    RandomVerticalFlip,
    Rescale,
    Resize,
    ToTensor,
)

__all__ = [
    "Border",
    "CenterCrop",
    "Decode",
    "HWC2CHW",
    "Inter",
    "Normalize",
    "Pad",
    "RandomCrop",
    "RandomHorizontalFlip",
    "RandomVerticalFlip",
    "Rescale",
    "Resize",
    "ToTensor",
    "c_transforms",
    "transforms",
    "utils",
]
