"""MindSpore's `mindspore.boost` (training accelerations for Ascend): not available in Kiln.

Kiln has no boost levels (`Model(boost_level=...)` warns). `GradientAccumulation` imports so that a script choosing
between strategies loads, and raises when built: accumulate gradients over steps with Kiln's `nn` cells instead.
"""

from __future__ import annotations

from kiln._core.unsupported import unavailable

__all__ = ["GradientAccumulation"]

GradientAccumulation = unavailable(
    "boost.GradientAccumulation",
    "Kiln has no boost module; sum gradients over steps in the train cell, or use nn.GradAccumulationCell",
)
