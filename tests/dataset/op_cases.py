"""Eager cases of `dataset.transforms`, `dataset.text` and `dataset.audio` ops, shared by Kiln's tests and the
MindSpore golden script (tests/dataset/make_goldens_ops.py).

Each case is `name -> (build, inputs)`: `build(m)` makes the op from a namespace `m` holding `T` (transforms),
`text`, `audio` and `ms` (the root package) of either framework; the op is called with `inputs`. The golden is the
output (a tuple becomes name#0, name#1, ...) or the name of the exception type raised.
"""

import numpy as np

_rs = np.random.RandomState(7)
WAVE = _rs.uniform(-1, 1, (2, 64)).astype(np.float32)
WAVE64 = _rs.uniform(-1, 1, (1, 40)).astype(np.float64)
SPEC = _rs.uniform(0, 3, (1, 9, 12)).astype(np.float32)
CPLX = _rs.uniform(-2, 2, (2, 5, 7, 2)).astype(np.float32)

TRANSFORMS = {
    "fill_float": (lambda m: m.T.Fill(3), (np.array([1.5, 2.0]),)),
    "fill_int_trunc": (lambda m: m.T.Fill(3.7), (np.array([1, 2]),)),
    "fill_str": (lambda m: m.T.Fill("a"), (np.array(["x", "y"]),)),
    "fill_mismatch": (lambda m: m.T.Fill(3), (np.array(["x", "y"]),)),
    "fill_scalar": (lambda m: m.T.Fill(3), (np.array(5),)),
    "mask_ge": (lambda m: m.T.Mask(m.T.Relational.GE, 2), (np.array([1, 2, 3]),)),
    "mask_eq_int32": (lambda m: m.T.Mask(m.T.Relational.EQ, 2, m.ms.int32), (np.array([1, 2, 3]),)),
    "mask_str": (lambda m: m.T.Mask(m.T.Relational.NE, "b"), (np.array(["a", "b"]),)),
    "mask_cast_const": (lambda m: m.T.Mask(m.T.Relational.EQ, 2.5), (np.array([1, 2, 3]),)),
    "mask_lt_f32": (lambda m: m.T.Mask(m.T.Relational.LT, 2, m.ms.float32), (np.array([1, 2, 3]),)),
    "mask_mismatch": (lambda m: m.T.Mask(m.T.Relational.EQ, "b"), (np.array([1, 2]),)),
    "padend": (lambda m: m.T.PadEnd([5], 0), (np.array([1, 2, 3]),)),
    "padend_2d": (lambda m: m.T.PadEnd([2, 3]), (np.array([[1], [2]]),)),
    "padend_cut": (lambda m: m.T.PadEnd([2]), (np.array([1, 2, 3]),)),
    "padend_str": (lambda m: m.T.PadEnd([4], "z"), (np.array(["a"]),)),
    "padend_str_default": (lambda m: m.T.PadEnd([4]), (np.array(["a"]),)),
    "padend_rank": (lambda m: m.T.PadEnd([4]), (np.array([[1]]),)),
    "slice_slice": (lambda m: m.T.Slice(slice(1, 3)), (np.array([1, 2, 3, 4]),)),
    "slice_list": (lambda m: m.T.Slice([0, 2]), (np.array([1, 2, 3, 4]),)),
    "slice_int": (lambda m: m.T.Slice(1), (np.array([1, 2, 3, 4]),)),
    "slice_neg": (lambda m: m.T.Slice(-1), (np.array([1, 2, 3, 4]),)),
    "slice_none": (lambda m: m.T.Slice(None), (np.array([1, 2, 3, 4]),)),
    "slice_ellipsis": (lambda m: m.T.Slice(Ellipsis, 1), (np.array([[1, 2], [3, 4]]),)),
    "slice_mixed": (lambda m: m.T.Slice(0, [1]), (np.array([[1, 2], [3, 4]]),)),
    "slice_lists": (lambda m: m.T.Slice([1, 0], [1, 0]), (np.array([[1, 2], [3, 4]]),)),
    "slice_oob": (lambda m: m.T.Slice(5), (np.array([1, 2]),)),
    "slice_rank": (lambda m: m.T.Slice(slice(0, 1), slice(0, 1)), (np.array([1, 2]),)),
    "unique_2d": (lambda m: m.T.Unique(), (np.array([[5, 3], [5, 1]]),)),
    "unique_float": (lambda m: m.T.Unique(), (np.array([[1.5, 1.5], [2, 3]]),)),
    "unique_str": (lambda m: m.T.Unique(), (np.array([["b", "a"]]),)),
    "duplicate": (lambda m: m.T.Duplicate(), (np.array([1, 2]),)),
    "duplicate_two": (lambda m: m.T.Duplicate(), (np.array([1]), np.array([2]))),
    "concat_mismatch": (lambda m: m.T.Concatenate(0, np.array([1])), (np.array([2.0]),)),
    "concat_both": (lambda m: m.T.Concatenate(0, np.array([1.0]), np.array([7.0])), (np.array([2.0]),)),
    "concat_str": (lambda m: m.T.Concatenate(0, np.array(["a"])), (np.array(["b"]),)),
    "concat_cols": (lambda m: m.T.Concatenate(-1, np.array([0])), (np.array([1, 2]), np.array([3]))),
    "typecast": (lambda m: m.T.TypeCast(m.ms.float16), (np.array([1, 2]),)),
    "onehot": (lambda m: m.T.OneHot(3), (np.array([1, 2]),)),
    "compose": (lambda m: m.T.Compose([m.T.Duplicate(), m.T.Concatenate()]), (np.array([1, 2]),)),
    "random_apply_1": (lambda m: m.T.RandomApply([m.T.Fill(0)], prob=1.0), (np.array([1, 2]),)),
    "random_apply_0": (lambda m: m.T.RandomApply([m.T.Fill(0)], prob=0.0), (np.array([1, 2]),)),
    "random_choice_1": (lambda m: m.T.RandomChoice([m.T.Slice([0])]), (np.array([4, 2]),)),
    "random_order_1": (lambda m: m.T.RandomOrder([m.T.PadEnd([3], 9)]), (np.array([4, 2]),)),
}

# Building these raises; the golden is the exception type.
TRANSFORMS_BUILD_ERRORS = {
    "concat_axis": lambda m: m.T.Concatenate(2),
    "concat_prepend_2d": lambda m: m.T.Concatenate(0, np.array([["a"]])),
    "random_apply_empty": lambda m: m.T.RandomApply([]),
    "random_apply_uncallable": lambda m: m.T.RandomApply([1]),
    "random_apply_prob": lambda m: m.T.RandomApply([abs], 2),
    "compose_empty": lambda m: m.T.Compose([]),
    "fill_list": lambda m: m.T.Fill([1]),
    "padend_int": lambda m: m.T.PadEnd(3),
}

ALL = {"transforms": TRANSFORMS}
ALL_BUILD_ERRORS = {"transforms": TRANSFORMS_BUILD_ERRORS}


def run_case(build, inputs, m) -> dict:
    """Golden entries of one case: {key: array} or {key: "!ExceptionName"}."""
    try:
        out = build(m)(*inputs)
    except Exception as exc:  # noqa: BLE001  (the exception type is the golden)
        return {"": "!" + type(exc).__name__}
    if isinstance(out, tuple):
        return {f"#{i}": np.asarray(o) for i, o in enumerate(out)}
    return {"": np.asarray(out)}


def build_error(build, m) -> str:
    try:
        build(m)
    except Exception as exc:  # noqa: BLE001
        return type(exc).__name__
    return "no error"
