"""`kiln.numpy`: NumPy's API on Kiln Tensors, as `mindspore.numpy`.

Functions take Tensors, Python numbers, (nested) lists and NumPy arrays and return Tensors; Python ints become
int32 and floats float32, as in mindspore.numpy. They are built from Kiln ops, so they run in PyNative mode and
record into graphs (`ms.jit`, GRAPH_MODE), and their gradients come from those ops. A few functions whose output
size depends on the data (`unique`, `nonzero`, `argwhere`, `intersect1d`, `setdiff1d`, `where` with one argument,
`bincount` without `length`) run in PyNative mode only.
"""

from kiln.numpy import array_ops, creation, dtypes, linalg, logic, math, reductions, stats
from kiln.numpy.array_ops import *  # noqa: F403
from kiln.numpy.creation import *  # noqa: F403
from kiln.numpy.dtypes import *  # noqa: F403
from kiln.numpy.linalg import *  # noqa: F403
from kiln.numpy.logic import *  # noqa: F403
from kiln.numpy.math import *  # noqa: F403
from kiln.numpy.reductions import *  # noqa: F403
from kiln.numpy.stats import *  # noqa: F403

__all__ = sorted(
    {
        *array_ops.__all__,
        *creation.__all__,
        *dtypes.__all__,
        *linalg.__all__,
        *logic.__all__,
        *math.__all__,
        *reductions.__all__,
        *stats.__all__,
    }  # fmt: skip
)
