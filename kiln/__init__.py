"""Kiln: MindSpore's programming model, PyNative and Graph mode, on XLA through JAX.

import kiln as ms
net = MyCell(); out = net(ms.Tensor(x))
"""

from kiln import (
    _backend,  # noqa: F401  (configures JAX before anything else)
    ops,  # noqa: E402,I001  (ops completes Tensor's methods)
)
from kiln._core import dtype
from kiln._core.dtype import *  # noqa: F403
from kiln._core.random_state import get_seed
from kiln._core.tensor import Parameter, ParameterTuple, Tensor
from kiln.common.api import set_seed
from kiln.context import (
    GRAPH_MODE,
    PYNATIVE_MODE,
    ParallelMode,
    get_context,
    reset_context,
    set_context,
    set_device,
)
from kiln.ops import GradOperation, grad, value_and_grad

mstype = dtype
__version__ = "0.1.0"

__all__ = [
    "GRAPH_MODE", "PYNATIVE_MODE", "GradOperation", "Parameter", "ParameterTuple", "ParallelMode", "Tensor",
    "dtype", "get_context", "get_seed", "grad", "mstype", "ops", "reset_context", "set_context", "set_device",
    "set_seed", "value_and_grad",
]  # fmt: skip
