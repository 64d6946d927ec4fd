"""Every `mindspore` import pair of the model zoo that MindSpore 2.10 accepts resolves under `kiln run`'s alias, and
so does every attribute chain the zoo reads through a name bound to MindSpore (`nn.Dense`, `P.Add`).

The pairs and MindSpore's verdicts are the ones `python -m tools.zoo_imports` saved (tools/zoo_imports/). The pairs
listed in `STILL_MISSING` do not resolve yet, each for the reason given; a stand-in that raises NotImplementedError
when used counts as resolving, and those are listed in `UNAVAILABLE` so that their number only grows on purpose.
"""

import json
import os
import sys

from tools.zoo_imports import check, scan

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

_PIPELINE_HELPERS = "private gradient-accumulation helpers of MindSpore's pipeline-parallel loss scaling"
STILL_MISSING = {
    "mindspore.nn.wrap.loss_scale:grad_scale": _PIPELINE_HELPERS,
    "mindspore.nn.wrap.loss_scale:shard_grad_scale": _PIPELINE_HELPERS,
    "mindspore._c_expression:init_exec_dataset": "MindSpore's C++ executor binding",
    "mindspore.common.api:cells_compile_cache": "MindSpore's graph-executor cache dict",
    "mindspore.dataset:ds": "a module-internal alias of mindspore.dataset itself",
    "mindspore.ops.operations.comm_ops:_VirtualDataset": "MindSpore's auto-parallel dataset marker primitive",
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


STILL_MISSING_ATTRIBUTES = {
    "mindspore.dataset.ds.GeneratorDataset": "reads a module-internal alias of mindspore.dataset itself",
    "mindspore.dataset.transforms.vision.Inter.BICUBIC": "reads a module-internal alias of mindspore.dataset.vision",
    "mindspore.dataset.vision.py_transforms_util.random_crop": "a private helper of MindSpore's Python vision ops",
    "mindspore.ops.Pull": "a parameter-server primitive (Kiln has no parameter server)",
    "mindspore.ops.Push": "a parameter-server primitive (Kiln has no parameter server)",
    "mindspore.ops.operations.Pull": "a parameter-server primitive (Kiln has no parameter server)",
    "mindspore.ops.operations.Push": "a parameter-server primitive (Kiln has no parameter server)",
    "mindspore.ops.operations._inner_ops.PsROIPooling": "an Ascend-only position-sensitive ROI pooling primitive",
    "mindspore.train.serialization.Validator.check_isinstance": "MindSpore's internal argument validator class",
}
UNAVAILABLE_ATTRIBUTES = {
    "mindspore.nn.AdaSumByDeltaWeightWrapCell", "mindspore.nn.AdaSumByGradWrapCell", "mindspore.nn.thor",
    *(f"mindspore.ops.{module}{name}" for module in ("", "operations.")
      for name in ("DynamicGRUV2", "DynamicRNN", "NPUAllocFloatStatus", "NPUClearFloatStatus", "NPUGetFloatStatus")),
}  # fmt: skip


def _valid_pairs() -> list[list]:
    scan = json.loads(check.PAIRS_FILE.read_text())
    verdicts = json.loads(check.MINDSPORE_VERDICTS.read_text())
    return [[m, n] for m, n, _ in scan["pairs"] if verdicts[check.pair_key(m, n)] == "ok"]


def test_saved_pairs_are_the_zoo_scan():
    pairs = _valid_pairs()
    assert len(pairs) == 379  # mindspore-ai/models at eab643f513 against MindSpore 2.10.0
    assert set(STILL_MISSING) <= {check.pair_key(m, n) for m, n in pairs}


def test_every_valid_zoo_pair_resolves_under_the_alias():
    pairs = _valid_pairs()
    verdicts = check.probe(sys.executable, pairs, kiln_root=REPO)  # one subprocess, as `kiln run` imports
    failing = {check.pair_key(*p): v for p, v in zip(pairs, verdicts, strict=True) if v != "ok"}
    unavailable = {key for key, v in failing.items() if v.startswith("unavailable:")}
    assert {key for key in failing if key not in unavailable} == set(STILL_MISSING)  # a pair that now resolves leaves
    assert unavailable == UNAVAILABLE


def test_share_of_resolving_pairs_meets_the_target():
    pairs = _valid_pairs()
    resolving = len(pairs) - len(STILL_MISSING)
    assert resolving / len(pairs) >= 0.97  # issue 21


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


def _valid_chains() -> list[str]:
    chains = [chain for chain, _ in json.loads(check.PAIRS_FILE.read_text())["attributes"]]
    verdicts = json.loads(check.MINDSPORE_ATTRIBUTE_VERDICTS.read_text())
    return [chain for chain in chains if verdicts[chain] == "ok"]


def test_every_valid_zoo_attribute_chain_resolves_under_the_alias():
    chains = _valid_chains()
    assert len(chains) == 973  # mindspore-ai/models at eab643f513 against MindSpore 2.10.0
    verdicts = check.probe(sys.executable, chains, kiln_root=REPO, chains=True)
    failing = {chain: v for chain, v in zip(chains, verdicts, strict=True) if v != "ok"}
    unavailable = {chain for chain, v in failing.items() if v.startswith("unavailable:")}
    assert {chain for chain in failing if chain not in unavailable} == set(STILL_MISSING_ATTRIBUTES)
    assert unavailable == UNAVAILABLE_ATTRIBUTES


def test_scan_reads_the_longest_chain_through_each_bound_name():
    source = (
        "import mindspore as ms\nimport mindspore.nn as nn\nfrom mindspore.ops import operations as P\n"
        "import mindspore.dataset.engine\nfrom .local import x\n"
        "class Net(nn.Cell):\n    def f(self):\n"
        "        return P.Add()(ms.common.dtype.float32, x.y, ms.Tensor(1).shape)\n"
        "mindspore.dataset.engine.GeneratorDataset\n"
    )
    assert scan.attribute_chains_of_source(source) == {
        "mindspore.nn.Cell", "mindspore.ops.operations.Add", "mindspore.common.dtype.float32", "mindspore.Tensor",
        "mindspore.dataset.engine.GeneratorDataset",
    }  # fmt: skip


def test_probe_reads_chains_through_modules_and_attributes():
    verdicts = check.probe(
        sys.executable,
        ["mindspore.nn.Dense.construct", "mindspore.ops.operations.NoSuchPrimitive", "mindspore.nn.thor"],
        kiln_root=REPO,
        chains=True,
    )
    assert verdicts[0] == "ok"
    assert verdicts[1].startswith("AttributeError")
    assert verdicts[2].startswith("unavailable: ")
