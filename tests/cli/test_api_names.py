"""MindSpore 2.10's public names (tools/api_names/mindspore_names.json: each module's `__all__` that MindSpore itself
defines) resolve under `kiln run`'s alias, but for the ones tools/api_names/kiln_missing.json lists: a name that goes
missing, or a listed one that starts resolving, fails this test, so that the list and its figures stay true
(`python -m tools.api_names check` rewrites it)."""

import json

from tools.api_names import __main__ as api_names


def test_missing_names_are_exactly_the_listed_ones():
    mindspore = {m: v for m, v in json.loads(api_names.MINDSPORE_NAMES.read_text()).items() if v}
    listed = json.loads(api_names.KILN_MISSING.read_text())
    missing = api_names.missing_names(mindspore)
    assert {m: sorted(set(v) - set(listed[m])) for m, v in missing.items() if set(v) - set(listed[m])} == {}
    assert {m: sorted(set(listed[m]) - set(v)) for m, v in missing.items() if set(listed[m]) - set(v)} == {}


def test_report_counts_names_per_module():
    text = api_names.report({"mindspore.x": ["a", "b", "c", "d"]}, {"mindspore.x": ["d"]})
    assert "mindspore.x" in text and "3 /     4  ( 75.0%)" in text and "lacks 1: d" in text
