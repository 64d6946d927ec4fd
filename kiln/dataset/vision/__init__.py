"""Image transforms and enums (`mindspore.dataset.vision`)."""

from kiln.dataset.transforms.transforms import not_random as not_random
from kiln.dataset.vision import c_transforms as c_transforms
from kiln.dataset.vision import py_transforms_util as py_transforms_util
from kiln.dataset.vision import transforms as transforms
from kiln.dataset.vision import utils as utils
from kiln.dataset.vision import validators as validators  # noqa: E402  (it imports the transforms above)
from kiln.dataset.vision.transforms import *  # noqa: F403
from kiln.dataset.vision.transforms import __all__ as _transform_names
from kiln.dataset.vision.utils import AutoAugmentPolicy as AutoAugmentPolicy

__all__ = sorted(
    [
        *_transform_names,
        "AutoAugmentPolicy",
        "c_transforms",
        "not_random",
        "py_transforms_util",
        "transforms",
        "utils",
        "validators",
    ]
)
