"""Normalisation layers: BatchNorm1d/2d/3d, LayerNorm, GroupNorm (MindSpore 2.x defaults).

BatchNorm keeps its moving statistics as Parameters with requires_grad=False; in
training mode (`cell.set_train()`) it normalises with the batch statistics and
updates them in place: moving = momentum * moving + (1 - momentum) * batch
(MindSpore's convention for `momentum`; the variance update is unbiased).
"""

from __future__ import annotations

import numbers

from kiln import ops
from kiln._core import dtype as mstype
from kiln._core.tensor import Parameter
from kiln.common.initializer import initializer
from kiln.nn.cell import Cell

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "GroupNorm", "LayerNorm"]


def _positive_int(op: str, name: str, value) -> int:
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value <= 0:
        raise ValueError(f"For '{op}', '{name}' must be a positive int, but got {value!r}.")
    return int(value)


class _BatchNorm(Cell):
    """Shared body of the BatchNorm layers; `_ranks` lists the accepted input ranks."""

    _ranks = (4,)

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float = 0.9,
        affine: bool = True,
        gamma_init="ones",
        beta_init="zeros",
        moving_mean_init="zeros",
        moving_var_init="ones",
        use_batch_statistics=None,
        data_format: str = "NCHW",
        dtype=mstype.float32,
    ) -> None:
        super().__init__()
        op = type(self).__name__
        self.num_features = _positive_int(op, "num_features", num_features)
        if not isinstance(momentum, numbers.Real) or not 0.0 <= momentum <= 1.0:
            raise ValueError(f"For '{op}', 'momentum' must be in [0, 1], but got {momentum!r}.")
        if not isinstance(eps, numbers.Real) or eps <= 0:
            raise ValueError(f"For '{op}', 'eps' must be a positive float, but got {eps!r}.")
        if data_format not in ("NCHW", "NHWC"):
            raise ValueError(f"For '{op}', 'data_format' must be 'NCHW' or 'NHWC', but got '{data_format}'.")
        if use_batch_statistics is not None and not isinstance(use_batch_statistics, bool):
            raise TypeError(
                f"For '{op}', 'use_batch_statistics' must be a bool or None, but got "
                f"{type(use_batch_statistics).__name__}."
            )
        self.eps, self.momentum, self.affine = float(eps), float(momentum), affine
        self.use_batch_statistics, self.data_format = use_batch_statistics, data_format
        c = self.num_features
        self.moving_mean = Parameter(initializer(moving_mean_init, c, dtype), "moving_mean", requires_grad=False)
        self.moving_variance = Parameter(initializer(moving_var_init, c, dtype), "moving_variance", requires_grad=False)
        self.gamma = Parameter(initializer(gamma_init, c, dtype), "gamma", requires_grad=affine)
        self.beta = Parameter(initializer(beta_init, c, dtype), "beta", requires_grad=affine)
        # MindSpore's momentum weighs the old value; the primitive's weighs the batch.
        self._train = ops.BatchNorm(True, self.eps, 1.0 - self.momentum, data_format)
        self._infer = ops.BatchNorm(False, self.eps, 1.0 - self.momentum, data_format)

    def construct(self, x):
        if x.ndim not in self._ranks:
            want = " or ".join(f"{r}-D" for r in self._ranks)
            raise ValueError(f"For '{type(self).__name__}', the input must be {want}, but got shape {list(x.shape)}.")
        training = self.training if self.use_batch_statistics is None else self.use_batch_statistics
        bn = self._train if training else self._infer
        return bn(x, self.gamma, self.beta, self.moving_mean, self.moving_variance)[0]

    def extend_repr(self) -> str:
        return (
            f"num_features={self.num_features}, eps={self.eps}, momentum={self.momentum}, gamma={self.gamma!r}, "
            f"beta={self.beta!r}, moving_mean={self.moving_mean!r}, moving_variance={self.moving_variance!r}"
        )


