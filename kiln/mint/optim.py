"""`kiln.mint.optim`: PyTorch-style optimizers (parameter groups, per-group `lr`), called as `optimizer(grads)`.

They are the optimizers of `kiln.experimental.optim`; `FusedAdamW` (a fused kernel on Ascend) is AdamW here.
"""

from kiln.experimental.optim.optimizer import SGD, Adam, AdamW

__all__ = ["SGD", "Adam", "AdamW", "FusedAdamW"]


class FusedAdamW(AdamW):
    """AdamW (decoupled weight decay); MindSpore's fused Ascend kernel computes the same update."""
