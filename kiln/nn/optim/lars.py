"""LARS (You et al. 2017, "Large Batch Training of Convolutional Networks"): wraps an optimizer and rescales each
selected gradient by a layer-wise trust ratio before the wrapped optimizer's step."""

from __future__ import annotations

import numpy as np

from kiln import ops
from kiln._core import dtype as mstype
from kiln._core.tensor import Parameter, Tensor
from kiln.nn.cell import Cell
from kiln.nn.optim.optimizer import Optimizer

__all__ = ["LARS"]

F32 = mstype.float32


class LARS(Optimizer):
    """For each parameter w that `lars_filter` selects: g <- r (g + wd w) with the trust ratio
    r = coefficient ||w|| / (||g|| + wd ||w|| + epsilon) (1 when either norm is 0; with `use_clip`, min(r / lr, 1)),
    wd being the wrapped optimizer's weight decay where its `decay_flags` apply; then the wrapped optimizer steps
    without its own weight decay (LARS took it over). A wrapped optimizer's `loss_scale` divides every gradient
    first, here, and no longer in its own step."""

    def __init__(self, optimizer, epsilon=1e-05, coefficient=0.001, use_clip=False,
                 lars_filter=lambda x: "LayerNorm" not in x.name and "bias" not in x.name):  # fmt: skip
        super().__init__(0.0, [Parameter(Tensor(np.float32(0.0)), name="fake_param")])
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"For 'LARS', 'optimizer' must be an Optimizer, but got {type(optimizer).__name__}.")
        for name, v in (("epsilon", epsilon), ("coefficient", coefficient)):
            if not isinstance(v, float):
                raise TypeError(f"For 'LARS', '{name}' must be a float, but got {type(v).__name__}.")
        if not isinstance(use_clip, bool):
            raise TypeError(f"For 'LARS', 'use_clip' must be a bool, but got {type(use_clip).__name__}.")
        self.opt = optimizer
        # A loss-scaled optimizer's gradients are unscaled here, before the trust ratio reads their norm (as
        # MindSpore's LARS does); the wrapped optimizer then steps on them as they are.
        self.loss_scale = optimizer.loss_scale
        self.need_scale, self.reciprocal_scale = optimizer.need_scale, optimizer.reciprocal_scale
        optimizer.need_scale, optimizer.reciprocal_scale = False, 1.0
        self.epsilon, self.coefficient, self.use_clip = epsilon, coefficient, use_clip
        self.parameters = optimizer.parameters
        self.lars_flag = tuple(bool(lars_filter(p)) for p in optimizer.parameters)
        self.lars_decay_flags = tuple(optimizer.decay_flags)
        self.lars_weight_decays = list(optimizer._weight_decays)
        # the weight decay now happens here, inside the trust-ratio update
        optimizer.decay_flags = tuple(False for _ in optimizer.decay_flags)
        optimizer.exec_weight_decay = False

    def construct(self, gradients):
        opt = self.opt
        gradients = opt._check_gradients(gradients)
        if self.need_scale:
            gradients = tuple(ops.mul(g, self.reciprocal_scale) for g in gradients)
        lrs = opt.get_lr() if self.use_clip else None
        out = []
        for i, (w, g) in enumerate(zip(opt.parameters, gradients)):
            if not self.lars_flag[i]:
                out.append(g)
                continue
            wd = self.lars_weight_decays[i] if self.lars_decay_flags[i] else 0.0
            wd = ops.cast(wd(opt.global_step), F32) if isinstance(wd, Cell) else wd
            w32, g32 = ops.cast(w, F32), ops.cast(g, F32)
            w_norm, g_norm = ops.norm(w32), ops.norm(g32)
            ok = ops.logical_and(w_norm > 0, g_norm > 0)
            denom = g_norm + wd * w_norm + self.epsilon
            ratio = ops.select(ok, self.coefficient * w_norm / denom, ops.ones_like(w_norm))
            if self.use_clip:
                lr = ops.reshape(ops.cast(lrs[i] if opt.is_group_lr else lrs, F32), ())
                ratio = ops.minimum(ratio / lr, ops.ones_like(ratio))
            out.append(ops.cast(ratio * (g32 + wd * w32), g.dtype))
        return opt(tuple(out))
