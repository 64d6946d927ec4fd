"""Functional neural-network ops: activations, convolution, pooling, normalisation, dropout, losses, shuffles.

Each submodule has its own `__all__`; the sets are disjoint, so this package's names do not depend on the order
of the imports below.
"""

from kiln.ops.nn import activation, basic, conv, loss, normalization, pooling, resize, shuffling

_FAMILIES = (activation, basic, conv, loss, normalization, pooling, resize, shuffling)
__all__ = [name for family in _FAMILIES for name in family.__all__]
globals().update({name: getattr(family, name) for family in _FAMILIES for name in family.__all__})
