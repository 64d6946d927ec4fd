"""Kiln against MindSpore 2.10's results for the ops, Primitive classes and Tensor methods of the ops-coverage work
(tests/golden/ops_coverage_goldens.json, written by make_ops_coverage_goldens_mindspore.py).

Each probe's source runs here with `ms` standing for `kiln`; values compare to float32 tolerance, dtypes
case-insensitively; a probe where MindSpore raised must raise the same exception type in Kiln.
"""

from __future__ import annotations

import builtins
import json
from pathlib import Path

import numpy as np
import pytest

import kiln
from kiln import Tensor, nn, ops
from tests.golden.test_api_goldens import _check

GOLDEN = json.loads((Path(__file__).parent / "ops_coverage_goldens.json").read_text())["probes"]


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_probe(name):
    probe = GOLDEN[name]
    scope = {"np": np, "ms": kiln, "ops": ops, "nn": nn, "Tensor": Tensor}
    if not probe["ok"]:
        with pytest.raises(getattr(builtins, probe["error"])):
            exec(probe["source"], scope)
        return
    exec(probe["source"], scope)
    _check(scope["out"], probe["result"], name)
