"""Write arcface_goldens_mindspore.json: what MindSpore 2.10 prints for `train_arcface.py` in both modes (step losses,
parameter, momentum and BatchNorm moving-statistic sums after the first and the last step, and val.py's embeddings
of the checkpoint), and arcface_perturbed_mindspore.json: the same for PERTURBED_SEEDS runs of each mode whose initial
weights are scaled by 1 + 1e-7 times a standard normal draw (keys `seedN MODE ...`), the measure of MindSpore's own
sensitivity that the test's tolerances are set from.
Run: /work/msvenv/bin/python tests/zoo/arcface/make_arcface_goldens_mindspore.py"""

import json
import os
import sys

import mindspore as ms

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(HERE))))  # the repository root

from tests.zoo.printed_values import MODES, run_script, write_goldens  # noqa: E402

PERTURBED_SEEDS = (7, 8, 9)

if __name__ == "__main__":
    script = os.path.join(HERE, "train_arcface.py")
    write_goldens(script, os.path.join(HERE, "arcface_goldens_mindspore.json"), version=ms.__version__)
    printed = {}
    for seed in PERTURBED_SEEDS:
        for mode in MODES:
            run = run_script(script, "--perturb", "1e-7", "--perturb-seed", str(seed), mode, python=sys.executable)
            printed.update({f"seed{seed} {key}": values for key, values in run.items()})
    with open(os.path.join(HERE, "arcface_perturbed_mindspore.json"), "w") as f:
        json.dump({"mindspore": ms.__version__, "printed": printed}, f, indent=1)
