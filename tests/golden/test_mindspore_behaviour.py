"""Kiln against MindSpore 2.10's recorded behaviour (tests/golden/mindspore_behaviour.json).

The JSON was written by make_goldens_mindspore.py running real MindSpore; each probe is
a small Python expression evaluated here with `ms` standing for `kiln`. Dtypes compare
case-insensitively (the display spelling is tested in tests/core). Every probe is replayed: where MindSpore
raised, Kiln must raise the corresponding exception type too (none is dropped).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

import kiln
from kiln import Tensor, nn, ops

GOLDEN = json.loads((Path(__file__).parent / "mindspore_behaviour.json").read_text())
SCOPE = {"np": np, "ms": kiln, "ops": ops, "nn": nn, "Tensor": Tensor}


def _run(source: str):
    return eval(source, dict(SCOPE))  # the probe sources are the ones MindSpore ran


def _same_dtype(got, want: str) -> bool:
    return str(got).lower() == want.lower()


def _check(got, want: dict, where: str) -> None:
    """Compare a Kiln result with a recorded MindSpore result description."""
    if "tuple" in want:
        assert isinstance(got, (tuple, list)), f"{where}: MindSpore returned a tuple, Kiln {type(got).__name__}"
        assert len(got) == len(want["tuple"]), f"{where}: {len(got)} results, MindSpore {len(want['tuple'])}"
        for k, (g, w) in enumerate(zip(got, want["tuple"])):
            _check(g, w, f"{where}[{k}]")
        return
    assert isinstance(got, Tensor), f"{where}: expected a Tensor, got {type(got).__name__}"
    assert _same_dtype(got.dtype, want["dtype"]), f"{where}: dtype {got.dtype}, MindSpore {want['dtype']}"
    assert list(got.shape) == want["shape"], f"{where}: shape {list(got.shape)}, MindSpore {want['shape']}"
    if "value" in want:
        np.testing.assert_allclose(got.asnumpy().astype(np.float64), np.array(want["value"]), rtol=1e-6, err_msg=where)


# Where MindSpore 2.10 is plainly wrong Kiln deliberately differs; each such probe states
# what Kiln gives instead, and that is checked in place of the recording.
DELIBERATE = {
    ("creation", "full_float"): (
        "MindSpore 2.10 truncates the fill value 1.5 to an int64 1; Kiln keeps it (float32 1.5)",
        {"dtype": "Float32", "shape": [2, 2], "value": [[1.5, 1.5], [1.5, 1.5]]},
    ),
}


KINDS = ("tensor_dtype", "promotion", "scalar_promotion", "reduction", "index_dtype", "creation", "error")


def _cases(kind: str):
    """Every recorded probe of `kind`: those MindSpore answered and those where it raised."""
    out = []
    for e in GOLDEN[kind]:
        if (kind, e["id"]) in DELIBERATE:
            e = {k: v for k, v in e.items() if k != "error"} | {"ok": DELIBERATE[(kind, e["id"])][1]}
        out.append(pytest.param(e, id=e["id"]))
    return out


# MindSpore reports some errors from its kernel layer as RuntimeError (a shape mismatch, a dtype without a CPU
# kernel); Kiln checks before running and raises ValueError or TypeError, which is what the rest of MindSpore uses.
_ACCEPTED = {"ValueError": (ValueError,), "TypeError": (TypeError,), "IndexError": (IndexError,),
             "RuntimeError": (ValueError, TypeError)}  # fmt: skip


def _replay(entry) -> None:
    """What MindSpore did, Kiln does: the same result, or an exception of the corresponding type."""
    if "ok" in entry:
        _check(_run(entry["source"]), entry["ok"], entry["source"])
        return
    with pytest.raises(_ACCEPTED[entry["error"]]) as info:
        _run(entry["source"])
    assert type(info.value).__name__ != "XlaRuntimeError"


def test_every_recorded_probe_is_replayed():
    assert {k for k, v in GOLDEN.items() if isinstance(v, list)} == set(KINDS)
    for kind in KINDS:
        assert len(_cases(kind)) == len(GOLDEN[kind]) > 0, kind


def test_golden_was_made_by_mindspore_2_10():
    assert GOLDEN["mindspore_version"].startswith("2.10")


@pytest.mark.parametrize("entry", _cases("tensor_dtype"))
def test_tensor_dtype_inference(entry):
    _replay(entry)


@pytest.mark.parametrize("entry", _cases("promotion"))
def test_binary_promotion(entry):
    _replay(entry)


@pytest.mark.parametrize("entry", _cases("scalar_promotion"))
def test_python_scalar_promotion(entry):
    _replay(entry)


@pytest.mark.parametrize("entry", _cases("reduction"))
def test_reduction_output(entry):
    _replay(entry)


@pytest.mark.parametrize("entry", _cases("index_dtype"))
def test_index_returning_ops(entry):
    _replay(entry)


@pytest.mark.parametrize("entry", _cases("creation"))
def test_creation_ops(entry):
    _replay(entry)


@pytest.mark.parametrize("entry", _cases("error"))
def test_error_types(entry):
    _replay(entry)  # MindSpore accepted some of these: so must Kiln


# ---- default parameters of nn layers ------------------------------------------------------------
LAYERS = GOLDEN["layers"]


def _layer_net():
    scope = {"nn": nn}
    exec(
        "class Net(nn.Cell):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.fc = nn.Dense(3, 4)\n"
        "        self.fc_nobias = nn.Dense(3, 4, has_bias=False)\n"
        "        self.conv = nn.Conv2d(3, 8, 3)\n"
        "        self.conv_bias = nn.Conv2d(3, 8, (3, 5), has_bias=True)\n"
        "        self.bn = nn.BatchNorm2d(8)\n"
        "    def construct(self, x):\n"
        "        return x\n",
        scope,
    )
    return scope["Net"]()


def test_layer_parameters_match_mindspore():
    kiln.set_seed(0)
    got = {name: p for name, p in _layer_net().parameters_and_names()}
    want = {p["name"]: p for p in LAYERS["parameters"]}
    assert sorted(got) == sorted(want)
    for name, w in want.items():
        p = got[name]
        assert list(p.shape) == w["shape"], name
        assert _same_dtype(p.dtype, w["dtype"]), name
        assert p.requires_grad == w["requires_grad"], name
        if w["all_equal_to"] is not None:
            np.testing.assert_array_equal(p.asnumpy(), w["all_equal_to"], err_msg=name)
        else:
            assert np.unique(p.asnumpy()).size > 1, f"{name} should be randomly initialised"


def test_trainable_params_order_matches_mindspore():
    kiln.set_seed(0)
    assert [p.name for p in _layer_net().trainable_params()] == LAYERS["trainable"]


@pytest.mark.parametrize("key", sorted(LAYERS["init_stats"]))
def test_default_initialiser_statistics(key):
    want = LAYERS["init_stats"][key]
    kiln.set_seed(1)
    layer = eval(want["layer"], {"nn": nn})
    arr = getattr(layer, want["param"]).asnumpy().astype(np.float64)
    assert list(arr.shape) == want["shape"]
    n = arr.size
    # Sampling noise of a std estimate is about std / sqrt(2n); allow 5 of those, plus 2%.
    rel = 5 / math.sqrt(2 * n) + 0.02
    assert arr.std() == pytest.approx(want["std"], rel=rel), f"std {arr.std():.5f}, MindSpore {want['std']:.5f}"
    assert abs(arr.mean()) < 5 * want["std"] / math.sqrt(n) + 1e-7
    if n >= 1000:  # the range of a large sample shows the distribution's support
        ms_bound = max(abs(want["min"]), abs(want["max"]))
        assert np.abs(arr).max() <= ms_bound * 1.1
        assert np.abs(arr).max() >= ms_bound * 0.8
