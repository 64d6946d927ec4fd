"""The zoo's ArcFace (unchanged source: src/iresnet.py's IResNet of IBasicBlocks, BatchNorm2d, 3x3 Conv2d, PReLU
and residual Adds, a 1x1 Conv2d/BatchNorm2d downsample, Flatten, Dense and a BatchNorm1d with frozen gamma, in float16
by to_float; src/loss.py's PartialFC: L2Normalize, a float16 MatMul(transpose_b), the ArcFace margin of OneHot, ACos,
Cos and scale 64, and its own softmax cross-entropy) trains four steps of train.py's MyNetWithLoss, nn.SGD with
momentum and weight decay on lr_generator's array, and Model.train with ModelCheckpoint; then val.py's embedding
extraction (the checkpoint loaded into a new float32 backbone, each image and its flip embedded with the BatchNorms'
moving statistics), to MindSpore 2.10's numbers in both modes (issue 21, held-out networks). Probing its layers found
that a float16 PReLU's weight gradient was a float16 running sum (tests/_prims/test_low_precision.py) and that a lone
BatchNorm's and PReLU's parameters had other names than MindSpore's (tests/nn/param_name_cases.py). Goldens:
make_arcface_goldens_mindspore.py."""

import os

import numpy as np

from tests.zoo.printed_values import MODES, assert_close, read_goldens, run_driver

HERE = os.path.dirname(os.path.abspath(__file__))
SEQUENCES = ("losses", "step1 state", "state", "embedding state")
# How many times MindSpore's own spread Kiln may be off, and a floor of float32 summation rounding (relative).
SPREAD_FACTOR, RTOL_FLOOR = 5.0, 1e-6


def mindspore_spread(want: dict[str, list[float]], name: str) -> np.ndarray:
    """MindSpore's own spread of each value of `name` (a SEQUENCES entry): the largest of its two modes' difference
    and of each of its 1e-7-perturbed runs' difference from the unperturbed run of the same mode."""
    perturbed = read_goldens(os.path.join(HERE, "arcface_perturbed_mindspore.json"))
    golden = {mode: np.asarray(want[f"{mode} {name}"]) for mode in MODES}
    spread = np.abs(golden["PYNATIVE_MODE"] - golden["GRAPH_MODE"])
    for key, values in perturbed.items():
        seed, mode, rest = key.split(" ", 2)
        if rest == name:
            spread = np.maximum(spread, np.abs(np.asarray(values) - golden[mode]))
    return spread


def test_zoo_arcface_trains_and_embeds_within_mindspores_own_spread():
    # The float16 backbone makes MindSpore's numbers noisy. Its two modes differ by 3.1e-5, 4.2e-4, 5.0e-4 and 3.7e-4
    # relative in the four losses; three runs whose initial weights a 1e-7 relative change moved differ from the
    # unperturbed one of their mode by up to 1.0e-4, 3.3e-4, 6.5e-4 and 9.5e-4. After step 4 the parameter sums
    # move by up to 2.6e-2 relative (0.038 absolute), the momentum sums by up to 1450 (of 2.2e5), the moving
    # statistics by up to 0.056 (of 881) and the embedding values by up to 0.18 (of 67). Kiln was within 2.5e-6,
    # 3.1e-4, 2.6e-4, 3.8e-4 (PyNative) and 6.3e-5, 2.4e-4, 6.8e-4, 6.5e-4 (GRAPH_MODE) in the losses, and each of its
    # 578 values per mode within 3.0 times MindSpore's spread of that value (the largest of the mode difference and
    # the six perturbed runs' differences), so each is held within SPREAD_FACTOR = 5 times it. The test fails when
    # PReLU's weight gradient is doubled (12 step-1 sums off) and when ACos's gradient is (the losses off from step 2).
    # Kiln's quick compile tier and no disk cache: the numbers the goldens were checked on, and a cold run's time.
    got, want = run_driver(__file__, *MODES, env={"KILN_TIERED": "quick", "KILN_CACHE_DIR": "off"})
    for name in SEQUENCES:
        spread = mindspore_spread(want, name)
        for mode in MODES:
            golden = np.abs(np.asarray(want[f"{mode} {name}"]))
            atol = SPREAD_FACTOR * spread + RTOL_FLOOR * golden
            assert_close(got, want, f"{mode} {name}", rtol=0, atol=atol, length=4 if name == "losses" else None)
