"""`mint.nn.functional.one_hot` follows PyTorch: a class value outside [0, num_classes) is an error (torch 2.13
raises RuntimeError, 'Class values must be smaller than num_classes' / 'must be non-negative'), in PyNative at the
call and in GRAPH_MODE through the graph's value checks; `ops.one_hot` keeps MindSpore's off_value rows."""

from __future__ import annotations

import inspect
import traceback

import numpy as np
import pytest

import kiln as ms
from kiln import mint, nn, ops

F = mint.nn.functional


class _OneHot(nn.Cell):
    def construct(self, t):
        return F.one_hot(t, 3)  # the user's line


def _line_of(fn, text: str) -> int:
    source, first = inspect.getsourcelines(fn)
    return first + next(i for i, line in enumerate(source) if text in line)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_class_values_in_range_give_int64_rows(mode):
    ms.set_context(mode=mode)
    labels = np.array([[0, 2], [1, 1]], np.int64)
    got = _OneHot()(ms.Tensor(labels))
    assert got.dtype == ms.int64
    np.testing.assert_array_equal(got.asnumpy(), np.eye(3, dtype=np.int64)[labels])


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
@pytest.mark.parametrize("labels, bad, where", [([[0, 1], [5, 2]], 5, "[1, 0]"), ([0, 2, -1], -1, "[2]")])
def test_a_class_value_out_of_range_raises_naming_it_and_num_classes(mode, labels, bad, where, tmp_path):
    ms.set_context(mode=mode, save_graphs_path=str(tmp_path))
    with pytest.raises(RuntimeError) as info:
        _OneHot()(ms.Tensor(np.array(labels, np.int64))).asnumpy()
    text = str(info.value)
    assert f"class value {bad} at tensor{where}" in text and "num_classes is 3" in text and "[0, 3)" in text
    line = _line_of(_OneHot, "the user's line")
    if mode == ms.GRAPH_MODE:
        assert f"{__file__}:{line}" in text
    else:  # the traceback's last frame outside Kiln is the user's call
        user = [f for f in traceback.extract_tb(info.tb) if "/kiln/" not in f.filename]
        assert (user[-1].filename, user[-1].lineno) == (__file__, line)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_ops_one_hot_keeps_mindspores_off_value_rows(mode):
    ms.set_context(mode=mode)
    labels = np.array([0, 5, -1, 2], np.int64)
    got = ms.jit(lambda t: ops.one_hot(t, 3, ms.Tensor(1.0), ms.Tensor(0.0)))(ms.Tensor(labels))
    want = np.array([np.eye(3)[v] if 0 <= v < 3 else np.zeros(3) for v in labels], np.float32)
    np.testing.assert_array_equal(got.asnumpy(), want)
