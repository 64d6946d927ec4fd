"""The zoo's SlowFast (unchanged source: two ResNet-50 pathways of Conv3d/BatchNorm3d bottlenecks, lateral Conv3d
fusions, the AVA head's ROIAlign at spatial_scale 1/16 with roi_end_mode 1 on padded boxes) trains through Model
with SGD over its two parameter groups to MindSpore 2.10's numbers in both modes (issue 21, held-out networks).
Goldens: make_slowfast_goldens_mindspore.py.

How close they can be, measured: MindSpore's two modes give the same step-1 loss and differ by 2.5e-6 at step 2 and
18% at step 3. Under `--perturb 1e-6` (every BatchNorm gamma eight float32 steps up) MindSpore's own PyNative losses
move 9.4e-7, 1.0e-3, 1.9% and 25% at steps 1-4: the 16-block pathways over 2x2 maps and batch 2 amplify rounding
a thousandfold a step. Kiln's step-1 loss is 1.9e-6-4.6e-6 from MindSpore's in both modes (its convolutions sum in
another order: the pathways' outputs agree to 6e-5 relative) and its step 2 within 1.6e-3 (on the machine that made
the goldens), so step 2 is held to 3e-3. Kiln's old ROIAlign (every roi widened to at least one feature pixel,
where MindSpore's roi_end_mode 1 keeps its size) was 5.6e-3 off at step 1.

Step 1 is held to 1.2e-5, not 5e-6 (2026-12-01): on a 2-core AMD EPYC with AVX2 and no AVX-512, Kiln's step-1 loss
is 1.2744025 (1.2744012 with every program optimised), 6.8e-6 from the golden, and MindSpore 2.10's own run there
gives 1.2743905, 2.6e-6 from the golden it wrote on another machine: each framework's convolution kernels sum in an
order their CPU's instruction set decides.
"""

from tests.zoo.printed_values import MODES, assert_close, run_driver


def test_zoo_slowfast_matches_mindspore():
    got, want = run_driver(__file__, *MODES, timeout=1200)
    for mode in MODES:
        key = f"{mode} losses"
        assert_close(got, want, key, rtol=1.2e-5, length=4, items=[0])
        assert_close(got, want, key, rtol=3e-3, items=[1])
