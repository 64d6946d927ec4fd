"""Writes prefix_load_goldens_mindspore.json: what MindSpore 2.10's `load_param_into_net` returns and loads for each
case of prefix_load_cases.py.

    /work/msvenv/bin/python tests/train/golden/make_prefix_load_goldens_mindspore.py
"""

import json
import os
import sys

import mindspore as ms
import numpy as np
from mindspore import Parameter, Tensor, nn

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from prefix_load_cases import CASES, NAMES  # noqa: E402


class Pair(nn.Cell):
    def __init__(self):
        super().__init__()
        self.weight = Parameter(Tensor(np.zeros(2, np.float32)), name="weight")
        self.bias = Parameter(Tensor(np.zeros(2, np.float32)), name="bias")


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = Pair()
        self.conv = Pair()


if __name__ == "__main__":
    goldens = {}
    for case, (entries, strict) in CASES.items():
        net = Net()
        assert tuple(p.name for p in net.get_parameters()) == NAMES
        ckpt = {k: Parameter(Tensor(np.full(2, v, np.float32)), name=k) for k, v in entries.items()}
        param_not_load, ckpt_not_load = ms.load_param_into_net(net, ckpt, strict_load=strict)
        values = {p.name: float(p.asnumpy()[0]) for p in net.get_parameters()}
        goldens[case] = {"param_not_load": param_not_load, "ckpt_not_load": ckpt_not_load, "values": values}
    with open(os.path.join(HERE, "prefix_load_goldens_mindspore.json"), "w") as f:
        json.dump({"mindspore": ms.__version__, "cases": goldens}, f, indent=1)
