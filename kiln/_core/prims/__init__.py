"""Every primitive declaration, grouped by the kind of data they work on.

Importing this package fills `kiln._core.primitive.REGISTRY`.
"""

from kiln._core.prims import (  # noqa: F401
    array,
    control,
    elementwise,  # noqa: F401
    extra_linalg,
    extra_math,
    extra_nn,
    nn,
    random,
    recurrent,
    reduction,
    special_image,
    state,
)
