"""The zoo's MobileNetV2 (unchanged source: its `_initialize_weights` calls Cell.init_parameters_data) trains three
Momentum steps to MindSpore 2.10's numbers in both modes (issue 21.5). Goldens: make_mobilenetv2_goldens_mindspore.py.
"""

import json
import os

import numpy as np

from tests.zoo.printed_values import run_script

HERE = os.path.dirname(os.path.abspath(__file__))
MODES = ("PYNATIVE_MODE", "GRAPH_MODE")


def test_zoo_mobilenetv2_losses_and_state_match_mindspore():
    # both modes in one `kiln run` (one interpreter start and import for the two); at this configuration the
    # float32 trajectory is well conditioned (MindSpore's own losses move by ~1e-6 when the input does), so
    # every step is compared tightly, and the state sums catch a wrong BatchNorm statistic or momentum update
    got = run_script(os.path.join(HERE, "train_mobilenetv2.py"), *MODES)
    with open(os.path.join(HERE, "mobilenetv2_goldens_mindspore.json")) as f:
        want = json.load(f)["printed"]
    for mode in MODES:
        np.testing.assert_allclose(got[f"{mode} losses"], want[f"{mode} losses"], rtol=2e-5, atol=0, err_msg=mode)
        assert len(want[f"{mode} losses"]) == 3
        assert len(got[f"{mode} state"]) == len(want[f"{mode} state"])
        np.testing.assert_allclose(got[f"{mode} state"], want[f"{mode} state"], rtol=1e-4, atol=1e-4, err_msg=mode)
