"""The Adam family: `nn.Adam` (with bias correction and L2 weight decay), `nn.AdamWeightDecay` / `nn.AdamW`
(decoupled), `nn.AdaMax` (infinity norm), and `nn.LazyAdam` / `nn.AdamOffload` (Adam itself, gradients being dense in
Kiln)."""

from __future__ import annotations

import numpy as np

from kiln import ops
from kiln._core.tensor import Parameter, Tensor
from kiln._prims import state as S
from kiln.nn.optim.optimizer import Optimizer, PerParameterOptimizer, check_bool, check_float, warn_dense_rows

__all__ = ["Adam", "AdamW", "AdamWeightDecay", "AdaMax", "LazyAdam", "AdamOffload"]


def _check_betas(cls: str, beta1, beta2, eps) -> None:
    for name, v in (("beta1", beta1), ("beta2", beta2), ("eps", eps)):
        if not isinstance(v, float):
            raise TypeError(f"For '{cls}', '{name}' must be a float, but got {type(v).__name__}.")
    for name, v in (("beta1", beta1), ("beta2", beta2)):
        if not 0.0 < v < 1.0:
            raise ValueError(f"For '{cls}', '{name}' must be in (0.0, 1.0), but got {v}.")
    if eps <= 0.0:
        raise ValueError(f"For '{cls}', 'eps' must be positive, but got {eps}.")


def _f32(value: float) -> Tensor:
    return Tensor(np.float32(value))


class Adam(Optimizer):
    """Adam (Kingma & Ba) with bias correction.

    With g the gradient (plus weight_decay * param for decayed parameters, divided by loss_scale):
    m = beta1 * m + (1 - beta1) * g, v = beta2 * v + (1 - beta2) * g^2,
    param -= lr * sqrt(1 - beta2^t) / (1 - beta1^t) * m / (sqrt(v) + eps);
    with Nesterov, m is replaced by beta1 * m + (1 - beta1) * g in the update.

    Args:
        params (Union[list[Parameter], list[dict]]): parameters or parameter groups (see `Optimizer`).
        learning_rate (Union[float, int, Tensor, Iterable, LearningRateSchedule]): Default: 1e-3.
        beta1 (float): first-moment decay, in (0, 1). Default: 0.9.
        beta2 (float): second-moment decay, in (0, 1). Default: 0.999.
        eps (float): denominator term (> 0). Default: 1e-8.
        use_locking (bool): kept for compatibility. Default: False.
        use_nesterov (bool): Nesterov-style first moment. Default: False.
        weight_decay (Union[float, int, Cell]): L2 penalty added to the gradient. Default: 0.0.
        loss_scale (float): gradient loss scale. Default: 1.0.
        use_amsgrad (bool): AMSGrad: divide by the running maximum of v (state 'vhat'). Default: False.
        **kwargs: 'use_lazy' and 'use_offload' are accepted; with dense gradients they change nothing.

    Inputs:
        gradients (tuple[Tensor]): one per parameter.

    Outputs:
        tuple[bool], True per parameter.
    """

    def __init__(self, params, learning_rate=1e-3, beta1: float = 0.9, beta2: float = 0.999, eps: float = 1e-8,
                 use_locking: bool = False, use_nesterov: bool = False, weight_decay=0.0, loss_scale: float = 1.0,
                 use_amsgrad: bool = False, **kwargs) -> None:  # fmt: skip
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        warn_dense_rows(self)
        unknown = set(kwargs) - {"use_lazy", "use_offload"}
        if unknown:
            raise KeyError(
                f"For 'Adam', the only extra keywords are 'use_lazy' and 'use_offload', got {sorted(unknown)}."
            )
        _check_betas("Adam", beta1, beta2, eps)
        check_bool("Adam", use_locking=use_locking, use_nesterov=use_nesterov, use_amsgrad=use_amsgrad, **kwargs)
        if use_amsgrad and (kwargs.get("use_lazy") or kwargs.get("use_offload")):
            raise ValueError("For 'Adam', 'use_amsgrad' cannot be combined with 'use_lazy' or 'use_offload'.")
        self.beta1, self.beta2, self.eps = _f32(beta1), _f32(beta2), _f32(eps)
        self.use_nesterov, self.use_locking, self.use_amsgrad = use_nesterov, use_locking, use_amsgrad
        self.use_lazy = kwargs.get("use_lazy", False)
        self.use_offload = kwargs.get("use_offload", False)
        self.beta1_power = Parameter(_f32(1.0), name="beta1_power")
        self.beta2_power = Parameter(_f32(1.0), name="beta2_power")
        self.moment1 = self._parameters.clone(prefix="moment1", init="zeros")
        self.moment2 = self._parameters.clone(prefix="moment2", init="zeros")
        if use_amsgrad:
            self.vhat = self._parameters.clone(prefix="vhat", init="zeros")

    def construct(self, gradients):
        states = (self.moment1, self.moment2, self.vhat) if self.use_amsgrad else (self.moment1, self.moment2)
        return self._fused_step(
            S.FusedAdamAmsgrad if self.use_amsgrad else S.FusedAdam,
            gradients,
            states,
            (self.beta1, self.beta2, self.eps, self.beta1_power, self.beta2_power),
            (self.use_nesterov,),
            scalar_states=(self.beta1_power, self.beta2_power),
        )


