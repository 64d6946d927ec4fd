"""Write resnet_goldens_mindspore.json: what MindSpore 2.10 prints for train_resnet50.py and train_bottleneck.py
(step losses; the bottleneck's state sums too) in both modes.
Run: /work/msvenv/bin/python tests/zoo/resnet/make_resnet_goldens_mindspore.py"""

import json
import os
import sys

import mindspore as ms

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(HERE))))  # the repository root

from tests.zoo.printed_values import run_script  # noqa: E402


def main():
    out = {}
    for script in ("train_resnet50.py", "train_bottleneck.py"):
        for mode in ("PYNATIVE_MODE", "GRAPH_MODE"):
            out.setdefault(script, {})[mode] = run_script(os.path.join(HERE, script), mode, python=sys.executable)
    with open(os.path.join(HERE, "resnet_goldens_mindspore.json"), "w") as f:
        json.dump({"mindspore": ms.__version__, "scripts": out}, f, indent=1)


if __name__ == "__main__":
    main()
