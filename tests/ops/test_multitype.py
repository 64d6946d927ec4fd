"""MultitypeFuncGraph and HyperMap: which implementation a call runs, and when HyperMap maps or passes a sequence."""

from __future__ import annotations

import pytest

import kiln
from kiln import Tensor, nn, ops
from kiln.ops.multitype import HyperMap, MultitypeFuncGraph


def _pick():
    pick = MultitypeFuncGraph("pick")

    @pick.register("Tensor", "Tuple")
    def _(x, pair):
        return pair[0] if x > 0 else pair[1]

    @pick.register("Tensor", "Tensor")
    def _(x, y):
        return x * y

    return pick


def test_hypermap_passes_a_sequence_whole_to_an_implementation_that_names_it():
    x, y, z = Tensor(2.0), Tensor(-3.0), Tensor(5.0)
    out = HyperMap(_pick())((x, y), ((z, x), (y, z)))
    assert [float(o.asnumpy()) for o in out] == [5.0, 5.0]


def test_hypermap_maps_over_sequences_no_implementation_names():
    only_tensors = MultitypeFuncGraph("only_tensors")

    @only_tensors.register("Tensor", "Tensor")
    def _(a, b):
        return a + b

    out = HyperMap(only_tensors)(
        (Tensor(1.0), (Tensor(2.0), Tensor(3.0))), (Tensor(10.0), (Tensor(20.0), Tensor(30.0)))
    )
    assert float(out[0].asnumpy()) == 11.0
    assert [float(o.asnumpy()) for o in out[1]] == [22.0, 33.0]


def test_a_generic_type_name_does_not_stop_the_mapping():
    anything = MultitypeFuncGraph("anything")

    @anything.register("Undetermined")
    def _(a):
        return isinstance(a, tuple)

    assert HyperMap(anything)((Tensor(1.0), Tensor(2.0))) == (False, False)


class _Branchy(nn.Cell):
    def __init__(self):
        super().__init__()
        self.map = HyperMap(_pick())

    def construct(self, x, y, z):
        return self.map((x, y), ((z, x), (y, z)))


@pytest.mark.parametrize("mode", [kiln.PYNATIVE_MODE, kiln.GRAPH_MODE])
def test_gradient_through_a_hypermap_with_tensor_conditions(mode):
    kiln.set_context(mode=mode)
    try:
        grads = ops.GradOperation(get_all=True)(_Branchy())(Tensor(2.0), Tensor(-3.0), Tensor(0.0))
    finally:
        kiln.set_context(mode=kiln.PYNATIVE_MODE)
    # x > 0 picks z for the first element; y < 0 picks z for the second: d/dz of z + z is 2
    assert [float(g.asnumpy()) for g in grads] == [0.0, 0.0, 2.0]
