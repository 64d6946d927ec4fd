"""The zoo's EDSR (unchanged source: RgbNormal's Parameter-held affine MeanShift and its inverse, 'same' Conv2d head,
ResBlocks with res_scale, the body's long skip, the Upsampler's Conv2d and PixelShuffle by ops.DepthToSpace, the
tail Conv2d) trains four steps of train.py's nn.L1Loss and nn.Adam (over a `filter` of the parameters, on
lr_steps_edsr's Tensor lr array) through Model.train at amp_level O0, then evaluates a full 20x20 image with the zoo's
PSNR metric (Quantizer's clip_by_value and Int32 cast, shave 6 + scale), directly and through
SelfEnsembleWrapperNumpy, to MindSpore 2.10's numbers in both modes (issue 21, held-out networks; it ran with no
change to Kiln). Goldens: make_edsr_goldens_mindspore.py."""

from tests.zoo.printed_values import MODES, assert_close, run_driver

STEPS = 4


def test_zoo_edsr_trains_and_evaluates_as_mindspore():
    # MindSpore's two modes give the same losses bit for bit, state sums within 2e-8 relative and eval values within
    # 1.5e-9. A 1e-7 relative change of MindSpore's initial weights (three draws) leaves its losses unchanged (each
    # is a mean of 3,456 values near 47, whose ulp is 3.8e-6), moves the 48 state sums (parameters, Adam's moment1
    # and moment2) by up to 1.5e-6 relative, the image sums by up to 8.3e-9 and the PSNRs not at all. Kiln was within
    # 6.8e-7 in the losses: on random 2x3x24x24 arrays Kiln's nn.L1Loss was 13 ulp from the float64 mean where
    # MindSpore's was correctly rounded (XLA's summation order), and the L1 gradient's sums of +-255/3,456 likewise
    # move the tail bias's moment2, by 5.3e-6 (the largest of Kiln's state differences); within 4.1e-9 in the
    # image sums and 5.8e-8 in the PSNRs (one quantized pixel truncated the other way in PyNative).
    # The losses are the tail's bias and scale by 255 (the body's branch is scaled by 0.1 on weights of std 0.02),
    # and Adam's step is almost blind to a gradient's scale, so the state sums hold the gradients: with Kiln's Conv2D
    # weight gradient doubled, or its ReLU the identity, the losses stayed within 2e-6 and 27 and 36 of the 48 sums
    # failed; a DepthToSpace with its block axes swapped failed every loss.
    got, want = run_driver(__file__, *MODES)
    for mode in MODES:
        assert_close(got, want, f"{mode} losses", rtol=2e-6, length=STEPS)
        assert_close(got, want, f"{mode} state", rtol=2e-5)
        assert_close(got, want, f"{mode} eval state", rtol=5e-8, items=[0, 1, 3, 4])  # the images' (weighted) sums
        assert_close(got, want, f"{mode} eval state", rtol=1e-6, items=[2, 5])  # the PSNRs
