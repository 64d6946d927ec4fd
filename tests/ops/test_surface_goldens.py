"""The ops-surface names (Segment*, ...) against MindSpore 2.10's outputs on the cases of surface_cases.py: same
dtype, shape and values (float32 to 1e-6 relative), or the same class of error (Kiln's message is its own)."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import kiln
from tests.ops.surface_cases import CASES, run

with open(os.path.join(os.path.dirname(__file__), "surface_goldens_mindspore.json")) as _f:
    GOLDENS = json.load(_f)["cases"]


def _compare(got: dict, want: dict, where: str) -> None:
    if "error" in want or "error" in got or "built" in want:
        assert got == want, f"{where}: Kiln {got}, MindSpore {want}"
    elif "outputs" in want:
        assert len(got["outputs"]) == len(want["outputs"]), where
        for i, (g, w) in enumerate(zip(got["outputs"], want["outputs"])):
            _compare(g, w, f"{where}[{i}]")
    else:
        assert (got["dtype"], got["shape"]) == (want["dtype"], want["shape"]), where
        assert got.get("nonfinite") == want.get("nonfinite"), f"{where}: NaN/inf positions differ"
        np.testing.assert_allclose(np.array(got["value"]), np.array(want["value"]), rtol=1e-6, atol=1e-6,
                                   err_msg=where)  # fmt: skip


@pytest.mark.parametrize("name", sorted(CASES))
def test_against_mindspore(name: str) -> None:
    """Kiln's output of the case equals MindSpore's golden."""
    _compare(run(kiln, name), GOLDENS[name], name)


def test_goldens_cover_every_case() -> None:
    """Every case has a golden (re-run make_surface_goldens_mindspore.py after adding one)."""
    assert sorted(GOLDENS) == sorted(CASES)
