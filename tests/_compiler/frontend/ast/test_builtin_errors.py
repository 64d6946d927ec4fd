"""Errors the builtins raise for the program's own mistakes (`getattr` of a missing attribute, `list.pop` past the
end) are the program's in graph mode: the exception type PyNative raises, at the user's line, never reported as
an internal error of Kiln (kiln/_compiler/frontend/ast/diagnose.py, calls.call_python)."""

from __future__ import annotations

import pytest

from kiln import Tensor
from tests._compiler.frontend.ast.modes import MODES, compiled


class Holder:
    def __init__(self):
        self.value = 1


HOLDER = Holder()
MISSING = "abs2"  # the builtin getattr with a name no object here has


def _getattr_of_tensor(x):
    return getattr(x, MISSING)()


def _getattr_of_list():
    return getattr([1, 2], MISSING)()


def _getattr_of_tuple():
    return getattr((1, 2), MISSING)()


def _getattr_of_dict():
    return getattr({"a": 1}, MISSING)()


def _getattr_of_object():
    return getattr(HOLDER, MISSING)()


def _pop_past_the_end():
    x = [1, 2, 3, 4]
    y = x.pop(4)
    return x, y


def _pop_of_empty():
    x = []
    return x.pop()


CASES = [
    (_getattr_of_tensor, (Tensor([-1, -2]),), AttributeError, "'Tensor' object has no attribute 'abs2'"),
    (_getattr_of_list, (), AttributeError, "'list' object has no attribute 'abs2'"),
    (_getattr_of_tuple, (), AttributeError, "'tuple' object has no attribute 'abs2'"),
    (_getattr_of_dict, (), AttributeError, "'dict' object has no attribute 'abs2'"),
    (_getattr_of_object, (), AttributeError, "'Holder' object has no attribute 'abs2'"),
    (_pop_past_the_end, (), IndexError, "pop index out of range"),
    (_pop_of_empty, (), IndexError, "pop from empty list"),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("fn", "args", "kind", "text"), CASES, ids=[c[0].__name__ for c in CASES])
def test_builtin_error_is_the_programs(mode, fn, args, kind, text):
    with pytest.raises(kind, match=text) as info:
        compiled(mode, fn)(*args)
    message = str(info.value)
    assert "internal error" not in message
    if mode in ("graph", "jit"):  # the AST frontend names the user's line
        assert fn.__name__ in message and __file__ in message


def _sum_of_range(n):
    total = 0
    for i in range(n):
        total = total + i
    return total


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("bound", "kind"),
    [(Tensor(4.0), TypeError), (Tensor([2, 3]), ValueError)],
    ids=["float", "two_elements"],
)
def test_range_of_a_tensor_that_is_not_one_integer_raises_as_in_pynative(mode, bound, kind):
    """`range(x)` takes a Tensor as Python's range takes an index: a float Tensor is a TypeError and a Tensor of
    several elements a ValueError in every mode (graphs used to loop over a float bound, or fail on the loop's
    condition instead)."""
    with pytest.raises(kind):
        compiled(mode, _sum_of_range)(bound)
    assert int(compiled(mode, _sum_of_range)(Tensor(4))) == 6
