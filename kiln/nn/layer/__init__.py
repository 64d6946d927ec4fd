"""Kiln's layers (MindSpore's `mindspore.nn.layer`): convolution, pooling, normalisation, activations, ..."""

# The layer modules are reached as kiln.nn.layer.<family>; these two names are imported from the package itself by
# zoo networks.
from kiln.nn.layer.activation import get_activation
from kiln.nn.layer.dense import Dense

__all__ = ["Dense", "get_activation"]
