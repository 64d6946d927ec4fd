"""Write shufflenet_goldens_mindspore.json and shufflenet_o3_goldens_mindspore.json: what MindSpore 2.10 prints for
`train_shufflenet.py O0` (gpu_default_config.yaml's amp_level) and `train_shufflenet.py O3` (default_config.yaml's)
in both modes: step losses, then parameter, momentum and BatchNorm moving-statistic sums after the first and the
last step.
Run: /work/msvenv/bin/python tests/zoo/shufflenet/make_shufflenet_goldens_mindspore.py"""

import os
import sys

import mindspore as ms

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(HERE))))  # the repository root

from tests.zoo.printed_values import write_goldens  # noqa: E402

if __name__ == "__main__":
    script = os.path.join(HERE, "train_shufflenet.py")
    write_goldens(script, os.path.join(HERE, "shufflenet_goldens_mindspore.json"), "O0", version=ms.__version__)
    write_goldens(script, os.path.join(HERE, "shufflenet_o3_goldens_mindspore.json"), "O3", version=ms.__version__)
