"""Kiln: MindSpore's programming model, PyNative and Graph mode, on XLA through JAX.

import kiln as ms
net = MyCell(); out = net(ms.Tensor(x))
"""

# Importing `_backend` configures JAX first; importing `ops` completes Tensor's methods.
from __future__ import absolute_import  # noqa: F401  (MindSpore's namespace has it too)

import importlib

# first of Kiln's own imports: `kiln run` re-executes itself there (glibc's huge pages), before the others take seconds
import kiln.cli.hugepages as _hugepages  # noqa: F401
from kiln import _backend, _compiler, amp, dataset, device_context, experimental, mint, nn, ops, runtime, train  # noqa: F401
from kiln._compiler.api import JitConfig, jit, mutable
from kiln._core import dtype
from kiln._core.dtype import *  # noqa: F403
from kiln._core.random_state import get_seed
from kiln._core.tensor import Parameter, ParameterTuple, Tensor
from kiln.common import generator as _generator
from kiln.common import runtime as _runtime
from kiln.common import types as _types
from kiln.common.api import (
    constexpr,
    from_numpy,
    is_tensor,
    jit_class,
    lazy_inline,
    no_inline,
    recompute,
    set_seed,
    swap_tensors,
    tensor,
)
from kiln.common.export import export, load
from kiln.common.generator import *  # noqa: F403
from kiln.common.runtime import *  # noqa: F403
from kiln.common.types import (
    Int,
    TensorType,
    Type,
    dtype_to_nptype,
    dtype_to_pytype,
    from_dlpack,
    frombuffer,
    get_py_obj_dtype,
    list_,
    number,
    string,
    tensor_type,
    to_dlpack,
    tuple_,
    type_none,
)
from kiln.context import (
    COMPATIBLE,
    GRAPH_MODE,
    LAX,
    PYNATIVE_MODE,
    STRICT,
    ParallelMode,
    get_context,
    reset_context,
    set_context,
    set_device,
)
from kiln.log import get_level, get_log_config
from kiln.ops import GradOperation, grad, value_and_grad
from kiln.ops.sparse import COOTensor, CSRTensor, RowTensor, SparseTensor
from kiln.ops.transforms import get_grad, hessian, jacfwd, jacrev, jvp, vjp, vmap
from kiln.parallel import (
    Layout,
    get_auto_parallel_context,
    load_distributed_checkpoint,
    merge_sliced_parameter,
    reset_auto_parallel_context,
    set_auto_parallel_context,
    shard,
)
from kiln.train import *  # noqa: F403
from kiln.train import __all__ as _train_all
from kiln.version import __version__  # noqa: F401

_compiler.api.install_cell_runner(nn.Cell)  # GRAPH_MODE: calling a Cell compiles its construct

# MindSpore's nn also names its metrics (`nn.Accuracy`, `nn.auc`, ...) and its mint.nn classes (`nn.AvgPool2dExt` is
# `mint.nn.AvgPool2d`): the same objects, bound here because train and mint sit above nn.
for _name in (
    "Accuracy", "BleuScore", "ConfusionMatrix", "ConfusionMatrixMetric", "CosineSimilarity", "Dice", "F1", "Fbeta",
    "HausdorffDistance", "Loss", "MAE", "MSE", "MeanSurfaceDistance", "Metric", "OcclusionSensitivity", "Perplexity",
    "Precision", "ROC", "Recall", "RootMeanSquareDistance", "Top1CategoricalAccuracy", "Top5CategoricalAccuracy",
    "TopKCategoricalAccuracy", "auc", "get_metric_fn", "get_metrics", "names", "rearrange_inputs",
):  # fmt: skip
    setattr(nn, _name, getattr(train.metrics, _name))
for _name in (
    "AvgPool1d", "AvgPool2d", "AvgPool3d", "Dropout2d", "Dropout", "Embedding", "L1Loss", "LayerNorm", "LogSoftmax",
    "MaxPool2d", "PReLU", "Unfold",
):  # fmt: skip
    setattr(nn, f"{_name}Ext", getattr(mint.nn, _name))
del _name
ms_function = jit  # MindSpore 1.x name of `jit`

mstype = dtype

__all__ = [*_train_all, "JitConfig", "jit", "ms_function", "mutable", "nn", "dataset", "train",
    "GRAPH_MODE", "PYNATIVE_MODE", "GradOperation", "Parameter", "ParameterTuple", "ParallelMode", "Tensor",
    "dtype", "get_context", "get_seed", "grad", "mstype", "ops", "reset_context", "set_context", "set_device",
    "set_seed", "value_and_grad",
    "COMPATIBLE", "LAX", "STRICT", "from_numpy", "get_grad", "hessian", "is_tensor", "jacfwd", "jacrev", "jit_class",
    "jvp", "lazy_inline", "no_inline", "tensor", "vjp", "vmap", "amp", "recompute",
    "get_auto_parallel_context", "reset_auto_parallel_context", "set_auto_parallel_context", "Layout", "shard",
    "load_distributed_checkpoint", "merge_sliced_parameter",
    "constexpr", "swap_tensors", "Int", "TensorType", "Type", "dtype_to_nptype", "dtype_to_pytype", "from_dlpack",
    "frombuffer", "get_py_obj_dtype", "list_", "number", "string", "tensor_type", "to_dlpack", "tuple_",
    "type_none", "get_level", "get_log_config", "COOTensor", "CSRTensor", "RowTensor", "SparseTensor", "export", "load",
    "absolute_import",
    *_generator.__all__, *_runtime.__all__,
    *(name for name in _types.ALIASES if name not in ("float", "int", "bool")),  # star-imports keep the builtins
]  # fmt: skip

# PyTorch-style dtype aliases (kiln.float is float32, kiln.long int64...); set last: they shadow builtins here.
globals().update(_types.ALIASES)

# Submodules MindSpore's top-level package imports eagerly (`mindspore.numpy.arange` after `import mindspore`),
# imported here on first access so that `import kiln` stays quick.
_LAZY_SUBMODULES = ("numpy", "mindrecord", "multiprocessing", "communication", "parallel", "common", "log")


def __getattr__(name: str):
    if name in _LAZY_SUBMODULES:
        return importlib.import_module(f"kiln.{name}")
    raise AttributeError(f"module 'kiln' has no attribute '{name}'")
