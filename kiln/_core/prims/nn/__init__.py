"""Neural-network primitives: convolution, pooling, normalisation, dropout, losses.

Each module declares its primitives (names as MindSpore's); importing this
package registers them.
"""

from kiln._core.prims.nn import conv, loss, misc, norm, pool, resize  # noqa: F401
