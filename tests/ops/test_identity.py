"""ops.identity (ops.functional.identity) as MindSpore 2.10's: any argument back unchanged."""

import numpy as np
import pytest

import kiln
from kiln import nn, ops
from kiln.ops import functional as F


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_identity_returns_a_tuple_of_gradients_unchanged(mode):
    # MindSpore 2.10's ops.identity (its deprecated `identity` primitive) returns any argument; the zoo's DIEN
    # TrainOneStepCell reduces its gradient tuple with `F.identity` off data parallel. Kiln refused the tuple.
    class Step(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = kiln.Parameter(kiln.Tensor(np.array([1.0, -2.0, 3.0], np.float32)), name="w")
            self.grad = ops.GradOperation(get_by_list=True)
            self.weights = kiln.ParameterTuple([self.w])
            self.reducer = F.identity

        def construct(self, x):
            grads = self.grad(lambda v: (self.w * v * v).sum(), self.weights)(x)
            return self.reducer(grads)

    x = np.array([0.5, 1.5, -2.0], np.float32)
    step = Step()
    fn = kiln.jit(step.construct) if mode == "graph" else step
    (g,) = fn(kiln.Tensor(x))
    np.testing.assert_allclose(g.asnumpy(), x * x)
    assert ops.identity is F.identity
    assert F.identity((1, 2)) == (1, 2)
    np.testing.assert_array_equal(F.identity(kiln.Tensor(x)).asnumpy(), x)
