"""Every parameter of a public function or method is read by its body, or the allowlist says why it cannot
change a result (tools/unused_params.py; issue 20: an argument accepted and silently ignored)."""

from __future__ import annotations

import pytest

from tools import unused_params


def test_every_public_parameter_is_read_or_allowed():
    missing, _, stale = unused_params.check()
    assert not missing, "public parameters never read (implement, refuse or warn; see tools/unused_params.py):\n" + (
        "\n".join(missing)
    )
    assert not stale, f"allowlist entries that match nothing: {stale}"


def test_the_check_finds_an_unread_parameter():
    source = "def f(a, b, *, c=1, **rest):\n    def inner():\n        return c\n    return a + inner()\n"
    assert unused_params.unread_parameters_in_source(source, "f") == ["b", "rest"]
    method = "def m(self, x, y):\n    return x\n"
    assert unused_params.unread_parameters_in_source(method, "m", method=True) == ["y"]


def test_refusals_interfaces_and_locals_readers_are_not_reported():
    refused = "def f(a):\n    raise NotImplementedError('no')\n"
    reads_all = "def f(a, b):\n    return dict(locals())\n"
    assert unused_params.unread_parameters_in_source(refused, "f") == []
    assert unused_params.unread_parameters_in_source(reads_all, "f") == []


def test_an_allowlist_entry_needs_a_reason(tmp_path):
    bad = tmp_path / "allow.txt"
    bad.write_text("kiln.ops.f:x\n")
    with pytest.raises(ValueError, match="gives no reason"):
        unused_params.read_allowlist(bad)
