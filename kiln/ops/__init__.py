"""Kiln ops: the functional API (`ops.add`, `ops.conv2d`) and Primitive classes (`ops.Add()`).

Each family module lists its public names in `__all__` (kiln/ops/_namespace.py gathers them; the lists are disjoint,
so no import order decides what a name means). The faces table (`kiln.ops.faces`) builds the faces of the ops it
lists; the family modules bind them by name. The Primitive classes live in `kiln.ops.operations`, by family.
"""

import sys as _sys

from kiln._core.tensor import Tensor  # noqa: F401  (`ops.Tensor`, an attribute of MindSpore's ops outside __all__)
from kiln.ops import (
    _submodules,
    composite,  # noqa: F401  (`ops.composite`, bound as MindSpore's ops package binds it)
    functional,
    operations,
    tensor_methods,
)
from kiln.ops import op_info_register as _op_info_register_module  # noqa: F401  (loaded before the names below)
from kiln.ops._namespace import NAMES as _NAMES

# A submodule imported for the first time binds its name on this package: `kiln.ops.op_info_register` (MindSpore's
# module path) is therefore loaded here, before the public names are bound, so that `ops.op_info_register` stays the
# function (as in MindSpore) whoever imports the module later.

__all__ = list(_NAMES)
globals().update(_NAMES)

tensor_methods.install(_sys.modules[__name__])
_submodules.register(_sys.modules[__name__], _submodules.AUTO_GENERATE)

function = functional  # MindSpore's `ops.function`: the same namespace
P = operations  # `from mindspore.ops import operations as P`, as MindSpore's own sources name it
