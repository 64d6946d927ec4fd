"""Finding a lambda's source for the AST frontend when other lambdas share its line or its call: `kiln.jit` and
GRAPH_MODE compile the lambda that was passed, not its neighbour with the same argument names."""

from __future__ import annotations

import numpy as np

import kiln
from kiln import Tensor, nn


def _pair(reference, kiln_fn):
    return reference, kiln_fn


# both lambdas on one line, same argument names: the second must be compiled
SAME_LINE = _pair(lambda x: x * 100.0, lambda x: x + 1.0)
# a multi-line call: each lambda alone on its line beside the others
MULTI_LINE = _pair(
    lambda x, y: x - y,
    lambda x, y: x * y,
)
# a lambda nested in a lambda on one line: the inner one alone
NESTED = (lambda x: lambda x: x * 3.0)(None)


class _Apply(nn.Cell):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def construct(self, *xs):
        return self.fn(*xs)


def test_jit_compiles_the_second_lambda_of_a_line():
    x = Tensor(np.array([1.0, 2.0], np.float32))
    np.testing.assert_allclose(kiln.jit(SAME_LINE[1])(x).asnumpy(), [2.0, 3.0])
    np.testing.assert_allclose(kiln.jit(SAME_LINE[0])(x).asnumpy(), [100.0, 200.0])


def test_graph_mode_compiles_the_second_lambda_of_a_line():
    x = Tensor(np.array([1.0, 2.0], np.float32))
    kiln.set_context(mode=kiln.GRAPH_MODE)
    try:
        out = _Apply(SAME_LINE[1])(x)
    finally:
        kiln.set_context(mode=kiln.PYNATIVE_MODE)
    np.testing.assert_allclose(out.asnumpy(), [2.0, 3.0])


def test_jit_compiles_a_lambda_inside_a_multi_line_call():
    x, y = Tensor(np.array([5.0], np.float32)), Tensor(np.array([2.0], np.float32))
    np.testing.assert_allclose(kiln.jit(MULTI_LINE[0])(x, y).asnumpy(), [3.0])
    np.testing.assert_allclose(kiln.jit(MULTI_LINE[1])(x, y).asnumpy(), [10.0])


def test_jit_compiles_the_inner_of_nested_lambdas():
    x = Tensor(np.array([2.0], np.float32))
    np.testing.assert_allclose(kiln.jit(NESTED)(x).asnumpy(), [6.0])
