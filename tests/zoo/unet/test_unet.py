"""The zoo's plain U-Net (unchanged source: unet_nested's UNet with BatchNorm UnetConv2d blocks, same-padded
MaxPool2d, Conv2dTranspose up-sampling and Concat skips; the CrossEntropyWithLogits loss over NHWC one-hot masks)
trains four Adam steps through Model.train with FixedLossScaleManager to MindSpore 2.10's numbers in both modes
(issue 21, held-out networks). Goldens: make_unet_goldens_mindspore.py."""

from tests.zoo.printed_values import MODES, assert_modes_match, run_driver


def test_zoo_unet_losses_and_state_match_mindspore():
    # No Kiln bug found. MindSpore's two modes agree bit for bit; a 1e-7 relative change of its initial weights
    # leaves its losses unchanged and moves the 149 parameter/moment/moving-statistic sums by up to 3.1e-6
    # relative. Kiln's losses are within 8.7e-8 relative, its sums within 3.9e-6.
    got, want = run_driver(__file__, *MODES)
    assert_modes_match(got, want, steps=4, losses=(1e-6, 0), state=(1e-5, 0))
