"""The zoo's ResNet-50 (unchanged source) and a small bottleneck ResNet train three Momentum steps to MindSpore
2.10's numbers in both modes (issue 21.5). Goldens: make_resnet_goldens_mindspore.py."""

import json
import os

import numpy as np
import pytest

from tests.zoo.printed_values import MODES, assert_close, run_script

HERE = os.path.dirname(os.path.abspath(__file__))


def _golden(script: str, mode: str) -> dict:
    with open(os.path.join(HERE, "resnet_goldens_mindspore.json")) as f:
        return json.load(f)["scripts"][script][mode]


def _run(script: str, mode: str) -> dict:
    """Run a MindSpore script of this folder under `kiln run`; its printed `key: values` lines."""
    return run_script(os.path.join(HERE, script), mode)


@pytest.mark.parametrize("mode", MODES)
def test_zoo_resnet50_trains_from_mindspore_first_loss(mode):
    # Only the first step is compared at 0.2%: at this tiny size the later steps are chaotic in float32 (in
    # MindSpore itself, scaling the input by 1 + 1e-6 moves the third loss by 18%); the bottleneck test below
    # checks every step and the state updates tightly
    got, want = _run("train_resnet50.py", mode)["losses"], _golden("train_resnet50.py", mode)["losses"]
    assert len(got) == len(want) == 3
    np.testing.assert_allclose(got[0], want[0], rtol=2e-3, atol=0)
    assert np.all(np.isfinite(got)) and got[2] < got[0], got


@pytest.mark.parametrize("mode", MODES)
def test_bottleneck_losses_and_state_match(mode):
    # well conditioned: float32 rounding stays near 1e-6, so a wrong BatchNorm statistic, momentum or in-place
    # state write shows far above the tolerance
    got, want = _run("train_bottleneck.py", mode), _golden("train_bottleneck.py", mode)
    assert_close(got, want, "losses", rtol=2e-5)
    assert_close(got, want, "state", rtol=1e-4, atol=1e-4)
