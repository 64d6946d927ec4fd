"""The generated check of AST guards (`compile_guards`) agrees with `check_guards` guard by guard, including the
identity guards it checks together per plain dict."""

from collections import OrderedDict, defaultdict

import pytest

from kiln._compiler.frontend.ast.values import MISSING
from kiln._compiler.guards import cell_guard, check_guards, compile_guards, dict_guard


class _Value:
    """An object compared by identity only (as a Parameter or a Cell is)."""


def _closure_cell(value):
    def inner():
        return value

    return inner.__closure__[0]


@pytest.mark.parametrize("kind", [dict, OrderedDict, defaultdict])
def test_each_change_of_a_guarded_dict_fails_the_generated_check(kind):
    a, b, c, other = _Value(), _Value(), _Value(), _Value()
    changes = {
        "a value replaced": lambda d: d.__setitem__("b", other),
        "a key removed": lambda d: d.pop("c"),
        "a key that had to be missing added": lambda d: d.__setitem__("absent", other),
        "the list compared by value changed": lambda d: d["items"].append(3),
    }
    for name, change in changes.items():
        d = kind(list) if kind is defaultdict else kind()
        d.update(a=a, b=b, c=c, items=[1, 2])
        guards = [dict_guard(d, k, d[k]) for k in ("a", "b", "c", "items")] + [dict_guard(d, "absent", MISSING)]
        holds = compile_guards(guards)
        assert holds() and check_guards(guards) is None
        change(d)
        assert not holds(), name
        assert check_guards(guards) is not None, name
        if name == "a key removed":
            assert "c" not in d  # the check read the dict without making a default for the missing key


def test_guards_on_several_dicts_and_closure_cells():
    first, second = {"w": _Value(), "b": _Value()}, {"w": _Value()}
    cell = _closure_cell(_Value())
    guards = [
        dict_guard(first, "w", first["w"]),
        dict_guard(second, "w", second["w"]),
        cell_guard(cell, cell.cell_contents),
    ]
    guards.append(dict_guard(first, "b", first["b"]))
    holds = compile_guards(guards)
    assert holds()
    second["w"] = _Value()  # the one guard on its dict (not grouped)
    assert not holds() and check_guards(guards) == "attribute 'w' changed"
    second["w"] = guards[1][3]
    assert holds()
    cell.cell_contents = _Value()
    assert not holds() and check_guards(guards) == "a closure variable changed"
    cell.cell_contents = guards[2][3]
    first["b"] = _Value()  # one of the two grouped guards
    assert not holds()


def test_no_guards_hold():
    assert compile_guards([])()
