"""The zoo's BERT pre-training network (unchanged source: relative positions, its loss-scale train cell, clip by
norm through a MultitypeFuncGraph, AdamWeightDecay with decay groups and its warm-up schedule) trains four steps
to MindSpore 2.10's numbers in both modes (issue 21, held-out networks). Goldens: make_bert_goldens_mindspore.py."""

from tests.zoo.printed_values import MODES, assert_modes_match, run_driver


def test_zoo_bert_loss_scale_cell_trains_to_mindspore_numbers():
    # It found that the loss-scale cell's sensitivity, the scalar loss-scale Parameter for BertNetworkWithLoss's
    # (1,)-shaped loss, was refused in both modes (MindSpore's GRAPH_MODE takes it). The goldens are the plain
    # cell's (MindSpore runs the loss-scale cell on no CPU); with a power-of-two scale both cells compute the same
    # unscaled gradients. Losses agree to 6e-7 (float32 rounding of the summation order); the parameter sums to
    # 2e-5 relative, where MindSpore's own two modes differ by 6e-6 (sums of values that partly cancel).
    got, want = run_driver(__file__, "lossscale", *MODES)
    assert_modes_match(got, want, steps=4, losses=(5e-6, 0), state=(1e-4, 1e-5))
    for mode in MODES:
        # DynamicLossScaleUpdateCell: no overflow, so the scale doubles after every scale_window=2 steps
        scales, overflows = got[f"{mode} loss-scale state"][::2], got[f"{mode} loss-scale state"][1::2]
        assert overflows == [0.0] * 4, mode
        assert scales == [2.0**16 * 2 ** (step // 2) for step in range(1, 5)], mode
