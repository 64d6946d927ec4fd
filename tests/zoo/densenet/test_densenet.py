"""The zoo's DenseNet (unchanged source: dense blocks concatenating each layer's output to its input, max-pool
transitions, the zoo's KaimingUniform/KaimingNormal Initializer subclasses drawing from NumPy's generator,
CrossEntropy with label smoothing, Momentum over get_param_groups with loss_scale 1024 and FixedLossScaleManager)
trains four steps to MindSpore 2.10's numbers in both modes (issue 21, held-out networks). Goldens:
make_densenet_goldens_mindspore.py."""

from tests.zoo.printed_values import MODES, assert_modes_match, run_driver


def test_zoo_densenet_losses_and_state_match_mindspore():
    # It found nothing to fix. MindSpore's two modes agree bit for bit; a 1e-6 relative scale of its input images
    # (which BatchNorm cancels: rounding only) moves its losses by 9.0e-8 relative and the 100 parameter, accumulator
    # and moving-statistic sums by 5.0e-5. Kiln is within 7.1e-8 relative and 1.6e-5 in both modes.
    got, want = run_driver(__file__, *MODES)
    assert_modes_match(got, want, steps=4, losses=(1e-6, 0), state=(0, 1e-4))
