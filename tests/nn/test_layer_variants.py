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


def _np_softmax(x, axes):
    e = np.exp(x - x.max(axis=axes, keepdims=True))
    return e / e.sum(axis=axes, keepdims=True)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
@pytest.mark.parametrize("axis", [1, 0, (0, 1)])
def test_softmax_layers_hold_their_primitive(mode, axis):
    # MindSpore's nn.Softmax keeps `softmax = ops.Softmax(axis)`, whose axis is stored as a tuple, and
    # nn.LogSoftmax keeps `log_softmax` (MindSpore 2.10: nn.Softmax(1).softmax.axis == (1,)); code reads them
    ms.set_context(mode=mode)
    x = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    axes = (axis,) if isinstance(axis, int) else axis
    soft = nn.Softmax(axis)
    assert isinstance(soft.softmax, ops.Softmax) and soft.softmax.axis == axes
    assert ops.Softmax(axis).axis == axes
    np.testing.assert_allclose(soft(Tensor(x)).asnumpy(), _np_softmax(x, axes), rtol=1e-5)
    log_soft = nn.LogSoftmax(axis)
    assert isinstance(log_soft.log_softmax, ops.LogSoftmax) and log_soft.log_softmax.axis == axis
    np.testing.assert_allclose(log_soft(Tensor(x)).asnumpy(), np.log(_np_softmax(x, axes)), rtol=1e-5, atol=1e-6)


def test_softmax_primitive_refuses_other_axis_types():
    for axis in (1.5, [0, 1], "1"):
        with pytest.raises(TypeError):
            ops.Softmax(axis)
