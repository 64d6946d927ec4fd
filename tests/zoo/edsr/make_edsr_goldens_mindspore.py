"""Write edsr_goldens_mindspore.json and edsr_o3_goldens_mindspore.json: what MindSpore 2.10 prints for
`train_edsr.py O0` and `train_edsr.py O3` (DIV2K_config.yaml's amp_level) in both modes: the step losses, the
parameter and Adam moment sums after the last step, and the evaluated image's sums and PSNRs.
Run: /work/msvenv/bin/python tests/zoo/edsr/make_edsr_goldens_mindspore.py"""

import os
import sys

import mindspore as ms

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(HERE))))  # the repository root

from tests.zoo.printed_values import write_goldens  # noqa: E402

if __name__ == "__main__":
    script = os.path.join(HERE, "train_edsr.py")
    write_goldens(script, os.path.join(HERE, "edsr_goldens_mindspore.json"), "O0", version=ms.__version__)
    write_goldens(script, os.path.join(HERE, "edsr_o3_goldens_mindspore.json"), "O3", version=ms.__version__)
