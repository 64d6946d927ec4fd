"""Neural-network primitives: convolution, pooling, normalisation, losses, activations, dense, dropout, embedding.

Each module declares its primitives (names as MindSpore's); importing this package registers them.
"""

from kiln._prims.nn import activation, conv, dense, dropout, embedding, loss, norm, pool, resize, unfold  # noqa: F401
