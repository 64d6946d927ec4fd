"""The zoo's StarGAN (unchanged source: GroupNorm generator with Conv2dTranspose and Tanh, PatchGAN discriminator,
WGAN-GP penalty taking a GradOperation of D with respect to its input at a @constexpr NumPy interpolation, the two
train cells differentiating their loss through a wrapper Cell) trains four D and two G steps to MindSpore 2.10's
numbers in both modes (issue 21, held-out networks). Goldens: make_stargan_goldens_mindspore.py."""

from tests.zoo.printed_values import MODES, assert_close, run_driver


def test_zoo_stargan_losses_and_state_match_mindspore():
    # MindSpore's GRAPH_MODE infers the penalty cell once per graph, so D's loss and its gradient (taken through
    # DiscriminatorWithLossCell) share one NumPy draw; Kiln's graph drew again for the gradient (the second D
    # step's total loss 53.835 against 53.082). Measured: losses within 1.2e-5 absolute (PyNative) and 2.1e-4
    # (GRAPH_MODE, G's total loss 9.899: 2.1e-5 relative; the largest relative, 2.8e-4, is G's adversarial loss, a
    # mean near 0.07); MindSpore's CPU tanh, G's last layer, is up to 1e-4 off float64 (Kiln's 2.3e-7). The bound
    # here is at least 1.8 times each. Parameter sums (within 8.6e-4 and 3.4e-2 absolute): Adam
    # moves each element by about lr whatever its gradient's size, so an element whose gradient is rounding
    # noise (GroupNorm cancels a constant shift) moves either way; the sums are compared absolutely.
    # Kiln's quick compile tier throughout, and no executable from an earlier process (KILN_TIERED=quick,
    # KILN_CACHE_DIR=off): on the optimised tier (fused multiply-adds) the third D step's gradient penalty is
    # 4.75318 against MindSpore's 4.76398 in PyNative (2.3e-3; its own GRAPH_MODE gives 4.76494), one ulp on every
    # input pixel moves neither; which tier ran that step depended on the machine's speed and on what the disk
    # cache held from earlier runs (2026-12-01). Open: why that tier moves this value so much more than rounding.
    got, want = run_driver(__file__, *MODES, env={"KILN_TIERED": "quick", "KILN_CACHE_DIR": "off"})
    for mode in MODES:
        assert_close(got, want, f"{mode} losses", rtol=3e-5, atol=1e-4, length=28)
        assert_close(got, want, f"{mode} state", rtol=0, atol=0.1, length=28)
