"""LAMB (You et al. 2019, "Large Batch Optimization for Deep Learning"): Adam's bias-corrected direction plus
decoupled weight decay, scaled per parameter by the trust ratio ||w|| / ||update||."""

from __future__ import annotations

import numpy as np

from kiln import ops
from kiln._core import dtype as mstype
from kiln._core.tensor import Tensor
from kiln.nn.cell import Cell
from kiln.nn.optim.optimizer import Optimizer, check_float

__all__ = ["Lamb"]

F32 = mstype.float32


class Lamb(Optimizer):
    """m = b1 m + (1 - b1) g; v = b2 v + (1 - b2) g^2; u = m^ / (sqrt(v^) + eps) + wd w (wd only where
    `decay_flags` selects); w -= lr * r * u with r = ||w|| / ||u|| (1 when either norm is 0). State `lamb_m.*`,
    `lamb_v.*`; the learning rate and weight decay may be dynamic or per group."""

    def __init__(self, params, learning_rate, beta1=0.9, beta2=0.999, eps=1e-6, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay)
        check_float("Lamb", "beta1", beta1, low=0.0, high=1.0)
        check_float("Lamb", "beta2", beta2, low=0.0, high=1.0)
        check_float("Lamb", "eps", eps, low=0.0)
        self.beta1, self.beta2, self.eps = beta1, beta2, eps
        self.params = self._parameters
        self.moments1 = self._parameters.clone(prefix="lamb_m", init="zeros")
        self.moments2 = self._parameters.clone(prefix="lamb_v", init="zeros")

    def construct(self, gradients):
        gradients = self._check_gradients(gradients)
        gradients = self.gradients_centralization(gradients)
        lrs = self.get_lr()
        ops.assign_add(self.global_step, Tensor(np.array([1], np.int32)))
        t = ops.cast(ops.reshape(self.global_step, ()), F32)
        bc1, bc2 = 1.0 - ops.pow(self.beta1, t), 1.0 - ops.pow(self.beta2, t)
        for i, (p, g) in enumerate(zip(self._parameters, gradients)):
            lr = ops.reshape(ops.cast(lrs[i] if self.is_group_lr else lrs, F32), ())
            w = self._weight_decays[i]
            wd = (w(self.global_step) if isinstance(w, Cell) else w) if self.decay_flags[i] else 0.0
            g = ops.cast(g, F32)
            p32 = ops.cast(p, F32)
            m = self.beta1 * ops.cast(self.moments1[i], F32) + (1 - self.beta1) * g
            v = self.beta2 * ops.cast(self.moments2[i], F32) + (1 - self.beta2) * g * g
            ops.assign(self.moments1[i], ops.cast(m, self.moments1[i].dtype))
            ops.assign(self.moments2[i], ops.cast(v, self.moments2[i].dtype))
            update = (m / bc1) / (ops.sqrt(v / bc2) + self.eps) + ops.cast(wd, F32) * p32
            w_norm, u_norm = ops.norm(p32), ops.norm(update)
            ok = ops.logical_and(w_norm > 0, u_norm > 0)
            ratio = ops.select(ok, w_norm / ops.select(ok, u_norm, ops.ones_like(u_norm)), ops.ones_like(w_norm))
            ops.assign(p, ops.cast(p32 - lr * ratio * update, p.dtype))
        return True
