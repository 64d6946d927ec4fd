"""`mindspore.ops.operations` compatibility: the same names as `kiln.ops`."""

import sys as _sys

import kiln.ops as _ops
from kiln.ops import _submodules

globals().update({name: value for name, value in vars(_ops).items() if not name.startswith("_")})
_submodules.register(_sys.modules[__name__], _submodules.OPERATIONS)
from kiln.ops.float_status import NPUAllocFloatStatus, NPUClearFloatStatus, NPUGetFloatStatus  # noqa: E402, F401