class AdamWeightDecay(Optimizer):
    """Adam with decoupled weight decay (AdamW), as MindSpore's `nn.AdamWeightDecay` (no bias correction).

    m = beta1 * m + (1 - beta1) * g, v = beta2 * v + (1 - beta2) * g^2,
    update = m / (sqrt(v) + eps) + weight_decay * param (decayed parameters only), param -= lr * update.

    Args:
        params, learning_rate, beta1, beta2: as for `Adam` (with the same defaults).
        eps (float): denominator term (> 0). Default: 1e-6.
        weight_decay (Union[float, int, Cell]): decoupled weight decay. Default: 0.0.

    Inputs:
        gradients (tuple[Tensor]): one per parameter.

    Outputs:
        tuple[bool], True per parameter.
    """

    def __init__(
        self, params, learning_rate=1e-3, beta1: float = 0.9, beta2: float = 0.999, eps: float = 1e-6, weight_decay=0.0
    ) -> None:
        super().__init__(learning_rate, params, weight_decay)
        _check_betas(type(self).__name__, beta1, beta2, eps)
        self.beta1, self.beta2, self.eps = _f32(beta1), _f32(beta2), _f32(eps)
        self.moments1 = self._parameters.clone(prefix="adam_m", init="zeros")
        self.moments2 = self._parameters.clone(prefix="adam_v", init="zeros")

    def construct(self, gradients):
        return self._fused_step(
            S.FusedAdamWeightDecay,
            gradients,
            (self.moments1, self.moments2),
            (self.beta1, self.beta2, self.eps),
            decay_scale=1.0,
        )


AdamW = AdamWeightDecay


class AdaMax(PerParameterOptimizer):
    """AdaMax (MindSpore's ApplyAdaMax): m = b1 m + (1 - b1) g; v = max(b2 v, |g|);
    param -= lr / (1 - b1^t) * m / (v + eps)."""

    def __init__(self, params, learning_rate=0.001, beta1=0.9, beta2=0.999, eps=1e-08, weight_decay=0.0,
                 loss_scale=1.0):  # fmt: skip
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.beta1 = check_float("AdaMax", "beta1", beta1, low=0.0, high=1.0)
        self.beta2 = check_float("AdaMax", "beta2", beta2, low=0.0, high=1.0)
        self.eps = check_float("AdaMax", "eps", eps, low=0.0)
        self.beta1_power = Parameter(Tensor(np.ones([1], np.float32)), name="beta1_power")
        self.moment1 = self._parameters.clone(prefix="moment1", init="zeros")
        self.moment2 = self._parameters.clone(prefix="moment2", init="zeros")

    def construct(self, gradients):
        ops.assign(self.beta1_power, self.beta1_power * self.beta1)
        return super().construct(gradients)

    def _update(self, i, param, grad, lr):
        # beta1, beta2 and eps as float32 Tensors, as MindSpore passes them (a float16 Cell rounds them to float16)
        hyper = (Tensor(np.float32(v)) for v in (self.beta1, self.beta2, self.eps))
        power = ops.reshape(self.beta1_power, ())
        self._apply_update(S.ApplyAdaMax, (param, self.moment1[i], self.moment2[i]), (power, lr, *hyper, grad))


class LazyAdam(Adam):
    """Adam that, for sparse (RowTensor) gradients, updates only the touched rows; Kiln's gradients are dense, for
    which it is Adam (MindSpore's LazyAdam on dense gradients runs the Adam kernel)."""

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, use_locking=False,
                 use_nesterov=False, weight_decay=0.0, loss_scale=1.0):  # fmt: skip
        super().__init__(params, learning_rate, beta1, beta2, eps, use_locking, use_nesterov, weight_decay,
                         loss_scale)  # fmt: skip


class AdamOffload(Adam):
    """Adam whose state MindSpore keeps in host memory (deprecated there in favour of nn.Adam). Kiln keeps it on the
    device and rounds as MindSpore's host kernel, which computes a delta and adds it to the parameter."""

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, use_locking=False,
                 use_nesterov=False, weight_decay=0.0, loss_scale=1.0):  # fmt: skip
        super().__init__(params, learning_rate, beta1, beta2, eps, use_locking, use_nesterov, weight_decay,
                         loss_scale)  # fmt: skip

    def construct(self, gradients):
        return self._fused_step(
            S.FusedAdamOffload,
            gradients,
            (self.moment1, self.moment2),
            (self.beta1, self.beta2, self.eps, self.beta1_power, self.beta2_power),
            (self.use_nesterov,),
            scalar_states=(self.beta1_power, self.beta2_power),
        )
