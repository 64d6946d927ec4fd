"""Cases of the ops-surface golden test (test_surface_goldens.py) and its goldens script
(make_surface_goldens_mindspore.py): calls of MindSpore 2.10 ops.* names, written once for either framework.

Each case is `fn(ms)` -> a Tensor or a tuple of Tensors, `ms` being `kiln` or `mindspore`; `run` turns it into
JSON: each output's dtype and values, or the class of the error it raised (its words are each framework's own).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

_RNG = np.random.default_rng(7)
_X62 = _RNG.uniform(-2, 2, (6, 2)).astype(np.float32)
_X3 = _RNG.uniform(-2, 2, (4, 2, 3)).astype(np.float32)
_I6 = np.array([3, -1, 4, 1, -5, 9], np.int32)


def _t(ms, a):
    return ms.Tensor(np.asarray(a))


def _segment(cls: str, x, ids) -> Callable:
    return lambda ms: getattr(ms.ops, cls)()(_t(ms, x), _t(ms, ids))


CASES: dict[str, Callable] = {}
for _cls in ("SegmentSum", "SegmentMean", "SegmentMax", "SegmentMin", "SegmentProd"):
    CASES.update({
        f"{_cls}_gaps": _segment(_cls, _X62, np.array([0, 0, 2, 2, 2, 4], np.int32)),
        f"{_cls}_3d_int64_ids": _segment(_cls, _X3, np.array([1, 1, 1, 3], np.int64)),
        f"{_cls}_int": _segment(_cls, _I6, np.array([0, 1, 1, 3, 3, 3], np.int64)),
        f"{_cls}_one_segment": _segment(_cls, _X62, np.zeros(6, np.int32)),
        f"{_cls}_unsorted": _segment(_cls, _X62, np.array([1, 0, 2, 2, 2, 4], np.int32)),
        f"{_cls}_negative": _segment(_cls, _X62, np.array([-1, 0, 0, 0, 0, 0], np.int32)),
        f"{_cls}_too_few_ids": _segment(_cls, _X62, np.array([0, 0, 1], np.int32)),
        f"{_cls}_2d_ids": _segment(_cls, _X62, np.zeros((1, 6), np.int32)),
        f"{_cls}_float_ids": _segment(_cls, _X62, np.zeros(6, np.float32)),
        f"{_cls}_bool_input": _segment(_cls, np.ones(6, np.bool_), np.zeros(6, np.int32)),
    })  # fmt: skip
CASES["SegmentMean_negative_int_truncates"] = _segment(
    "SegmentMean", np.array([-1, -2, -3, 3, 4], np.int32), np.array([0, 0, 1, 1, 1], np.int32)
)
CASES["SegmentMean_float16"] = _segment("SegmentMean", np.array([1, 2, 4], np.float16), np.array([0, 0, 2], np.int32))


def _as_json(out) -> dict:
    if isinstance(out, (tuple, list)):
        return {"outputs": [_as_json(o) for o in out]}
    value = out.asnumpy()
    return {"dtype": str(out.dtype), "shape": list(value.shape), "value": value.astype(np.float64).tolist()}


def run(ms, name: str) -> dict:
    """Case `name` through framework `ms`: its outputs as JSON, or {"error": the exception's class name}."""
    try:
        return _as_json(CASES[name](ms))
    except (TypeError, ValueError, RuntimeError, IndexError) as err:
        return {"error": type(err).__name__}
