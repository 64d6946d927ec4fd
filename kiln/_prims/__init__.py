"""Every primitive declaration (`PrimitiveDef`), one module per family of ops.

array (shape, layout, indexing, creation), math (elementwise), reduction (reductions, scans, sorting, segments),
linalg, fft, special (special functions), image, random, recurrent (loops over time), state (Parameter writes,
optimizer updates),
control (`raise` in graphs), comm (collectives), custom (Python functions) and nn/ (conv, pool, norm, loss,
activation, dense, dropout, embedding, resize, unfold). Importing this package fills
`kiln._core.primitive.REGISTRY`.
"""

from kiln._prims import (  # noqa: F401
    array,
    comm,
    control,
    custom,
    fft,
    image,
    linalg,
    math,
    nn,
    random,
    recurrent,
    reduction,
    special,
    state,
)

# isort: split
from kiln._prims import amp_auto  # noqa: F401  (after the families: it marks their declarations)
