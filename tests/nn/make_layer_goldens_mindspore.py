"""Write layer_goldens_mindspore.json: MindSpore 2.10's outputs for the cases of layer_cases.py.
Run: /tmp/msvenv/bin/python tests/nn/make_layer_goldens_mindspore.py"""

import json
import os
import sys

import mindspore as ms
import numpy as np
from mindspore import nn

sys.path.insert(0, os.path.dirname(__file__))
from layer_cases import CASES  # noqa: E402


def _plain(v):
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, (np.ndarray, np.generic)):
        return {"shape": list(np.shape(v)), "data": np.asarray(v, np.float64).reshape(-1).tolist()}
    return v


def main():
    out = {}
    for case in CASES:
        # MindSpore 2.10's SSIM, MSSSIM and PSNR fail in PyNative (ScalarCast rejects float32); graph mode runs them.
        graph = case.__name__ in ("ssim", "msssim", "psnr")
        ms.set_context(mode=ms.GRAPH_MODE if graph else ms.PYNATIVE_MODE, save_graphs=False)
        out[case.__name__] = _plain(case(ms, nn))
    with open(os.path.join(os.path.dirname(__file__), "layer_goldens_mindspore.json"), "w") as f:
        json.dump({"mindspore": ms.__version__, "cases": out}, f)


if __name__ == "__main__":
    main()
