"""MindSpore 2.10 goldens of vision transforms given PIL images, for tests/dataset/test_pil_images.py.

Run with MindSpore's environment from the repository root:
    /path/to/mindspore-env/bin/python tests/dataset/make_goldens_pil.py
It writes tests/dataset/goldens/pil.npz: for each case of PIL_CASES, every distinct output MindSpore gave over 16
seeds of Python's `random` (RandomColorAdjust applies its four adjustments in a random order, and some orders round
differently), as `<case>/<k>`, and the output's PIL mode as `<case>/mode`.
"""

import os
import random
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mindspore.dataset.vision as v  # noqa: E402
from pil_cases import PIL_CASES, pil_input  # noqa: E402

out = {}
for name, (make, mode) in PIL_CASES.items():
    seen = {}
    for seed in range(16):
        random.seed(seed)
        result = make(v)(pil_input(mode))
        assert result.__class__.__name__ == "Image", (name, type(result))
        seen.setdefault(np.asarray(result).tobytes(), np.asarray(result))
    for k, arr in enumerate(seen.values()):
        out[f"{name}/{k}"] = arr
    out[f"{name}/mode"] = np.array(result.mode)
np.savez_compressed(os.path.join(os.path.dirname(os.path.abspath(__file__)), "goldens", "pil.npz"), **out)
print({name: sum(k.startswith(name + "/") for k in out) - 1 for name in PIL_CASES})