class BatchNorm1d(_BatchNorm):
    """Batch normalisation of (N, C) or (N, C, L) over every axis but C.

    Args:
        num_features (int): C.
        eps (float): added to the variance. Default: 1e-5.
        momentum (float): weight of the old moving statistics in the update. Default: 0.9.
        affine (bool): train gamma and beta. Default: True.
        gamma_init, beta_init, moving_mean_init, moving_var_init: initializers of the (C,) parameters
            (Default: 'ones', 'zeros', 'zeros', 'ones').
        use_batch_statistics (bool, optional): force batch (True) or moving (False) statistics; None
            follows the training mode. Default: None.
        data_format (str): 'NCHW'.
        dtype (mindspore.dtype): parameter dtype. Default: float32.

    Inputs:
        x (Tensor): (N, C) or (N, C, L).

    Outputs:
        Tensor of the input's shape.
    """

    _ranks = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch normalisation of (N, C, H, W) over N, H and W; arguments as in BatchNorm1d ('NHWC' allowed)."""

    _ranks = (4,)


class BatchNorm3d(_BatchNorm):
    """Batch normalisation of (N, C, D, H, W) over N, D, H and W; arguments as in BatchNorm1d."""

    _ranks = (5,)

    def __init__(
        self,
        num_features,
        eps=1e-5,
        momentum=0.9,
        affine=True,
        gamma_init="ones",
        beta_init="zeros",
        moving_mean_init="zeros",
        moving_var_init="ones",
        use_batch_statistics=None,
        dtype=mstype.float32,
    ) -> None:
        super().__init__(
            num_features,
            eps,
            momentum,
            affine,
            gamma_init,
            beta_init,
            moving_mean_init,
            moving_var_init,
            use_batch_statistics,
            "NCHW",
            dtype,
        )


class LayerNorm(Cell):
    """Layer normalisation over the axes from `begin_norm_axis` on, with gamma / beta of `normalized_shape`.

    Args:
        normalized_shape (Union[tuple[int], list[int], int]): shape of gamma and beta (the trailing input
            shape from `begin_params_axis`).
        begin_norm_axis (int): first normalised axis. Default: -1.
        begin_params_axis (int): first axis covered by gamma and beta. Default: -1.
        gamma_init, beta_init: initializers. Default: 'ones', 'zeros'.
        epsilon (float): added to the variance. Default: 1e-7.
        dtype (mindspore.dtype): parameter dtype. Default: float32.

    Inputs:
        x (Tensor): any shape whose trailing dims match `normalized_shape`.

    Outputs:
        Tensor of the input's shape.
    """

    def __init__(
        self,
        normalized_shape,
        begin_norm_axis: int = -1,
        begin_params_axis: int = -1,
        gamma_init="ones",
        beta_init="zeros",
        epsilon: float = 1e-7,
        dtype=mstype.float32,
    ) -> None:
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (int(normalized_shape),)
        if not isinstance(normalized_shape, (tuple, list)):
            raise TypeError(
                f"For 'LayerNorm', 'normalized_shape' must be a tuple or list of ints, but got "
                f"{type(normalized_shape).__name__}."
            )
        self.normalized_shape = tuple(int(s) for s in normalized_shape)
        self.begin_norm_axis, self.begin_params_axis, self.epsilon = begin_norm_axis, begin_params_axis, epsilon
        self.gamma = Parameter(initializer(gamma_init, self.normalized_shape, dtype), "gamma")
        self.beta = Parameter(initializer(beta_init, self.normalized_shape, dtype), "beta")
        self._norm = ops.LayerNorm(begin_norm_axis, begin_params_axis, epsilon)

    def construct(self, x):
        return self._norm(x, self.gamma, self.beta)[0]

    def extend_repr(self) -> str:
        return (
            f"normalized_shape={self.normalized_shape}, begin_norm_axis={self.begin_norm_axis}, "
            f"begin_params_axis={self.begin_params_axis}, gamma={self.gamma!r}, beta={self.beta!r}"
        )


class GroupNorm(Cell):
    """Group normalisation: channels of (N, C, ...) split into `num_groups` groups, each normalised.

    Args:
        num_groups (int): number of groups; must divide `num_channels`.
        num_channels (int): C.
        eps (float): added to the variance. Default: 1e-5.
        affine (bool): train gamma and beta. Default: True.
        gamma_init, beta_init: initializers of the (C,) parameters. Default: 'ones', 'zeros'.
        dtype (mindspore.dtype): parameter dtype. Default: float32.

    Inputs:
        x (Tensor): (N, C, ...).

    Outputs:
        Tensor of the input's shape.
    """

    def __init__(
        self,
        num_groups: int,
        num_channels: int,
        eps: float = 1e-5,
        affine: bool = True,
        gamma_init="ones",
        beta_init="zeros",
        dtype=mstype.float32,
    ) -> None:
        super().__init__()
        self.num_groups = _positive_int("GroupNorm", "num_groups", num_groups)
        self.num_channels = _positive_int("GroupNorm", "num_channels", num_channels)
        if num_channels % num_groups:
            raise ValueError(
                f"For 'GroupNorm', 'num_channels' must be divisible by 'num_groups', but got "
                f"num_channels={num_channels} and num_groups={num_groups}."
            )
        self.eps, self.affine = float(eps), affine
        self.gamma = Parameter(initializer(gamma_init, num_channels, dtype), "gamma", requires_grad=affine)
        self.beta = Parameter(initializer(beta_init, num_channels, dtype), "beta", requires_grad=affine)

    def construct(self, x):
        return ops.group_norm(x, self.num_groups, self.gamma, self.beta, self.eps)

    def extend_repr(self) -> str:
        return f"num_groups={self.num_groups}, num_channels={self.num_channels}"
