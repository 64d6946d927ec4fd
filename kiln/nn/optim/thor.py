"""THOR, MindSpore's second-order optimizer (`mindspore.nn.optim.thor`): not available in Kiln.

THOR approximates the Fisher information per layer with Kronecker factors, which MindSpore computes in dedicated
Ascend/GPU layer kernels (`DenseThor`, `Conv2dThor`, ...) that a converted network uses. Kiln has no such layers;
`thor` imports so that scripts choosing between optimizers run, and raises when called.
"""

from __future__ import annotations

from kiln._core.unsupported import unavailable

__all__ = ["thor"]

thor = unavailable(
    "nn.optim.thor",
    "it needs MindSpore's THOR layer kernels; train with a first-order optimizer (nn.Momentum, nn.Adam)",
)
