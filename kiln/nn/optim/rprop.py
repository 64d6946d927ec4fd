"""`nn.Rprop`: resilient backpropagation (sign-based steps with per-element step sizes), MindSpore's rule."""

from __future__ import annotations

from kiln import ops
from kiln._core import dtype as mstype
from kiln.nn.optim.optimizer import PerParameterOptimizer, check_float

__all__ = ["Rprop"]


class Rprop(PerParameterOptimizer):
    """Resilient backpropagation: per element, the step size grows by etaplus while the gradient keeps its sign and
    shrinks by etaminus when it flips (then that element's gradient counts as 0); param -= sign(g) * step size."""

    def __init__(self, params, learning_rate=0.1, etas=(0.5, 1.2), step_sizes=(1e-6, 50.0), weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay)
        for name, v in (("etas", etas), ("step_sizes", step_sizes)):
            if not isinstance(v, tuple):
                raise TypeError(f"For Rprop, {name} must be a tuple, but got {type(v)}.")
            if len(v) != 2:
                raise ValueError(f"For Rprop, {name} must be a tuple with the size of 2, but got {len(v)}.")
        if step_sizes[0] > step_sizes[1]:
            raise ValueError(
                f"Rprop: step_sizes={tuple(step_sizes)} puts the smallest step above the largest; "
                "give (min, max) with min <= max."
            )
        check_float("Rprop", "etaminus", etas[0], low=0.0, high=1.0)
        check_float("Rprop", "etaplus", etas[1])
        if etas[1] <= 1.0:
            raise ValueError(
                f"Rprop: etas[1]={etas[1]} would not grow the step on a kept sign; pass a value above 1.0."
            )
        check_float("Rprop", "min_step_sizes", step_sizes[0])
        check_float("Rprop", "max_step_sizes", step_sizes[1])
        self.etaminus, self.etaplus = etas
        self.step_size_min, self.step_size_max = step_sizes
        self.prev = self._parameters.clone(prefix="prev", init="zeros")
        self.step_size = self._parameters.clone(prefix="step_size", init="zeros")

    def _update(self, i, param, grad, lr):
        prev, step_size = self.prev[i], self.step_size[i]
        dt = param.dtype if param.dtype in (mstype.float16, mstype.bfloat16) else mstype.float32
        first = ops.reshape(self.global_step, ()) == 1  # the first step starts from step size lr
        size = ops.select(ops.broadcast_to(first, step_size.shape), ops.ones(step_size.shape, dt) * ops.cast(lr, dt),
                          ops.cast(step_size, dt))  # fmt: skip
        g = ops.cast(grad, dt)
        sign = ops.sign(g * ops.cast(prev, dt))
        factor = ops.select(sign > 0, ops.full_like(sign, self.etaplus), sign)
        factor = ops.select(factor < 0, ops.full_like(sign, self.etaminus), factor)
        factor = ops.select(factor == 0, ops.ones_like(sign), factor)
        size = ops.clip_by_value(size * factor, self.step_size_min, self.step_size_max)
        g = ops.select(factor == self.etaminus, ops.zeros_like(g), g)
        self._store(param, ops.cast(param, dt) - ops.sign(g) * size)
        self._store(prev, g)
        self._store(step_size, size)
