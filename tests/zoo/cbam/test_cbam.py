"""The zoo's CBAM (unchanged source: ResNet Bottlenecks with ChannelAttention and SpatialAttention, ReduceMean and
ReduceMax gates, the (32, 256) view and Softmax head) trains four Adam steps on BCEWithLogitsLoss through Model to
MindSpore 2.10's numbers in both modes (issue 21, held-out networks). Goldens: make_cbam_goldens_mindspore.py."""

import os

import numpy as np

from tests.zoo.printed_values import read_goldens, run_script

HERE = os.path.dirname(os.path.abspath(__file__))
MODES = ("PYNATIVE_MODE", "GRAPH_MODE")


def test_zoo_cbam_losses_and_state_match_mindspore():
    # It found that Kiln refused a plain attribute set before super().__init__() (the zoo's ResNet sets
    # self.in_channels first; MindSpore takes it), and that ReduceMax's gradient was NaN in GRAPH_MODE from the
    # second step on (the backend computed the reduced input twice with a last-bit difference: no element equalled
    # the maximum, 0/0). Losses agree within 2.6e-7 relative; the state sums within 4.1e-6 absolute (MindSpore's own
    # two modes 1.6e-6, Kiln's 1.9e-6, on Adam moments of near-zero gradients); atol is 2.5 times that.
    got = run_script(os.path.join(HERE, "train_cbam.py"), *MODES)
    want = read_goldens(os.path.join(HERE, "cbam_goldens_mindspore.json"))
    for mode in MODES:
        assert len(want[f"{mode} losses"]) == 4
        np.testing.assert_allclose(got[f"{mode} losses"], want[f"{mode} losses"], rtol=1e-6, atol=0, err_msg=mode)
        assert len(got[f"{mode} state"]) == len(want[f"{mode} state"])
        np.testing.assert_allclose(got[f"{mode} state"], want[f"{mode} state"], rtol=0, atol=1e-5, err_msg=mode)
