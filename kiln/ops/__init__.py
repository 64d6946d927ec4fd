"""Kiln ops: the functional API (`ops.add`, `ops.conv2d`) and Primitive classes (`ops.Add()`).

Each family module lists its public names in `__all__` (kiln/ops/_namespace.py gathers them; the lists are disjoint,
so no import order decides what a name means). The faces table (`kiln.ops.faces`) builds the faces of the ops it
lists; the family modules bind them by name. The Primitive classes live in `kiln.ops.operations`, by family.
"""

import sys as _sys

from kiln.ops import _submodules, functional, operations, tensor_methods
from kiln.ops._namespace import NAMES as _NAMES

__all__ = list(_NAMES)
globals().update(_NAMES)

tensor_methods.install(_sys.modules[__name__])
_submodules.register(_sys.modules[__name__], _submodules.AUTO_GENERATE)

function = functional  # MindSpore's `ops.function`: the same namespace
P = operations  # `from mindspore.ops import operations as P`, as MindSpore's own sources name it
