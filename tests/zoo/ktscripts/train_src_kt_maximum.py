"""train_src_kt.py's DKT in PyNative with the MLP's LeakyReLU written as ops.maximum(x, x * alpha), as Kiln ran it
before 5f045b7: the Maximum primitive's derivative behind a BatchNorm whose output XLA recomputes.

A MindSpore script: run it with `kiln run` (MindSpore gives train_src_kt.py's numbers). Prints what train_src_kt.py
prints for PYNATIVE_MODE DKT.
"""

import os
import sys

from mindspore import nn, ops

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import train_src_kt  # noqa: E402


def _maximum_leaky_relu(self, x):
    return ops.maximum(x, x * self.alpha)


if __name__ == "__main__":
    nn.LeakyReLU.construct = _maximum_leaky_relu
    train_src_kt.main("PYNATIVE_MODE", "DKT")
