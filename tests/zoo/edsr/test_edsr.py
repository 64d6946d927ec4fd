"""The zoo's EDSR (unchanged source: RgbNormal's Parameter-held affine MeanShift and its inverse, 'same' Conv2d head,
ResBlocks with res_scale, the body's long skip, the Upsampler's Conv2d and PixelShuffle by ops.DepthToSpace, the
tail Conv2d) reads its DIV2K-layout PNGs through the zoo's create_dataset_DIV2K (GeneratorDataset over LrHrImages,
the random patch cutter and flips, HWC to CHW, float32) and trains four steps of train.py's nn.L1Loss and nn.Adam
(over a `filter` of the parameters, on lr_steps_edsr's Tensor lr array) through Model.train at amp_level O0 and at
DIV2K_config.yaml's O3 (with init_opt's loss_scale 1000 in Adam and no loss-scale manager), then evaluates a whole
20x20 validation image with the zoo's PSNR metric (Quantizer's clip_by_value and Int32 cast, shave 6 + scale),
directly and through SelfEnsembleWrapperNumpy; then train.py's ModelCheckpoint file is loaded into a new x3 EDSR by
load_checkpoint and EDSR.load_pre_trained_param_dict (init_net's pre_trained path, the mismatched Upsampler skipped),
to MindSpore 2.10's numbers in both modes (issue 21, held-out networks; it ran with no change to Kiln). Goldens:
make_edsr_goldens_mindspore.py."""

from tests.zoo.printed_values import MODES, assert_close, run_driver

STEPS = 4


def test_zoo_edsr_trains_and_evaluates_as_mindspore():
    # MindSpore's two modes give the same losses and PSNRs bit for bit, state sums within 5.4e-8 relative and image
    # sums within 1.8e-9. A 1e-7 relative change of MindSpore's initial weights (three draws in PyNative, one in
    # GRAPH_MODE) leaves its losses unchanged (each is a mean of 3,456 values near 47, whose ulp is 3.8e-6) and its
    # PSNRs, and moves the 48 state sums (parameters, Adam's moment1 and moment2) by up to 1.5e-6 relative and the
    # image sums by up to 6.0e-9. Kiln's two modes give the same losses, state and image sums: within 1.7e-7 of
    # MindSpore's losses (on random 2x3x24x24 arrays Kiln's nn.L1Loss was 13 ulp from the float64 mean where
    # MindSpore's was correctly rounded: XLA's summation order, and its division by the count a product by the
    # reciprocal), 5.1e-6 of its state sums (the L1 gradient's sums of +-255/3,456 move the tail bias's moment2) and
    # 7.2e-9 of its image sums. Kiln's PSNRs are within 4.2e-8 (PyNative) and 3.4e-7 (GRAPH_MODE): the Quantizer's
    # Int32 image is MindSpore's, but Kiln's float32 `(sr - hr) / 255` is XLA's product by the reciprocal of 255
    # (kiln/_prims/_division.py keeps it for float32, one ulp), 1,870 of its 4,800 values one ulp off MindSpore's
    # quotient, and the mean of the squares sums in another order in a PyNative window than op by op. The x3 network
    # loaded from the checkpoint: MindSpore's modes within 1.3e-8 of each other, its perturbed runs within 1.5e-6;
    # Kiln's parameter sums within 5.3e-8 (its own Upsampler convolution, not loaded, equal) and its output sums
    # within 2.1e-7.
    # Tolerances: 3-10 times the larger of Kiln's difference and MindSpore's spread. The losses are dominated by the
    # tail's bias and the 255 scale (the body's branch is scaled by 0.1 on weights of std 0.02), and Adam's step is
    # almost blind to a gradient's scale, so the state sums hold the gradients: with Kiln's Conv2D weight gradient
    # doubled, or its ReLU the identity, the losses stayed within 2e-6 and 25 and 39 of the 48 sums failed; a
    # DepthToSpace with its block axes swapped failed every loss.
    got, want = run_driver(__file__, "O0", *MODES)
    for mode in MODES:
        assert_close(got, want, f"{mode} losses", rtol=2e-6, length=STEPS)
        assert_close(got, want, f"{mode} state", rtol=2e-5)
        assert_close(got, want, f"{mode} eval state", rtol=5e-8, items=[0, 1, 3, 4])  # the images' (weighted) sums
        assert_close(got, want, f"{mode} eval state", rtol=1e-6, items=[2, 5])  # the PSNRs
        assert_close(got, want, f"{mode} pretrained state", rtol=5e-6)


def test_zoo_edsr_float16_o3_trains_within_mindspores_own_spread():
    # Under O3 (the network in float16; Adam's loss_scale 1000 divides gradients no loss-scale manager multiplied)
    # MindSpore's two modes differ from each other by up to 7.5e-7 relative in the losses, 5.6e-4 in the state sums (the
    # float16 gradients' moments) and 1.6e-5 in the image sums (the PSNRs agree); a 1e-7 relative change of its initial
    # weights (three draws in PyNative, one in GRAPH_MODE) leaves the losses, image sums and PSNRs as they were and
    # moves the state sums by up to 2.9e-4. Kiln's two modes give the same losses and image sums (state sums within
    # 1.7e-7 of each other): within 8.3e-8 of MindSpore PyNative's losses, 4.9e-5 of its state sums and 1.5e-6 of its
    # image sums; within 8.3e-7, 5.1e-4 and 1.6e-5 of MindSpore's GRAPH_MODE; PSNRs within 3.4e-7 (as at O0). The x3
    # network loaded from the checkpoint (float32): MindSpore's modes differ by up to 2.6e-5, Kiln's sums are within
    # 1.0e-5 of its PyNative ones and 1.6e-5 of its GRAPH_MODE ones. Tolerances: 2-4 times MindSpore's spread. The O0
    # run's losses are 2.5e-5 or more from these and its image sums 1.5e-4: with Kiln's O3 made O0's float32, every loss
    # failed.
    got, want = run_driver(__file__, "O3", *MODES, goldens="edsr_o3_goldens_mindspore.json")
    checks = [("losses", 2e-6, slice(None)), ("state", 1.5e-3, slice(None))]
    checks += [("eval state", 5e-5, [0, 1, 3, 4]), ("eval state", 1e-6, [2, 5])]  # the image sums, the PSNRs
    checks += [("pretrained state", 1e-4, slice(None))]
    for mode in MODES:
        for kiln_mode in MODES:
            for kind, rtol, items in checks:
                assert_close(got, want, f"{kiln_mode} {kind}", golden=f"{mode} {kind}", rtol=rtol, items=items)
