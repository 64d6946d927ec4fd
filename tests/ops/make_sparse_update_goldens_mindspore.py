"""Write sparse_update_goldens_mindspore.json for test_sparse_updates.py: MindSpore 2.10's SparseApplyAdagrad and
FusedSparse{Ftrl,ProximalAdagrad,LazyAdam,Adam} (a repeated index's gradients summed, each row updated once; only
FusedSparseAdam moves the rows no index names) and SparseApplyFtrl and SparseApplyRMSProp (each index in turn) on the cases of
sparse_update_cases.py. SparseApplyAdagradV2 is left out: MindSpore 2.10's CPU kernel visits a repeated index's
rows in an order that changes between runs (two runs of the same call gave 0.8193 and 0.7543).
Run: /work/msvenv/bin/python tests/ops/make_sparse_update_goldens_mindspore.py"""

import json
import os
import sys

import mindspore as ms

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sparse_update_cases import run  # noqa: E402

if __name__ == "__main__":
    ms.set_context(mode=ms.PYNATIVE_MODE)
    ops = ("SparseApplyAdagrad", "SparseApplyFtrl", "SparseApplyRMSProp", "FusedSparseFtrl", "FusedSparseProximalAdagrad",
           "FusedSparseLazyAdam", "FusedSparseAdam")  # fmt: skip
    out = {op: run(ms, op) for op in ops}
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "sparse_update_goldens_mindspore.json"), "w") as f:
        json.dump({"mindspore": ms.__version__, "cases": out}, f)
        f.write("\n")
