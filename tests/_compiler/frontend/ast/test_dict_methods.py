"""Dict methods in graph mode as a user sees them: `dict.has_key(key)`, which MindSpore's graph syntax documents
(Python 3 dicts lack it, so PyNative raises AttributeError as Python does)."""

from __future__ import annotations

import pytest

from tests._compiler.frontend.ast.modes import compiled


def _has_keys():
    d = {"a": 1, True: [2, 3]}
    return d.has_key("a"), d.has_key("c"), d.has_key(True)


@pytest.mark.parametrize("mode", ["graph", "jit"])
def test_dict_has_key_in_graph_mode(mode):
    assert compiled(mode, _has_keys)() == (True, False, True)


def test_dict_has_key_is_pythons_attribute_error_in_pynative():
    with pytest.raises(AttributeError, match="has_key"):
        _has_keys()
