"""Write resnet_goldens_mindspore.json: what MindSpore 2.10 prints for train_resnet50.py and train_bottleneck.py
(step losses; the bottleneck's state sums too) in both modes.
Run: /work/msvenv/bin/python tests/zoo/resnet/make_resnet_goldens_mindspore.py"""

import json
import os
import subprocess
import sys

import mindspore as ms

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    out = {}
    for script in ("train_resnet50.py", "train_bottleneck.py"):
        for mode in ("PYNATIVE_MODE", "GRAPH_MODE"):
            proc = subprocess.run([sys.executable, os.path.join(HERE, script), mode],
                                  cwd=HERE, capture_output=True, text=True, check=True)
            printed = {}
            for line in proc.stdout.splitlines():
                key, _, values = line.partition(": ")
                if key in ("losses", "state"):
                    printed[key] = [float(v) for v in values.split()]
            out.setdefault(script, {})[mode] = printed
    with open(os.path.join(HERE, "resnet_goldens_mindspore.json"), "w") as f:
        json.dump({"mindspore": ms.__version__, "scripts": out}, f, indent=1)


if __name__ == "__main__":
    main()
