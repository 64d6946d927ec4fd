"""Write adafactor_shapes_goldens_mindspore.json: MindSpore 2.10's parameter after each case of
adafactor_shapes_cases.py, in PyNative and GRAPH_MODE (which agree bit for bit; checked here). MindSpore's CPU kernel
summed a parameter's squares in one order on the 2-core machine these come from (a probe: 2 to 16 blocks did not
match); its code splits the sum into per-thread blocks when its pool has more than one thread.
Run: /work/msvenv/bin/python tests/nn/make_adafactor_shapes_goldens_mindspore.py"""

import base64
import json
import os
import sys

import mindspore as ms
import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from adafactor_shapes_cases import SHAPES, run  # noqa: E402


def main():
    out = {}
    for shape in SHAPES:
        py, graph = run(ms, shape, "pynative"), run(ms, shape, "graph")
        assert py.dtype == np.float32 and np.array_equal(py.view(np.int32), graph.view(np.int32)), shape
        out[str(shape)] = base64.b64encode(py.tobytes()).decode()
    with open(os.path.join(os.path.dirname(__file__), "adafactor_shapes_goldens_mindspore.json"), "w") as f:
        json.dump({"mindspore": ms.__version__, "cases": out}, f, indent=0)


if __name__ == "__main__":
    main()
