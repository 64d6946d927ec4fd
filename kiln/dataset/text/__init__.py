"""Text transforms and vocabularies (`mindspore.dataset.text`)."""

from kiln.dataset.text import transforms as transforms
from kiln.dataset.text import utils as utils
from kiln.dataset.text.transforms import *  # noqa: F403
from kiln.dataset.text.transforms import __all__ as _transform_names
from kiln.dataset.text.utils import *  # noqa: F403
from kiln.dataset.text.utils import __all__ as _util_names

__all__ = sorted([*_transform_names, *_util_names, "transforms", "utils"])
