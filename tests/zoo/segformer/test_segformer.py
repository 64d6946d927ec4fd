"""The zoo's SegFormer (unchanged source: the Mix Transformer's overlapping patch embeddings, spatial-reduction
attention and Mix-FFN depthwise convolutions, SegFormerHead's bilinear `ops.interpolate` of each stage to the first's
size, the logits resized to the image, the class-weighted CrossEntropy with ignore label 255) trains four
AdamWeightDecay steps through TrainOneStepWithLossScaleCell and DynamicLossScaleUpdateCell to MindSpore 2.10's numbers
in both modes (issue 21, held-out networks). Goldens: make_segformer_goldens_mindspore.py."""

import numpy as np

from tests.zoo.printed_values import MODES, assert_close, run_driver

PARAMS, MOMENTS = 115, 113  # the parameter and moving-statistic sums, then Adam's first and second moments' abs sums


def test_zoo_segformer_losses_and_state_match_mindspore():
    # It found that Kiln reported `mindspore.__version__` as its own 0.1.0, so the zoo's version gate called
    # ops.interpolate with MindSpore 1.x's `sizes=` (TypeError in both modes). MindSpore's two modes agree bit for bit;
    # a 1e-7 relative change of its initial weights leaves its losses as they are and moves the parameter sums by up to
    # 6.8e-4 and the moments by 2.6e-6 relative, but for the Dense biases of the head's projections and the last
    # stage's LayerNorm beta: BatchNorm cancels them, so they step on rounding noise (their moments move by up to 41%).
    # Kiln is within 9e-8 relative in the losses, 1.4e-3 in the parameter sums and 4.8e-6 relative in the other moments.
    got, want = run_driver(__file__, *MODES)
    first, second = slice(PARAMS, PARAMS + MOMENTS), slice(PARAMS + MOMENTS, None)
    for mode in MODES:
        assert_close(got, want, f"{mode} losses", rtol=1e-6, length=4)
        assert_close(got, want, f"{mode} loss-scale state", rtol=0, length=4)
        assert_close(got, want, f"{mode} state", rtol=0, atol=3e-3, items=slice(None, PARAMS))
        # the noise-stepped parameters' moments are below 4e-9 (first) and 1e-19 (second); the others above 3e-4, 1e-9
        assert_close(got, want, f"{mode} state", rtol=1e-4, atol=1e-8, items=first)
        assert_close(got, want, f"{mode} state", rtol=1e-4, atol=1e-18, items=second)
    assert len(want["GRAPH_MODE state"]) == PARAMS + 2 * MOMENTS and np.all(np.isfinite(got["GRAPH_MODE state"]))
