"""Private names (`self.__padding` in a method of a class) are mangled in compiled code as Python mangles them
(parser._Builder.mangled): found by the zoo's STGCN, whose CausalConv2d stores `self.__padding` in __init__ and reads
it in construct (GRAPH_MODE raised "'CausalConv2d' object has no attribute '__padding'")."""

from __future__ import annotations

import numpy as np
import pytest

import kiln as ms
from kiln import Tensor, nn
from kiln._compiler.frontend.ast.parser import _innermost_class


class _PrivatePad(nn.Cell):
    def __init__(self, pad):
        super().__init__()
        self.__pad = pad
        self.__calls = 0

    def construct(self, x):
        self.__calls = self.__calls + 1  # a private attribute written in the graph, read back below

        def scaled(y):
            return y * self.__pad  # a nested function mangles with the method's class too

        if self.__pad != 0:
            x = scaled(x) + self.__calls
        return x


class __Underscored(nn.Cell):  # noqa: N801  (Python strips the class name's leading underscores when it mangles)
    def __init__(self):
        super().__init__()
        self.__scale = 3.0

    def construct(self, x):
        return x * self.__scale


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_private_attributes_read_and_written_in_construct(mode):
    x = np.arange(4, dtype=np.float32)
    ms.set_context(mode=mode)
    try:
        pad = _PrivatePad(2.0)
        np.testing.assert_array_equal(pad(Tensor(x)).asnumpy(), x * 2 + 1)
        np.testing.assert_array_equal(pad(Tensor(x)).asnumpy(), x * 2 + 2)
        np.testing.assert_array_equal(_PrivatePad(0)(Tensor(x)).asnumpy(), x)
        np.testing.assert_array_equal(__Underscored()(Tensor(x)).asnumpy(), x * 3)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.mark.parametrize(
    "qualname, owner",
    [("C.construct", "C"), ("C.m.<locals>.f", "C"), ("f", None), ("g.<locals>.f", None), ("g.<locals>.C.m", "C")],
)
def test_the_mangling_class_is_the_innermost_enclosing_class(qualname, owner):
    assert _innermost_class(qualname) == owner
