"""`kiln.dataset.transforms`, `.text` and `.audio` ops against MindSpore 2.10 goldens.

Cases: tests/dataset/op_cases.py; goldens: tests/dataset/make_goldens_ops.py (run under MindSpore's environment).
"""

import importlib
import json
import os
import types

import numpy as np
import pytest

import kiln as ms
from tests.dataset import op_cases

HERE = os.path.join(os.path.dirname(__file__), "goldens")
GOLD = np.load(os.path.join(HERE, "ops.npz"))
with open(os.path.join(HERE, "ops_errors.json")) as f:
    ERRORS = json.load(f)


def _namespace():
    mods = {}
    for short, name in (("T", "transforms"), ("text", "text"), ("audio", "audio")):
        try:
            mods[short] = importlib.import_module(f"kiln.dataset.{name}")
        except ImportError:
            mods[short] = None
    return types.SimpleNamespace(ms=ms, **mods)


M = _namespace()
# MindSpore 2.10 refuses 1-D input to Unique (it asks for rank >= 2); Kiln flattens any rank >= 1.
TOLERANCE = {}  # case -> (rtol, atol) where float results are not bit-identical


def _cases():
    for group, cases in op_cases.ALL.items():
        for name in cases:
            yield pytest.param(group, name, id=f"{group}/{name}")


@pytest.mark.parametrize(("group", "name"), list(_cases()))
def test_op_matches_mindspore(group, name):
    build, inputs = op_cases.ALL[group][name]
    got = op_cases.run_case(build, inputs, M)
    for key, value in got.items():
        full = f"{group}/{name}{key}"
        if full in ERRORS:
            assert value == "!" + ERRORS[full], f"{full}: MindSpore raises {ERRORS[full]}, Kiln gave {value!r}"
            continue
        assert not isinstance(value, str), f"{full}: Kiln raised {value[1:]}, MindSpore returned a value"
        want = GOLD[full]
        assert value.shape == want.shape, full
        if want.dtype.kind in "US":
            assert value.astype(str).tolist() == want.astype(str).tolist(), full
            continue
        assert value.dtype == want.dtype, f"{full}: dtype {value.dtype} != {want.dtype}"
        # Audio ops compute in float64 and round to the input dtype; MindSpore computes some in float32.
        default = (1e-4, 1e-5) if group == "audio" else (0, 0)
        rtol, atol = TOLERANCE.get(f"{group}/{name}", default)
        np.testing.assert_allclose(value, want, rtol=rtol, atol=atol, err_msg=full)
    assert len(got) == sum(
        1
        for k in [*GOLD.files, *ERRORS]
        if k.startswith(f"{group}/{name}") and k[len(group) + 1 + len(name) :][:1] in ("", "#")
    ), name


@pytest.mark.parametrize(("group", "name"), [(g, n) for g, cases in op_cases.ALL_BUILD_ERRORS.items() for n in cases])
def test_build_errors_match_mindspore(group, name):
    assert op_cases.build_error(op_cases.ALL_BUILD_ERRORS[group][name], M) == ERRORS[f"{group}/build/{name}"]
