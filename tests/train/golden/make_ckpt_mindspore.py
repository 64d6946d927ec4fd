"""Writes golden.ckpt and golden.safetensors with real MindSpore (run with /work/msenv/bin/python).

    /work/msenv/bin/python tests/train/golden/make_ckpt_mindspore.py

The Kiln tests load these files and compare with `golden_values()`.
"""

import os
import sys

import mindspore as ms
from mindspore import Parameter, Tensor, nn

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from golden_values import APPEND, golden_values  # noqa: E402


class Golden(nn.Cell):
    def __init__(self):
        super().__init__()
        values = golden_values()
        for name, value in values.items():
            if "." not in name:
                setattr(self, name, Parameter(Tensor(value), name=name, requires_grad=value.dtype.kind == "f"))
        self.fc = nn.Dense(3, 4)
        self.fc.weight.set_data(Tensor(values["fc.weight"]))
        self.fc.bias.set_data(Tensor(values["fc.bias"]))


def main():
    net = Golden()
    names = [name for name, _ in net.parameters_and_names()]
    assert names == list(golden_values()), names
    ms.save_checkpoint(net, os.path.join(HERE, "golden.ckpt"), append_dict=dict(APPEND))
    ms.save_checkpoint(net, os.path.join(HERE, "golden.safetensors"), format="safetensors")
    print("wrote golden.ckpt and golden.safetensors with MindSpore", ms.__version__)


if __name__ == "__main__":
    main()
