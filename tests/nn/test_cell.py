"""Cell attribute registration and container rules, checked against MindSpore 2.10 (cell_goldens_mindspore.json)."""

from __future__ import annotations

import json
import os

import kiln
from tests.nn import cell_cases

HERE = os.path.dirname(os.path.abspath(__file__))


def test_cell_rules_match_mindspore():
    with open(os.path.join(HERE, "cell_goldens_mindspore.json")) as f:
        golden = json.load(f)["cases"]
    mine = cell_cases.run(kiln)
    assert mine == golden
