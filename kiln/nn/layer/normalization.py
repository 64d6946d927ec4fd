"""Normalisation layers: BatchNorm1d/2d/3d, SyncBatchNorm, LayerNorm, GroupNorm, InstanceNorm1d/2d/3d, LRN
(MindSpore 2.x defaults).

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
from kiln.nn._checks import float_arg, positive_int
from kiln.nn.cell import Cell
from kiln.nn.layer._held import hold, touched
from kiln.ops._helpers import REGISTRY, apply

__all__ = [
    "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "GroupNorm", "LayerNorm", "InstanceNorm1d", "InstanceNorm2d",
    "InstanceNorm3d", "LRN", "SyncBatchNorm",
]  # fmt: skip


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
        self.num_features = positive_int(op, "num_features", num_features)
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
        # A standalone layer's statistics are named "mean" and "variance" (inside a network, by their attribute).
        self.moving_mean = Parameter(initializer(moving_mean_init, c, dtype), "mean", requires_grad=False)
        self.moving_variance = Parameter(initializer(moving_var_init, c, dtype), "variance", requires_grad=False)
        self.gamma = Parameter(initializer(gamma_init, c, dtype), "gamma", requires_grad=affine)
        self.beta = Parameter(initializer(beta_init, c, dtype), "beta", requires_grad=affine)
        # MindSpore's momentum weighs the old value; the primitive's weighs the batch.
        hold(
            self,
            bn_train=ops.BatchNorm(True, self.eps, 1.0 - self.momentum, data_format),
            bn_infer=ops.BatchNorm(False, self.eps, 1.0 - self.momentum, data_format),
        )

    def construct(self, x):
        if x.ndim not in self._ranks:
            want = " or ".join(f"{r}-D" for r in self._ranks)
            raise ValueError(f"For '{type(self).__name__}', the input must be {want}, but got shape {list(x.shape)}.")
        training = self.training if self.use_batch_statistics is None else self.use_batch_statistics
        bn = self.bn_train if training else self.bn_infer
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


class BatchNorm3d(Cell):
    """Batch normalisation of (N, C, D, H, W) over N, D, H and W; arguments as in BatchNorm1d.

    As MindSpore's, a BatchNorm2d child `bn2d` holds the parameters and normalises the input viewed as
    (N, C, D * H, W): their names are `bn2d.gamma`, `bn2d.moving_mean`, ..., as in MindSpore's checkpoints.
    """

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
        super().__init__()
        self.bn2d = BatchNorm2d(
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

    def construct(self, x):
        if x.ndim != 5:
            raise ValueError(f"For 'BatchNorm3d', the input must be 5-D, but got shape {list(x.shape)}.")
        n, c, d, h, w = x.shape
        return self.bn2d(x.reshape(n, c, d * h, w)).reshape(n, c, d, h, w)


class LayerNorm(Cell):
    """Layer normalisation over the axes from `begin_norm_axis` on, with gamma / beta of `normalized_shape`.

    Args:
        normalized_shape: the shape of gamma and beta, an int or a tuple/list of ints: the input's trailing
            dims from `begin_params_axis` on.
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
        # MindSpore's name: subclasses call self.layer_norm (the zoo's ConvNextLayerNorm)
        self.layer_norm = ops.LayerNorm(begin_norm_axis, begin_params_axis, epsilon)

    def construct(self, x):
        return self.layer_norm(x, self.gamma, self.beta)[0]

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
        self.num_groups = positive_int("GroupNorm", "num_groups", num_groups)
        self.num_channels = positive_int("GroupNorm", "num_channels", num_channels)
        if num_channels % num_groups:
            raise ValueError(
                f"For 'GroupNorm', 'num_channels' must be divisible by 'num_groups', but got "
                f"num_channels={num_channels} and num_groups={num_groups}."
            )
        self.eps, self.affine = float(eps), affine
        self.gamma = Parameter(initializer(gamma_init, num_channels, dtype), "gamma", requires_grad=affine)
        self.beta = Parameter(initializer(beta_init, num_channels, dtype), "beta", requires_grad=affine)

    def _cal_output(self, x):
        return ops.group_norm(x, self.num_groups, self.gamma, self.beta, self.eps)

    def construct(self, x):
        # through _cal_output, as MindSpore's: subclasses (the model zoo's STGAN) replace that method
        return self._cal_output(x)

    def extend_repr(self) -> str:
        return f"num_groups={self.num_groups}, num_channels={self.num_channels}"


