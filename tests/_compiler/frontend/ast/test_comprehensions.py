"""Comprehensions with several `if` clauses (`[x for x in xs if a if b]`) or several `for` clauses
(`[y for x in xs for y in x]`) in graph mode, as Python runs them: every `if` must hold (the parser joins them into
one `and`), and each later `for` runs inside the earlier ones, seeing their variables (the parser nests them)."""

from __future__ import annotations

import numpy as np
import pytest

from kiln import Tensor
from tests._compiler.frontend.ast.modes import MODES, compiled


def _list_two_ifs():
    return tuple([x * x for x in range(1, 11) if x > 5 if x % 2 == 0])


def _generator_three_ifs():
    return tuple(x for x in range(20) if x > 2 if x % 3 == 0 if x != 9)


def _dict_two_ifs():
    return {k: v for k, v in (("a", 1), ("b", 2), ("c", 3)) if v > 1 if k != "c"}


def _tensor_items_two_ifs(x):
    return tuple(x[i] * 2 for i in range(4) if i > 0 if i != 2)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("fn", [_list_two_ifs, _generator_three_ifs, _dict_two_ifs], ids=lambda f: f.__name__)
def test_several_if_clauses_all_hold(mode, fn):
    assert compiled(mode, fn)() == fn()


@pytest.mark.parametrize("mode", MODES)
def test_several_if_clauses_over_tensor_items(mode):
    x = Tensor(np.arange(4, dtype=np.float32))
    got = compiled(mode, _tensor_items_two_ifs)(x)
    assert [float(v) for v in got] == [2.0, 6.0]


def _list_two_fors():
    return tuple([y for x in ((1, 2), (3, 4), (5, 6)) for y in x])


def _fors_with_ifs_between():
    return [(i, j) for i in range(4) if i != 1 for j in range(i) if (i + j) % 2 == 1]


def _three_fors():
    return tuple(z for x in [[[1], [2, 3]], [], [[4]]] for y in x for z in y)


def _dict_two_fors():
    return {f"{k}{v}": v for k, row in (("a", (1, 2)), ("b", (3,))) for v in row}


def _tensor_two_fors(x):
    return [x * i + j for i in range(2) for j in range(3)]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "fn", [_list_two_fors, _fors_with_ifs_between, _three_fors, _dict_two_fors], ids=lambda f: f.__name__
)
def test_several_for_clauses_nest(mode, fn):
    assert compiled(mode, fn)() == fn()


@pytest.mark.parametrize("mode", MODES)
def test_several_for_clauses_over_tensors(mode):
    x = Tensor(np.float32(2.0))
    got = compiled(mode, _tensor_two_fors)(x)
    assert [float(v) for v in got] == [0.0, 1.0, 2.0, 2.0, 3.0, 4.0]
