"""Audio transforms, enums and filter banks (`mindspore.dataset.audio`)."""

from kiln.dataset.audio import transforms as transforms
from kiln.dataset.audio import utils as utils
from kiln.dataset.audio.transforms import *  # noqa: F403
from kiln.dataset.audio.transforms import __all__ as _transform_names
from kiln.dataset.audio.utils import *  # noqa: F403
from kiln.dataset.audio.utils import __all__ as _util_names

__all__ = sorted([*_transform_names, *_util_names, "transforms", "utils"])
