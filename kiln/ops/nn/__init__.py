"""Functional neural-network ops: activations, convolution, pooling, normalisation, dropout, losses."""

from kiln.ops.nn import activation, basic, conv, extra_layers, extra_loss, loss, normalization, pooling, resize
from kiln.ops.nn.activation import *  # noqa: F403
from kiln.ops.nn.basic import *  # noqa: F403
from kiln.ops.nn.conv import *  # noqa: F403
from kiln.ops.nn.extra_layers import *  # noqa: F403
from kiln.ops.nn.extra_loss import *  # noqa: F403
from kiln.ops.nn.loss import *  # noqa: F403
from kiln.ops.nn.normalization import *  # noqa: F403
from kiln.ops.nn.pooling import *  # noqa: F403
from kiln.ops.nn.resize import *  # noqa: F403

__all__ = [
    *activation.__all__, *basic.__all__, *conv.__all__, *extra_layers.__all__, *extra_loss.__all__, *loss.__all__,
    *normalization.__all__, *pooling.__all__, *resize.__all__,
]  # fmt: skip
