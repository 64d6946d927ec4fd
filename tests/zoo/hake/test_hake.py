"""The zoo's HAKE knowledge-graph embedding (unchanged source: phase/modulus/bias embeddings gathered per triplet,
Tensor.clip, Select, Sin, ops.norm, the self-adversarial negative sampling loss with stop_gradient, its own
HAKETrainOneStepCell; head then tail batches sharing one Adam through Model.train) trains four steps to MindSpore
2.10's numbers in both modes (issue 21, held-out networks). Goldens: make_hake_goldens_mindspore.py.
"""

from tests.zoo.printed_values import MODES, assert_modes_match, run_driver


def test_zoo_hake_losses_and_state_match_mindspore():
    # Kiln is within 3.6e-7 relative of MindSpore on the losses and 6e-7 on the parameter and moment sums (MindSpore's
    # own two modes: 1.8e-7 and 4e-8; its PyNative moves by 2e-7 from run to run); the smallest sums, second moments
    # near 2e-4, carry the largest relative noise. It found that Tensor.clip took MindSpore 1.x's xmin/xmax, not
    # MindSpore 2's min/max (the driver's HakeGraph calls clip(max=1)).
    got, want = run_driver(__file__, *MODES)
    assert_modes_match(got, want, steps=4, losses=(2e-6, 0), state=(5e-6, 1e-10))
