"""Priors and trainable posteriors of Bayesian layers: `NormalPrior`, `NormalPosterior`."""

from __future__ import annotations

import numpy as np

from kiln import ops
from kiln._core import dtype as mstype
from kiln._core.tensor import Parameter, Tensor
from kiln.nn.cell import Cell
from kiln.nn.probability.distribution import Normal

__all__ = ["NormalPosterior", "NormalPrior"]


def _number(name, v, non_negative=False):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f"'{name}' must be an int or float, but got {type(v).__name__}.")
    if non_negative and v < 0:
        raise TypeError(f"'{name}' must be an int or float >= 0, but got {v}.")


class NormalPrior(Cell):
    """A fixed N(mean, std^2) prior; calls go to its `normal` distribution (`prior("kl_loss", ...)`)."""

    def __init__(self, dtype=mstype.float32, mean=0, std=0.1):
        super().__init__()
        self.normal = Normal(mean, std, dtype=dtype)

    def construct(self, *inputs):
        return self.normal(*inputs)


class NormalPosterior(Cell):
    """N(mean, softplus(untransformed_std)^2 + 1e-6) with trainable `mean` and `untransformed_std` of `shape`.

    The initial values are drawn (NumPy's global generator) from N(loc_mean, loc_std^2) and
    N(untransformed_scale_mean, untransformed_scale_std^2).
    """

    def __init__(
        self,
        name,
        shape,
        dtype=mstype.float32,
        loc_mean=0,
        loc_std=0.1,
        untransformed_scale_mean=-5,
        untransformed_scale_std=0.1,
    ):
        super().__init__()
        if not isinstance(name, str):
            raise TypeError(f"'name' must be a str, but got {type(name).__name__}.")
        if not isinstance(shape, (tuple, list)):
            raise TypeError(f"'shape' must be a tuple or list, but got {type(shape).__name__}.")
        _number("loc_mean", loc_mean)
        _number("untransformed_scale_mean", untransformed_scale_mean)
        _number("loc_std", loc_std, True)
        _number("untransformed_scale_std", untransformed_scale_std, True)
        shape = tuple(shape)
        self.mean = Parameter(Tensor(np.random.normal(loc_mean, loc_std, shape), dtype=dtype), name=name + "_mean")
        self.untransformed_std = Parameter(
            Tensor(np.random.normal(untransformed_scale_mean, untransformed_scale_std, shape), dtype=dtype),
            name=name + "_untransformed_std",
        )
        self.normal = Normal()

    def std(self):
        return 1e-6 + ops.softplus(self.untransformed_std)

    def construct(self, *inputs):
        return self.normal(*inputs, mean=self.mean, sd=self.std())


def normal_post_fn(name, shape):
    """The default posterior factory: `NormalPosterior(name, shape)`."""
    return NormalPosterior(name=name, shape=shape)
