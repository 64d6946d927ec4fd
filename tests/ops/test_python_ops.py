"""MindSpore's functional names for Python-level operations (kiln/ops/python_ops.py)."""

from __future__ import annotations

import pytest

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
