"""The layer classes made from tables by kiln.nn.layer._variants.op_variants: real classes of their modules,
with their base's constructor, their own docstring and their own functional op."""

from __future__ import annotations

import importlib
import inspect
import pickle

import numpy as np
import pytest

import kiln as ms
from kiln import Tensor, nn, ops

_VARIANTS = [
    ("kiln.nn.layer.activation", "Softmax", ops.softmax, "(axis=-1) -> None"),
    ("kiln.nn.layer.activation", "LogSoftmax", ops.log_softmax, "(axis=-1) -> None"),
    ("kiln.nn.layer.activation", "Softmin", ops.softmin, "(axis=-1) -> None"),
    ("kiln.nn.layer.basic", "Dropout1d", ops.dropout1d, "(p=0.5) -> None"),
    ("kiln.nn.layer.basic", "Dropout2d", ops.dropout2d, "(p=0.5) -> None"),
    ("kiln.nn.layer.basic", "Dropout3d", ops.dropout3d, "(p=0.5) -> None"),
    ("kiln.nn.layer.pooling", "MaxUnpool1d", ops.max_unpool1d, "(kernel_size, stride=None, padding=0) -> None"),
    ("kiln.nn.layer.pooling", "MaxUnpool2d", ops.max_unpool2d, "(kernel_size, stride=None, padding=0) -> None"),
    ("kiln.nn.layer.pooling", "MaxUnpool3d", ops.max_unpool3d, "(kernel_size, stride=None, padding=0) -> None"),
]


@pytest.mark.parametrize(("module", "name", "op", "signature"), _VARIANTS)
def test_variant_is_a_public_class_of_its_module(module, name, op, signature):
    cls = getattr(importlib.import_module(module), name)
    assert cls is getattr(nn, name)
    assert (cls.__module__, cls.__qualname__, cls.__name__) == (module, name, name)
    assert pickle.loads(pickle.dumps(cls)) is cls
    assert str(inspect.signature(cls)).replace("'", "") == signature
    assert cls.__doc__ and cls.__doc__ != cls.__mro__[1].__doc__
    assert cls._fn is op


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_softmax_family_calls_its_own_op(mode):
    ms.set_context(mode=mode)
    x = Tensor(np.array([[0.5, -1.0, 2.0]], np.float32))
    for layer, op in ((nn.Softmax(), ops.softmax), (nn.LogSoftmax(), ops.log_softmax), (nn.Softmin(), ops.softmin)):
        np.testing.assert_allclose(layer(x).asnumpy(), op(x, -1).asnumpy(), rtol=1e-6)
