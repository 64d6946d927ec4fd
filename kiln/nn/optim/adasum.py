"""AdaSum optimizer wrappers (`mindspore.nn.optim.adasum`): names that import, and refuse to be built.

Adaptive Summation combines the gradients (or weight deltas) of data-parallel replicas pairwise, scaled by their
projections on each other, in place of their mean. MindSpore applies it only in (semi-)auto-parallel jobs of at least
16 devices and refuses a stand-alone process; Kiln's data parallelism averages gradients and has no AdaSum. The
classes exist so that `isinstance(optimizer, (nn.AdaSumByGradWrapCell, ...))` checks in train cells run.
"""

from __future__ import annotations

from kiln.nn.cell import Cell

__all__ = ["AdaSumByDeltaWeightWrapCell", "AdaSumByGradWrapCell"]

_REASON = (
    "Kiln's data parallelism averages the replicas' gradients and has no adaptive summation; pass the optimizer "
    "itself (MindSpore applies AdaSum only in auto-parallel jobs of 16 or more devices)"
)


class _AdaSumWrapper(Cell):
    __kiln_unavailable__ = _REASON

    def __init__(self, optimizer: Cell) -> None:
        raise NotImplementedError(f"nn.{type(self).__name__} is not available in Kiln: {_REASON}.")


class AdaSumByGradWrapCell(_AdaSumWrapper):
    """AdaSum over the replicas' gradients: not available in Kiln (the constructor raises NotImplementedError)."""


class AdaSumByDeltaWeightWrapCell(_AdaSumWrapper):
    """AdaSum over the replicas' weight deltas: not available in Kiln (the constructor raises NotImplementedError)."""
