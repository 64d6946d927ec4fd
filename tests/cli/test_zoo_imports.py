"""Every `mindspore` import pair of the model zoo that MindSpore 2.10 accepts resolves under `kiln run`'s alias.

The pairs and MindSpore's verdicts are the ones `python -m tools.zoo_imports` saved (tools/zoo_imports/). The pairs
listed in `STILL_MISSING` do not resolve yet, each for the reason given; a stand-in that raises NotImplementedError
when used counts as resolving, and those are listed in `UNAVAILABLE` so that their number only grows on purpose.
"""

import json
import os
import sys

from tools.zoo_imports import check

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

STILL_MISSING = {
    "mindspore._c_expression:init_exec_dataset": "MindSpore's C++ executor binding",
    "mindspore.common.api:cells_compile_cache": "MindSpore's graph-executor cache dict (keyed by its Cells' caches)",
    "mindspore.train.serialization:Validator": "MindSpore's internal argument validator class",
}
UNAVAILABLE = {
    "mindspore.boost:GradientAccumulation",
    "mindspore.nn.optim:thor",
    "mindspore.ops.operations:NPUAllocFloatStatus",
    "mindspore.ops.operations:NPUClearFloatStatus",
    "mindspore.ops.operations:NPUGetFloatStatus",
    "mindspore.train.serialization:build_searched_strategy",
}


def _valid_pairs() -> list[list]:
    scan = json.loads(check.PAIRS_FILE.read_text())
    verdicts = json.loads(check.MINDSPORE_VERDICTS.read_text())
    return [[m, n] for m, n, _ in scan["pairs"] if verdicts[check.pair_key(m, n)] == "ok"]


def test_saved_pairs_are_the_zoo_scan():
    pairs = _valid_pairs()
    assert len(pairs) == 379  # mindspore-ai/models at eab643f513 against MindSpore 2.10.0
    assert set(STILL_MISSING) <= {check.pair_key(m, n) for m, n in pairs}


def test_every_valid_zoo_pair_resolves_under_the_alias_but_those_listed_missing():
    pairs = _valid_pairs()
    verdicts = check.probe(sys.executable, pairs, kiln_root=REPO)  # one subprocess, as `kiln run` imports
    failing = {check.pair_key(*p): v for p, v in zip(pairs, verdicts, strict=True) if v != "ok"}
    unavailable = {key for key, v in failing.items() if v.startswith("unavailable:")}
    # a listed pair that resolves now must leave the list (it went stale for 9 pairs before session 22)
    assert set(failing) - unavailable == set(STILL_MISSING)
    assert unavailable == UNAVAILABLE


def test_share_of_resolving_pairs_meets_the_target():
    pairs = _valid_pairs()
    resolving = len(pairs) - len(STILL_MISSING)
    assert resolving / len(pairs) >= 0.97  # issue 21's figure


def test_probe_reports_missing_names_and_stand_ins():
    verdicts = check.probe(
        sys.executable,
        [["mindspore.parallel._utils", "_get_device_num"], ["mindspore.parallel", "no_such_name"],
         ["mindspore.nn.optim", "thor"], ["mindspore.no_such_module", None]],
        kiln_root=REPO,
    )  # fmt: skip
    assert verdicts[0] == "ok"
    assert verdicts[1].startswith("ModuleNotFoundError")
    assert verdicts[2].startswith("unavailable: ")
    assert verdicts[3].startswith("ModuleNotFoundError")
