"""ops.clip_by_global_norm (kiln/ops/clipping.py) where MindSpore 2.10's select(norm >= clip_norm, norm, clip_norm)
differs from a maximum. Its derivative at norm == clip_norm is in tests/_prims/kink_derivative_cases.py."""

import numpy as np

import kiln as ms
from kiln import Tensor, ops


def _clip(a, b):
    return ops.clip_by_global_norm((a, b), 1.0)


def test_clip_by_global_norm_of_a_nan_norm_leaves_the_tensors_unscaled():
    # MindSpore 2.10: a NaN norm fails norm >= clip_norm, so the scale is clip_norm / clip_norm = 1 and only the
    # tensor holding the NaN carries it; max(NaN, clip_norm) made every tensor NaN
    a, b = np.array([np.nan, 1.0], np.float32), np.array([2.0], np.float32)
    for fn in (_clip, ms.jit(_clip)):
        got = fn(Tensor(a), Tensor(b))
        np.testing.assert_array_equal(got[0].asnumpy(), a)
        np.testing.assert_array_equal(got[1].asnumpy(), b)
