"""`mindspore.ops.composite`: the public names of `kiln.ops` (kiln/ops/_namespace.py)."""

import sys as _sys

from kiln.ops import _submodules
from kiln.ops._namespace import NAMES as _NAMES
from kiln.ops.python_ops import core as _core

__all__ = list(_NAMES)
globals().update(_NAMES)
_submodules.register(_sys.modules[__name__], _submodules.COMPOSITE)
# `core` lives only in MindSpore's `ops.composite.base`, not in the public namespace
_sys.modules[__name__ + ".base"].core = _core
