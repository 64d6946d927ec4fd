"""`mutable()` scalars (bool, int, float) in compiled graphs: a graph variable that is still a Python number of its
type inside the graph (isinstance) and where it leaves the graph, as MindSpore's graph mode documents, and one
compile for every value."""

from __future__ import annotations

import numpy as np
import pytest

from kiln import Tensor, mutable
from tests._compiler.frontend.ast.modes import compiled

GRAPH_MODES = ("graph", "jit")


def _kinds(x):
    return isinstance(x, (int, tuple)), isinstance(x, float), isinstance(x, bool), isinstance(x, Tensor)


@pytest.mark.parametrize("mode", GRAPH_MODES)
@pytest.mark.parametrize(
    "value, kinds",
    [(2, (True, False, False, False)), (1.5, (False, True, False, False)), (True, (True, False, True, False))],
)
def test_a_mutable_scalar_is_an_instance_of_its_python_type(mode, value, kinds):
    assert compiled(mode, _kinds)(mutable(value)) == kinds


@pytest.mark.parametrize("mode", GRAPH_MODES)
def test_a_mutable_int_leaves_the_graph_as_an_int_and_does_not_recompile(mode):
    fn = compiled(mode, lambda n, x: (n, n * 2, x * n))
    for n in (2, 3):
        out = fn(mutable(n), Tensor(np.ones(2, np.float32)))
        assert type(out[0]) is int and out[0] == n
        assert type(out[1]) is int and out[1] == 2 * n
        np.testing.assert_allclose(out[2].asnumpy(), [n, n])
    if mode == "jit":
        assert fn.compile_count == 1


@pytest.mark.parametrize("mode", GRAPH_MODES)
def test_float_of_a_tensor_is_a_float_for_isinstance(mode):
    assert compiled(mode, lambda x: isinstance(float(x), float))(Tensor(np.float32(2.5))) is True
