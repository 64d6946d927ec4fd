"""Ascend's float-status Primitives (`NPUAllocFloatStatus`, `NPUGetFloatStatus`, `NPUClearFloatStatus`).

They read and clear the overflow flags of Ascend's AI cores, a device register that XLA devices do not have; a
program that checks for overflow on Kiln looks at the values themselves (`ops.isfinite`, or the loss-scale cells of
`nn`, which do). They construct, as MindSpore's do on any device (training cells written for Ascend build them in
`__init__` and call them only there, or a subclass replaces the construct that calls them); a call raises
NotImplementedError, where MindSpore's CPU and GPU refuse the kernel.
"""

from __future__ import annotations

from typing import NoReturn

from kiln.ops.primitive import Primitive

__all__ = ["NPUAllocFloatStatus", "NPUClearFloatStatus", "NPUGetFloatStatus"]

_REASON = "it reads Ascend's overflow register; check the values with ops.isfinite, as nn's loss-scale cells do"


class _AscendFloatStatus(Primitive):
    """A float-status Primitive: it constructs; calling it raises NotImplementedError."""

    __kiln_unavailable__ = _REASON  # tools/zoo_imports counts these names apart from implemented ones

    def __init__(self) -> None:
        super().__init__()

    def __call__(self, *args: object) -> NoReturn:
        raise NotImplementedError(f"ops.{self.name} is not available in Kiln: {_REASON}.")


class NPUAllocFloatStatus(_AscendFloatStatus):
    """Allocates Ascend's overflow status buffer (not available in Kiln; raises NotImplementedError when called)."""


class NPUGetFloatStatus(_AscendFloatStatus):
    """Reads Ascend's overflow flags (not available in Kiln; raises NotImplementedError when called)."""


class NPUClearFloatStatus(_AscendFloatStatus):
    """Clears Ascend's overflow flags (not available in Kiln; raises NotImplementedError when called)."""
