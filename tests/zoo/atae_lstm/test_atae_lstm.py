"""The zoo's ATAE-LSTM (unchanged source: its own LSTM, a Python while loop of an lstm_cell that runs the gate products
in float16, masked by the sentence lengths; attention and a BCELoss) trains four Adagrad steps over two learning-rate
groups through Model to MindSpore 2.10's numbers in both modes (issue 21, held-out networks). Goldens:
make_atae_lstm_goldens_mindspore.py."""

import numpy as np

from tests.zoo.printed_values import MODES, assert_each_mode_held, run_driver


def test_zoo_atae_lstm_losses_and_state_match_mindspore():
    # It found that Kiln's GRAPH_MODE shared the lstm_cell's float16 casts of the LSTM weights across time steps, so
    # their gradients were summed in float16: Kiln's two modes differed by 4.1e-5 relative in step 4's loss and 4.2e-3
    # in the state sums; now 0 and 3.2e-7, which the first check holds (1e-6, 1e-5). The network runs its gates in
    # float16: MindSpore's own two modes differ by 5.6e-6 relative in step 4's loss (1.4e-6 in step 2) and 3.9e-3 in the
    # state sums (an Adagrad accumulator); Kiln is within 1.4e-5 and 2.4e-3 of either. Tolerances: 5.3 times
    # MindSpore's loss spread, 2.5 times its state spread.
    got, want = run_driver(__file__, *MODES)
    np.testing.assert_allclose(got["GRAPH_MODE losses"], got["PYNATIVE_MODE losses"], rtol=1e-6, atol=0)
    np.testing.assert_allclose(got["GRAPH_MODE state"], got["PYNATIVE_MODE state"], rtol=0, atol=1e-5)
    assert_each_mode_held(got, want, steps=4, spread=(3e-5, 1e-2))