class _InstanceNorm(Cell):
    _dims = 1

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, gamma_init="ones", beta_init="zeros",
                 dtype=mstype.float32) -> None:  # fmt: skip
        super().__init__()
        if not isinstance(num_features, int) or num_features <= 0:
            raise ValueError(f"For '{type(self).__name__}', 'num_features' must be a positive int.")
        self.num_features, self.eps, self.momentum, self.affine = num_features, eps, momentum, affine
        # MindSpore's layer has the statistics its primitive takes (its kernel never updates them) before gamma, beta
        self.moving_mean = Parameter(initializer("zeros", num_features, dtype), name="mean", requires_grad=False)
        self.moving_variance = Parameter(initializer("ones", num_features, dtype), name="variance", requires_grad=False)
        self.gamma = Parameter(initializer(gamma_init, (num_features,), dtype), name="gamma", requires_grad=affine)
        self.beta = Parameter(initializer(beta_init, (num_features,), dtype), name="beta", requires_grad=affine)
        hold(self, instance_bn=ops.InstanceNorm(float(eps), float(momentum)), shape=ops.Shape())

    def construct(self, x):
        if x.ndim != self._dims + 2:
            raise ValueError(f"For '{type(self).__name__}', the input must be {self._dims + 2}-D, got {x.ndim}-D.")
        args = (x, self.gamma, self.beta, self.moving_mean, self.moving_variance)
        if touched(self):  # sharded or replaced: MindSpore's layer calls its primitive
            return self.instance_bn(*args)[0]
        return apply(REGISTRY["InstanceNorm"], args, (float(self.eps), float(self.momentum)))[0]


class InstanceNorm1d(_InstanceNorm):
    """Normalise each (sample, channel) of (N, C, L) over L, then scale by gamma and shift by beta."""

    _dims = 1


class InstanceNorm2d(_InstanceNorm):
    """Normalise each (sample, channel) of (N, C, H, W) over H, W."""

    _dims = 2


class InstanceNorm3d(_InstanceNorm):
    """Normalise each (sample, channel) of (N, C, D, H, W) over D, H, W."""

    _dims = 3


class LRN(Cell):
    """Local response normalization across channels: x / (bias + alpha * sum of squares over depth_radius)^beta."""

    def __init__(self, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, norm_region="ACROSS_CHANNELS"):
        super().__init__()
        if not isinstance(depth_radius, int) or isinstance(depth_radius, bool):
            raise TypeError(f"For 'LRN', 'depth_radius' must be an int, but got {type(depth_radius).__name__}.")
        for name, v in (("bias", bias), ("alpha", alpha), ("beta", beta)):
            float_arg("LRN", name, v)
        if norm_region != "ACROSS_CHANNELS":
            raise ValueError(f"For 'LRN', 'norm_region' must be 'ACROSS_CHANNELS', but got {norm_region!r}.")
        self.depth_radius, self.bias, self.alpha, self.beta = depth_radius, bias, alpha, beta
        self.norm_region = norm_region
        hold(self, lrn_op=ops.LRN(depth_radius, bias, alpha, beta, norm_region))

    def construct(self, input_x):
        if touched(self):  # sharded or replaced: MindSpore's layer calls its primitive
            return self.lrn_op(input_x)
        return ops.lrn(input_x, self.depth_radius, self.bias, self.alpha, self.beta, self.norm_region)


class SyncBatchNorm(BatchNorm2d):
    """Batch normalization whose statistics MindSpore synchronises across the devices of `process_groups`; in one
    process it is BatchNorm2d over (N, C, H, W) (MindSpore's defaults: momentum 0.9)."""

    def __init__(self, num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init="ones", beta_init="zeros",
                 moving_mean_init="zeros", moving_var_init="ones", use_batch_statistics=None, process_groups=None,
                 dtype=mstype.float32):  # fmt: skip
        super().__init__(num_features, eps, momentum, affine, gamma_init, beta_init, moving_mean_init,
                         moving_var_init, use_batch_statistics, dtype=dtype)  # fmt: skip
        self.process_groups = process_groups
