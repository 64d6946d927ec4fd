"""kiln/ops/array.py's argument checks that the op-record table (tests/ops/records/array.py) does not reach."""

import pytest

import kiln as ms
from kiln import Tensor, ops


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_range_refuses_what_mindspore_refuses(mode):
    # MindSpore 2.10's ops.range and Range refuse integer and float bounds mixed (the zoo's SimCLR loss calls
    # ops.range(Tensor(0.0), Tensor(batch, int32), Tensor(1.0)): TypeError there), a zero step and a step pointing
    # away from the end (ValueError); Kiln's range took all three as arange does.
    ms.set_context(mode=mode)
    try:
        with pytest.raises(TypeError, match="all integers or all floats.*end=3.0"):
            ops.range(0, 3.0, 1)
        with pytest.raises(TypeError, match="all integers or all floats"):
            ops.range(Tensor(0.0, ms.float32), Tensor(4, ms.int32), Tensor(1.0, ms.float32))
        with pytest.raises(ValueError, match="'step' must not be 0"):
            ops.Range()(Tensor(0, ms.int32), Tensor(3, ms.int32), Tensor(0, ms.int32))
        with pytest.raises(ValueError, match="leads away from 'end'"):
            ops.range(0, 3, -1)
        with pytest.raises(ValueError, match="'maxlen' must be a positive int"):
            ops.range(0, 3, 1, 0)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_range_maxlen_does_not_cut_the_output():
    # MindSpore's CPU returns a range longer than `maxlen` whole (maxlen sizes its kernel's allocation)
    assert ops.range(0, 20, 1, 10).asnumpy().tolist() == list(range(20))
