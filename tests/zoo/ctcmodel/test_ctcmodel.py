"""The zoo's CTCModel (unchanged source: a 2-layer bidirectional LSTM, a float16 Dense, the TensorFlow-style CTCLoss on
blank-padded sparse labels, a TrainingWrapper with clip_by_global_norm) trains four Adam steps through Model to
MindSpore 2.10's numbers in both modes (issue 21, held-out networks). Goldens: make_ctcmodel_goldens_mindspore.py."""

from tests.zoo.printed_values import MODES, assert_each_mode_held, run_driver


def test_zoo_ctcmodel_losses_and_state_match_mindspore():
    # It found that Kiln's P.CTCLoss read the blank padding of the label rows as labels (first loss 11.22 against
    # 13.04, before this driver gave every sample its full sequence length) and that a float16 bias gradient was a
    # float16 running sum (state 2.9e-4 off, losses 3.2e-6 relative). Kiln's two modes agree within 3.2e-8 (state) and
    # are held to each MindSpore mode: against its PyNative, losses within 1.0e-7 relative and the state sums
    # within 6.8e-6 absolute (an Adam moment of the float16 Dense's weight); against its GRAPH_MODE 1.1e-6 and
    # 2.0e-5, MindSpore's own two modes' spread (1.0e-6 and 2.05e-5). Tolerances: 2.5-10 times those.
    got, want = run_driver(__file__, *MODES)
    spread = {"PYNATIVE_MODE": (1e-6, 2e-5), "GRAPH_MODE": (3e-6, 5e-5)}
    assert_each_mode_held(got, want, steps=4, spread=spread)
