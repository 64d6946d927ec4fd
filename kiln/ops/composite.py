"""`mindspore.ops.composite`: the public names of `kiln.ops` (kiln/ops/_namespace.py)."""

import sys as _sys

from kiln.ops import _submodules
from kiln.ops._namespace import NAMES as _NAMES

__all__ = list(_NAMES)
globals().update(_NAMES)
_submodules.register(_sys.modules[__name__], _submodules.COMPOSITE)
