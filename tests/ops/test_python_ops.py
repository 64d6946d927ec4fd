"""MindSpore's functional names for Python-level operations (kiln/ops/python_ops.py)."""

from __future__ import annotations

import numpy as np
import pytest
from kiln.ops.composite.base import core

import kiln as ms
from kiln.ops import functional as F
from tests._compiler.frontend.ast.modes import compiled


@pytest.mark.parametrize("mode", ["pynative", "jit"])
def test_scalar_cast_converts_to_int64_float64_or_bool(mode):
    # MindSpore 2.10 (checked with its CPU build): 8.5 -> 8 and -8.5 -> -8 (an int), 3 -> 3.0, 0.0 -> False,
    # True -> 1; other dtypes are a ValueError, a Tensor or a str a TypeError. Kiln had no scalar_cast.
    cases = [
        (8.5, ms.int64, 8),
        (-8.5, ms.int64, -8),
        (3, ms.float64, 3.0),
        (0.0, ms.bool_, False),
        (True, ms.int64, 1),
    ]
    for x, t, want in cases:
        got = compiled(mode, lambda: F.scalar_cast(x, t))()  # noqa: B023  (called at once)
        assert got == want and type(got) is type(want)
    with pytest.raises(ValueError, match="int64, float64 or bool_"):
        F.scalar_cast(8.5, ms.int32)
    for bad in ("a", ms.Tensor(2.5)):
        with pytest.raises(TypeError, match="bool or a number"):
            F.scalar_cast(bad, ms.int64)


class _ScalarCastCell(ms.nn.Cell):
    """The zoo's ICNet, Auto-DeepLab, EfficientDet and Yolact++ build `ops.ScalarCast()` / `P.ScalarCast()` in
    __init__ and call it in construct."""

    def __init__(self, t):
        super().__init__()
        self.scalar_cast = ms.ops.ScalarCast()
        self.t = t

    def construct(self, x):
        return x * self.scalar_cast(2.7, self.t)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_scalar_cast_primitive_is_scalar_cast(mode):
    # MindSpore 2.10 still builds the ScalarCast class (deprecated since 2.3) as ops.ScalarCast and
    # ops.operations.ScalarCast; Kiln had only the functional scalar_cast (AttributeError). Its values and errors
    # are scalar_cast's, in both modes (checked with MindSpore's CPU build: 2.7 -> 2 as int64, 2.0 as float64,
    # ValueError for int32, TypeError for a Tensor, inside a construct too).
    ms.set_context(mode=mode)
    assert ms.ops.operations.ScalarCast is ms.ops.ScalarCast
    cast = ms.ops.operations.ScalarCast()
    assert cast.name == "ScalarCast" and cast(-2.7, ms.int64) == -2 and cast(1, ms.bool_) is True
    x = ms.Tensor(np.array([1.5, -1.0], np.float32))
    np.testing.assert_array_equal(_ScalarCastCell(ms.int64)(x).asnumpy(), [3.0, -2.0])
    np.testing.assert_array_equal(_ScalarCastCell(ms.float64)(x).asnumpy(), np.float32([1.5 * 2.7, -2.7]))
    with pytest.raises(ValueError, match="int64, float64 or bool_, but got Int32"):
        _ScalarCastCell(ms.int32)(x)
    with pytest.raises(TypeError, match="bool or a number"):
        cast(ms.Tensor(2.5), ms.int64)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_composite_base_core_marks_a_function_that_still_runs(mode):
    # MindSpore 2.10's `ops.composite.base.core(fn=None, **flags)` marks a function as a core graph (flags
    # {'core': True, 'loop_can_uroll': True} for its test_ops_attr_infer); Kiln had no such name, so the import
    # failed. The marked function, looping over a list of closures inside a jit, keeps its values.
    ms.set_context(mode=mode)

    @core(loop_can_uroll=True)
    def inner(x, fns):
        return tuple(fn(x) for fn in fns)

    @ms.jit
    def outer(a, x):
        return inner(x, [lambda y: a * y, lambda y: a - y])

    assert inner._kiln_flags == {"core": True, "loop_can_uroll": True}
    assert core(inner)._kiln_flags["core"] is True
    a, x = np.random.default_rng(0).standard_normal((2, 3, 3)).astype(np.float32)
    got = outer(ms.Tensor(a), ms.Tensor(x))
    np.testing.assert_allclose(got[0].asnumpy(), a * x, rtol=1e-6)
    np.testing.assert_allclose(got[1].asnumpy(), a - x, rtol=1e-6)
    assert not hasattr(ms.ops, "core")
