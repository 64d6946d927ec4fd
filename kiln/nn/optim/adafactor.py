"""AdaFactor (Shazeer & Stern 2018): second moments factored into row and column averages for matrices, the update
clipped by its RMS, the step size relative to the parameter's RMS; MindSpore's options and state names
(`exp_avg`, `exp_avg_sq_row_*`, `exp_avg_sq_col_*`, `exp_avg_sq_*`, `afactor_step`)."""

from __future__ import annotations

import numpy as np

from kiln import ops
from kiln._core import dtype as mstype
from kiln._core.tensor import Parameter, ParameterTuple, Tensor
from kiln._prims import state as S
from kiln.nn.optim.optimizer import Optimizer, check_float
from kiln.ops._helpers import apply
from kiln.ops.state import write_back

__all__ = ["AdaFactor"]

F32 = mstype.float32


class AdaFactor(Optimizer):
    """AdaFactor. With `relative_step` the rate is min(1e-2, 1 / sqrt(t)) (min(1e-6 t, 1 / sqrt(t)) with
    `warmup_init`); `scale_parameter` multiplies it by max(eps[1], RMS(param)); beta2_t = 1 - t^-decay_rate; the
    update g / sqrt(v^) is divided by max(1, RMS(update) / clip_threshold); `beta1` > 0 keeps a first moment;
    `weight_decay` shrinks the parameter by lr * weight_decay. Rounded as MindSpore 2.10's CPU kernel
    (FusedAdaFactor, which its nn.AdaFactor runs on CPU): `AdaFactorUpdate` in kiln/_prims/state.py."""

    def __init__(self, params, learning_rate=None, eps=(1e-30, 1e-3), clip_threshold=1.0, decay_rate=0.8,
                 beta1=0.9, weight_decay=0.0, scale_parameter=True, relative_step=True, warmup_init=False,
                 compression=False, loss_scale=1.0):  # fmt: skip
        if learning_rate is not None and relative_step:
            raise ValueError(
                f"AdaFactor: learning_rate={learning_rate} with relative_step=True; the relative step "
                "computes the rate, so pass one or the other."
            )
        if warmup_init and not relative_step:
            raise ValueError("warmup_init requires relative_step=True")
        if learning_rate is None and not relative_step:
            raise ValueError("AdaFactor has no learning rate: pass learning_rate, or relative_step=True to derive it.")
        learning_rate = 0.0 if learning_rate is None else learning_rate
        beta1 = 0.0 if beta1 is None else beta1
        scale_lr = isinstance(learning_rate, (float, int))
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.scale_lr = scale_lr
        if not isinstance(eps, (list, tuple)) or len(eps) != 2:
            raise ValueError("eps must have 2 value: (eps1, eps2).")
        for i, e in enumerate(eps):
            check_float("AdaFactor", f"eps{i}", e, low=0.0, low_open=False)
        check_float("AdaFactor", "clip_threshold", clip_threshold, low=0.0, low_open=False)
        check_float("AdaFactor", "decay_rate", decay_rate, low=0.0, high=1.0)
        if not 0.0 <= weight_decay < 1.0:
            raise ValueError(f"For 'AdaFactor', 'weight_decay' must be in [0, 1), but got {weight_decay}.")
        for name, v in (("scale_parameter", scale_parameter), ("relative_step", relative_step),
                        ("compression", compression)):  # fmt: skip
            if not isinstance(v, bool):
                raise TypeError(f"For 'AdaFactor', '{name}' must be a bool, but got {type(v).__name__}.")
        if isinstance(beta1, bool) or not isinstance(beta1, (int, float)) or beta1 < 0:
            raise ValueError(f"For 'AdaFactor', 'beta1' must be a non-negative number, but got {beta1!r}.")
        self.eps, self.clip_threshold, self.decay_rate = tuple(eps), clip_threshold, decay_rate
        self.beta1, self.weight_decay_value = float(beta1), float(weight_decay)
        self.weight_decay_flag = bool(weight_decay)
        self.scale_parameter = scale_parameter and self.scale_lr
        self.relative_step, self.warmup_init, self.compression = relative_step, warmup_init, compression
        self.use_first_moment = beta1 > 0
        ps = self._parameters
        if self.use_first_moment:
            self.exp_avg = ps.clone(prefix="exp_avg", init="zeros")
        rows, cols, sqs = [], [], []
        for p in ps:
            shape, dt = tuple(p.shape), p.dtype
            zeros = lambda s, d=dt: Tensor(np.zeros(s, d.np))  # noqa: E731
            if len(shape) > 1:
                rows.append(Parameter(zeros(shape[:-1]), name=f"exp_avg_sq_row_{p.name}"))
                cols.append(Parameter(zeros(shape[:-2] + shape[-1:]), name=f"exp_avg_sq_col_{p.name}"))
                sqs.append(Parameter(zeros((1,)), name=f"exp_avg_sq_{p.name}"))
            else:
                rows.append(Parameter(zeros((1,)), name=f"exp_avg_sq_row_{p.name}"))
                cols.append(Parameter(zeros((1,)), name=f"exp_avg_sq_col_{p.name}"))
                sq_dt = mstype.float16 if compression else dt
                sqs.append(Parameter(zeros(shape, sq_dt), name=f"exp_avg_sq_{p.name}"))
        self.exp_avg_sq_row, self.exp_avg_sq_col = ParameterTuple(rows), ParameterTuple(cols)
        self.exp_avg_sq = ParameterTuple(sqs)
        self.step = Parameter(Tensor(np.zeros((1,), np.float32)), name="afactor_step")

    def construct(self, gradients):
        gradients = self._check_gradients(gradients)
        gradients = self.scale_grad(gradients)
        lr = ops.reshape(ops.cast(self.get_lr(), F32), (-1,))[0]
        write_back((self.global_step, self.step), (self.global_step + 1, self.step + 1.0))
        step = ops.reshape(self.step, ())
        relative = self.scale_lr and self.relative_step
        attrs = (*self.eps, self.clip_threshold, self.decay_rate, self.beta1, self.weight_decay_value,
                 self.scale_parameter, self.use_first_moment, relative, self.warmup_init)  # fmt: skip
        for i, (p, g) in enumerate(zip(self._parameters, gradients)):
            # without a first moment the step's exp_avg output is its input (the parameter here) and is not stored
            exp_avg = self.exp_avg[i] if self.use_first_moment else p
            state = (p, exp_avg, self.exp_avg_sq_row[i], self.exp_avg_sq_col[i], self.exp_avg_sq[i])
            new = apply(S.AdaFactorUpdate, (*state, g, lr, step), attrs)
            keep = [k for k in range(5) if k != 1 or self.use_first_moment]
            write_back(tuple(state[k] for k in keep), tuple(new[k] for k in keep))
        return True
