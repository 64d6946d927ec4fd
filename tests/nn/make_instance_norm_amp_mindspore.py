"""Write instance_norm_amp_mindspore.json: which inputs of MindSpore 2.10's InstanceNorm primitive a float16 Cell
casts, and the dtypes it gives, for nn.InstanceNorm2d inside a user's Cell made float16 by `to_float` (training and
inference) and by amp levels O2 and O3.

MindSpore has no CPU kernel for InstanceNorm, so the script does not run the step: it compiles it in GRAPH_MODE with
save_graphs and reads the dtypes of the InstanceNorm node from the validated IR (the graph after the casts are
inserted, before kernels are chosen). The values Kiln must give follow from them (test_amp_cells.py computes them with
NumPy: MindSpore's GPU kernel normalises in float32).

/work/msvenv/bin/python tests/nn/make_instance_norm_amp_mindspore.py
"""

import glob
import json
import os
import re
import subprocess
import sys
import tempfile

import mindspore as ms
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = ("to_float training", "to_float inference", "O2 training", "O3 training")


def one_case(case: str, ir_dir: str) -> dict:
    """Compile the case and return the InstanceNorm node's input dtypes and output dtypes."""
    ms.set_context(mode=ms.GRAPH_MODE, save_graphs=1, save_graphs_path=ir_dir)

    class Wrap(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.inorm = ms.nn.InstanceNorm2d(8)

        def construct(self, x):
            return self.inorm(x)

    how, phase = case.split()
    net = Wrap()
    if how == "to_float":
        net.to_float(ms.float16)
    else:
        net = ms.amp.auto_mixed_precision(net, how)
    net.set_train(phase == "training")
    try:
        net(ms.Tensor(np.ones((2, 8, 5, 5), np.float32)))
    except RuntimeError as e:  # no CPU kernel: the frontend's graphs are written before kernel selection
        if "InstanceNorm" not in str(e):
            raise
    (ir,) = glob.glob(os.path.join(ir_dir, "*_validate_*.ir"))
    lines = open(ir).read().splitlines()
    at = next(i for i, line in enumerate(lines) if "= InstanceNorm(" in line)
    inputs, outputs = lines[at + 1].split("->")
    dtypes = lambda text: re.findall(r"Tensor\[(\w+)\]", text)  # noqa: E731
    ret = next(i for i in range(len(lines) - 1, -1, -1) if lines[i].lstrip().startswith("Return("))
    # the InstanceNorm node's inputs, its outputs (y, then the statistics' one dtype), and what the network returns
    return {"inputs": dtypes(inputs), "outputs": dtypes(outputs), "returns": dtypes(lines[ret + 1])}


def main() -> None:
    if len(sys.argv) == 3:  # one case, in a process of its own
        print("CASE " + json.dumps(one_case(sys.argv[1], sys.argv[2])))
        return
    found = {}
    for case in CASES:
        with tempfile.TemporaryDirectory() as ir_dir:
            out = subprocess.run([sys.executable, __file__, case, ir_dir], capture_output=True, text=True, check=True,
                                 cwd=ir_dir).stdout  # fmt: skip
            found[case] = json.loads(next(x for x in out.splitlines() if x.startswith("CASE "))[5:])
    with open(os.path.join(HERE, "instance_norm_amp_mindspore.json"), "w") as f:
        json.dump({"mindspore": ms.__version__, "input_names": ["x", "gamma", "beta", "mean", "variance"],
                   "cases": found}, f, indent=1)  # fmt: skip
        f.write("\n")


if __name__ == "__main__":
    main()
