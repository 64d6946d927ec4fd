"""Write metric_goldens_mindspore.json: MindSpore 2.10's results for the cases of metric_cases.py.
Run: /tmp/msvenv/bin/python tests/train/make_metric_goldens_mindspore.py"""

import json
import os
import sys

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn, train

sys.path.insert(0, os.path.dirname(__file__))
from metric_cases import CASES  # noqa: E402


def _plain(v):
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, np.generic):
        return v.item()
    return v


def main():
    out = {case.__name__: _plain(case(train, nn, Tensor)) for case in CASES}
    path = os.path.join(os.path.dirname(__file__), "metric_goldens_mindspore.json")
    with open(path, "w") as f:
        json.dump({"mindspore": ms.__version__, "cases": out}, f, allow_nan=True)


if __name__ == "__main__":
    main()
