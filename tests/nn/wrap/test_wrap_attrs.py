"""The wrapper and training cells' public attributes, children and printed form, and the names of Parameters no
Cell names, checked against MindSpore 2.10 (wrap_attr_goldens_mindspore.json, written by
make_wrap_attr_goldens_mindspore.py from wrap_attr_cases.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.nn.wrap import wrap_attr_cases

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "wrap_attr_goldens_mindspore.json")) as f:
    GOLDEN_FILE = json.load(f)
GOLDEN = GOLDEN_FILE["cases"]
CELL_CASES = sorted(k for k in GOLDEN if "attrs" in GOLDEN[k])


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
RUN_CASES = """
import json, sys
import kiln
from tests.nn.wrap import wrap_attr_cases
print(json.dumps(wrap_attr_cases.run(kiln, json.loads(sys.argv[1]))))
"""


def _in_fresh_process(script: str, *args: str) -> str:
    """What `script` prints, run by a new Python on this tree (the data-parallel cases call communication.init()
    and set the parallel context, which must not outlive them)."""
    env = {**os.environ, "PYTHONPATH": ROOT}
    out = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, env=env, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


@pytest.fixture(scope="module")
def mine():
    wanted = {case: list(GOLDEN[case]["attrs"]) for case in CELL_CASES}
    return json.loads(_in_fresh_process(RUN_CASES, json.dumps(wanted)).splitlines()[-1])


@pytest.mark.parametrize("case", CELL_CASES)
def test_wrapper_attributes_match_mindspore(case, mine):
    # A zoo train cell subclasses these and reads what MindSpore's __init__ set (self.grad_reducer as a Cell,
    # self.loss_scaling_manager, self.hyper_map...): every attribute MindSpore sets exists with its type and value.
    want, got = GOLDEN[case], mine[case]
    assert "error" not in got, got
    diff = {a: (w, got["attrs"].get(a)) for a, w in want["attrs"].items() if got["attrs"].get(a) != w}
    assert not diff, diff


@pytest.mark.parametrize("case", CELL_CASES)
@pytest.mark.parametrize("what", ["cells_and_names", "name_cells", "trainable_params"])
def test_wrapper_children_match_mindspore(case, what, mine):
    # grad_reducer is a Cell (nn.Identity, or DistributedGradReducer in data-parallel mode), as in MindSpore
    assert mine[case][what] == GOLDEN[case][what]


@pytest.mark.parametrize("case", CELL_CASES)
def test_wrapper_printed_form_matches_mindspore(case, mine):
    # MindSpore 2.10's layout (`Name(` ... `)`; Kiln printed `Name<` ... `>`). Dense's details keep the constructor's
    # argument names (`in_channels`), where MindSpore 2.10 prints `input_channels`.
    want = GOLDEN[case]["repr"].replace("input_channels=", "in_channels=").replace("output_channels=", "out_channels=")
    assert mine[case]["repr"] == want


@pytest.mark.parametrize("what", sorted(GOLDEN["unnamed parameters"]))
def test_unnamed_parameter_names_match_mindspore(what, mine):
    # MindSpore numbers a Parameter made without a name `Parameter#N` from one count per process, and renames it
    # `Parameter$K` (K counting per Cell) when a Cell registers it in a ParameterTuple; Kiln named them all
    # `Parameter`, so a checkpoint saved from a list of them held one key twice.
    assert mine["unnamed parameters"][what] == GOLDEN["unnamed parameters"][what]


def test_the_first_unnamed_parameter_of_a_process_is_named_as_in_mindspore():
    # MindSpore's import makes two unnamed Parameters (its default generator's state), so a script's first is
    # `Parameter#2`; a checkpoint saved from a list of unnamed Parameters then has MindSpore's keys
    out = _in_fresh_process(wrap_attr_cases.FRESH_PROCESS_FIRST_NAME.format(ms="kiln"))
    assert out.split()[-1] == GOLDEN_FILE["fresh process first unnamed Parameter"]
