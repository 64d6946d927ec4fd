"""Every optimizer and optimizer primitive against MindSpore 2.10 bit for bit, three float32 steps, in PyNative,
GRAPH_MODE and (the optimizers) inside a GRAPH_MODE TrainOneStepCell, where XLA fuses the update with the rest of the
step. MindSpore's scalar CPU loops round each product, its compiled vector loops fuse some into multiply-adds, and a
few lines run in double. XLA's optimised CPU code fuses `a + b * c` wherever it can and its quick tier (LLVM at -O0)
never does, so kiln/_prims/state.py spells each kernel's rounding out: `_mul` holds a product rounded, `_fma` rounds a
multiply-add once in every tier. The same bits hold in the quick tier (`KILN_TIERED=quick`, run in a process of its
own). Goldens: make_optim_rounding_goldens_mindspore.py."""

import base64
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import kiln
from tests.nn.optim_rounding_cases import NN_CASES, OP_CASES, run

with open(os.path.join(os.path.dirname(__file__), "optim_rounding_goldens_mindspore.json")) as _f:
    GOLDENS = {k: np.frombuffer(base64.b64decode(v), np.float32) for k, v in json.load(_f)["cases"].items()}

# MindSpore 2.10's CPU ApplyMomentum ignores use_nesterov (its nn.Momentum(use_nesterov=True) equals the plain one
# bit for bit); Kiln keeps the documented Nesterov step, checked against float64 in test_optim.py.
# Its CPU ApplyFtrl also moves var away from 0 by l1 / quad where linear < 0, where Kiln keeps FTRL-Proximal's
# sign(linear) l1 (the case with l1 > 0 is in the mode test only).
SKIP = {"Momentum_nesterov", "FTRL_l1_l2_power"}

CASES = [(name, mode) for name in NN_CASES if name not in SKIP for mode in ("pynative", "graph", "train")]
CASES += [(name, mode) for name in OP_CASES for mode in ("pynative", "graph")]


@pytest.mark.parametrize(("name", "mode"), CASES, ids=[f"{n}-{m}" for n, m in CASES])
def test_update_equals_mindspore(name, mode):
    got = run(kiln, name, mode).reshape(-1)
    differ = np.flatnonzero(got.view(np.int32) != GOLDENS[name].view(np.int32))
    assert differ.size == 0, f"{differ.size} of {got.size} elements differ, first {differ[:5]}"


@pytest.mark.parametrize("name", list(NN_CASES))
def test_every_mode_updates_the_same_bits(name):
    """GRAPH_MODE and a GRAPH_MODE TrainOneStepCell step give PyNative's bits, for the optimizers whose MindSpore bits
    Kiln does not follow too."""
    pynative = run(kiln, name, "pynative").reshape(-1)
    for mode in ("graph", "train"):
        got = run(kiln, name, mode).reshape(-1)
        differ = np.flatnonzero(got.view(np.int32) != pynative.view(np.int32))
        assert differ.size == 0, f"{mode}: {differ.size} of {got.size} elements differ from PyNative's"


@pytest.fixture(scope="module")
def quick_tier_bits(tmp_path_factory):
    """Every case's final parameter with every whole program run in its quick tier: {"NAME-MODE": float32 array}."""
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, KILN_TIERED="quick", KILN_CACHE_DIR=str(tmp_path_factory.mktemp("quick_tier_cache")))
    env["PYTHONPATH"] = repo + os.pathsep + os.environ.get("PYTHONPATH", "")
    cmd = [sys.executable, "-m", "tests.nn.print_optim_rounding_bits"]
    proc = subprocess.run(cmd, cwd=repo, env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return {k: np.frombuffer(base64.b64decode(v), np.float32) for k, v in json.loads(proc.stdout).items()}


# nn.Adam's moment updates still leave their multiply-adds to XLA (kiln/_prims/state.py `_adam` says why): its quick
# tier rounds them twice, 43-57 of 512 elements off MindSpore's bits
QUICK_TIER_GAP = {"Adam", "Adam_nesterov", "Adam_wd", "LazyAdam"}
QUICK_CASES = [
    pytest.param(n, m, marks=pytest.mark.xfail(strict=True, reason="Adam's moments in the quick tier"))
    if n in QUICK_TIER_GAP
    else (n, m)
    for n, m in CASES
]


@pytest.mark.parametrize(("name", "mode"), QUICK_CASES, ids=[f"{n}-{m}" for n, m in CASES])
def test_the_quick_tier_updates_mindspores_bits(quick_tier_bits, name, mode):
    """A GRAPH_MODE step or a large PyNative window runs its quick tier first: the first steps of a training run must
    give the bits the optimised tier gives (Adam's, RMSProp's and AdamWeightDecay's multiply-adds were 15-127 of 512
    elements off when `_fma` relied on LLVM contracting them, which the quick tier does not)."""
    got = quick_tier_bits[f"{name}-{mode}"]
    differ = np.flatnonzero(got.view(np.int32) != GOLDENS[name].view(np.int32))
    assert differ.size == 0, f"{differ.size} of {got.size} elements differ, first {differ[:5]}"
