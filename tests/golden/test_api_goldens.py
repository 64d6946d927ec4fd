"""Kiln against MindSpore 2.10's results for the API of issue 10 (tests/golden/api_goldens.json).

make_api_goldens_mindspore.py ran each probe on MindSpore; here the same source runs with `ms` standing for
`kiln`. Values compare to float32 tolerance, dtypes case-insensitively; a probe where MindSpore raised must
raise the same exception type in Kiln.
"""

from __future__ import annotations

import builtins
import json
from pathlib import Path

import numpy as np
import pytest

import kiln
from kiln import Tensor, nn, ops
from kiln.cli import alias
from tests.golden import api_probe_functions

GOLDEN = json.loads((Path(__file__).parent / "api_goldens.json").read_text())["probes"]


def _check(got, want: dict, where: str) -> None:
    if "plain" in want:
        assert json.loads(json.dumps(got)) == want["plain"], f"{where}: {got} != MindSpore's {want['plain']}"
        return
    if "tuple" in want:
        assert isinstance(got, (tuple, list)), f"{where}: MindSpore returned a tuple, Kiln {type(got).__name__}"
        assert len(got) == len(want["tuple"]), f"{where}: {len(got)} results, MindSpore {len(want['tuple'])}"
        for k, (g, w) in enumerate(zip(got, want["tuple"])):
            _check(g, w, f"{where}[{k}]")
        return
    assert isinstance(got, Tensor), f"{where}: expected a Tensor, got {type(got).__name__}"
    assert str(got.dtype).lower() == want["dtype"].lower(), f"{where}: dtype {got.dtype}, MindSpore {want['dtype']}"
    assert list(got.shape) == want["shape"], f"{where}: shape {list(got.shape)}, MindSpore {want['shape']}"
    value = got.asnumpy()
    expected = np.array(want["value"], np.float64)
    # the absolute floor scales down with MindSpore's values: a result of tiny values (ops.eps, 1.2e-7) is held
    # relatively, where 2e-6 alone would pass any other tiny value (Kiln's eps once gave 1.2e-38)
    scale = float(np.nanmax(np.abs(expected))) if expected.size and np.isfinite(expected).any() else 1.0
    atol = min(2e-6, 1e-3 * scale) if scale > 0 else 2e-6
    np.testing.assert_allclose(np.real(value).astype(np.float64), expected, rtol=2e-5, atol=atol, err_msg=where)
    if "imag" in want:
        np.testing.assert_allclose(np.imag(value), np.array(want["imag"]), rtol=2e-5, atol=2e-6, err_msg=where)


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_probe(name):
    probe = GOLDEN[name]
    scope = {"np": np, "ms": kiln, "ops": ops, "nn": nn, "Tensor": Tensor, "fn": api_probe_functions}
    with alias.mindspore_alias():  # probes may import MindSpore's module paths
        if not probe["ok"]:
            with pytest.raises(getattr(builtins, probe["error"])):
                exec(probe["source"], scope)
            return
        exec(probe["source"], scope)
    _check(scope["out"], probe["result"], name)
