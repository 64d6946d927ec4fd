"""Kiln ops: the functional API (`ops.add`, `ops.conv2d`) and Primitive classes (`ops.Add()`)."""

import sys as _sys

from kiln import _prims  # noqa: F401  (fills the primitive registry)
from kiln.ops import _submodules, _tensor_methods, extra_tensor_methods
from kiln.ops._grad import GradOperation as GradOperation
from kiln.ops._grad import grad as grad
from kiln.ops._grad import value_and_grad as value_and_grad
from kiln.ops.array import *  # noqa: F403
from kiln.ops.clipping import *  # noqa: F403
from kiln.ops.comm_ops import *  # noqa: F403
from kiln.ops.extra_primitives import *  # noqa: F403
from kiln.ops.image import *  # noqa: F403
from kiln.ops.linalg import *  # noqa: F403
from kiln.ops.math import *  # noqa: F403
from kiln.ops.more_internal import *  # noqa: F403
from kiln.ops.more_primitives import *  # noqa: F403
from kiln.ops.multitype import *  # noqa: F403
from kiln.ops.nn import *  # noqa: F403
from kiln.ops.nn_primitives import *  # noqa: F403
from kiln.ops.operations_extra import *  # noqa: F403
from kiln.ops.primitive import *  # noqa: F403
from kiln.ops.primitives import *  # noqa: F403
from kiln.ops.random import *  # noqa: F403
from kiln.ops.sparse import *  # noqa: F403
from kiln.ops.spectral import *  # noqa: F403
from kiln.ops.state import *  # noqa: F403
from kiln.ops.taylor import *  # noqa: F403
from kiln.ops.transforms import *  # noqa: F403

_tensor_methods.install()
extra_tensor_methods.install()
_submodules.register(_sys.modules[__name__], _submodules.AUTO_GENERATE)

from kiln.ops import functional as function  # noqa: E402, F401  (MindSpore's `ops.function`; needs every name above)
from kiln.ops import operations  # noqa: E402, F401  (`ops.operations.ReLU()`, as MindSpore scripts write it)
from kiln.ops import operations as P  # noqa: E402, F401  (MindSpore's ops package names it P too)
