"""Ascend's float-status Primitives (`NPUAllocFloatStatus`, `NPUGetFloatStatus`, `NPUClearFloatStatus`).

They read and clear the overflow flags of Ascend's AI cores, a device register that XLA devices do not have; a
program that checks for overflow on Kiln looks at the values themselves (`ops.isfinite`, or the loss-scale cells of
`nn`, which do). The names import so that a loss-scale cell written for Ascend loads; building one raises.
"""

from __future__ import annotations

from kiln._core.unsupported import unavailable

__all__ = ["NPUAllocFloatStatus", "NPUClearFloatStatus", "NPUGetFloatStatus"]

_REASON = "it reads Ascend's overflow register; check the values with ops.isfinite, as nn's loss-scale cells do"
NPUAllocFloatStatus = unavailable("ops.NPUAllocFloatStatus", _REASON)
NPUGetFloatStatus = unavailable("ops.NPUGetFloatStatus", _REASON)
NPUClearFloatStatus = unavailable("ops.NPUClearFloatStatus", _REASON)
