"""An index out of range given to ScatterNdUpdate / ops.tensor_scatter_update: MindSpore 2.10 raises ValueError (its
st/ops/cpu/test_scatter_nd_update_op.py::test_op5, probed), Kiln an error that is both an IndexError (Python's
class for it) and a ValueError, in PyNative and GRAPH_MODE."""

from __future__ import annotations

import numpy as np
import pytest

import kiln
from kiln import Parameter, Tensor, nn, ops
from kiln.ops import operations as P


class _ScatterNdUpdateNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.update = P.ScatterNdUpdate()
        self.x = Parameter(Tensor(np.ones([1, 4, 1], np.float32)), name="x")

    def construct(self, indices, updates):
        return self.update(self.x, indices, updates)


@pytest.mark.parametrize("mode", [kiln.PYNATIVE_MODE, kiln.GRAPH_MODE])
@pytest.mark.parametrize("error", [ValueError, IndexError])
def test_an_index_out_of_range_is_an_index_and_a_value_error(mode, error):
    indices = Tensor(np.array([[0, 2], [3, 2], [1, 3]], np.int32))
    updates = Tensor(np.ones((3, 1), np.float32))
    kiln.set_context(mode=mode)
    try:
        with pytest.raises(error, match="index 3 at indices"):
            _ScatterNdUpdateNet()(indices, updates)
        with pytest.raises(error, match="TensorScatterUpdate"):
            ops.tensor_scatter_update(Tensor(np.ones([1, 4, 1], np.float32)), indices, updates)
    finally:
        kiln.set_context(mode=kiln.PYNATIVE_MODE)


def test_an_index_in_range_still_updates():
    net = _ScatterNdUpdateNet()
    net(Tensor(np.array([[0, 2], [0, 3]], np.int32)), Tensor(np.array([[5.0], [7.0]], np.float32)))
    np.testing.assert_array_equal(net.x.asnumpy().reshape(-1), [1, 1, 5, 7])
