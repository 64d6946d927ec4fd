"""Vision transforms given PIL images run with Pillow and return PIL images, as MindSpore 2.10's do (goldens/pil.npz,
made by make_goldens_pil.py)."""

import os

import numpy as np
import pytest
from PIL import Image

import kiln.dataset as ds
import kiln.dataset.vision as v

from .pil_cases import PIL_CASES, pil_input

GOLDENS = np.load(os.path.join(os.path.dirname(__file__), "goldens", "pil.npz"))


@pytest.mark.parametrize("name", sorted(PIL_CASES))
def test_pil_in_pil_out_as_mindspore(name):
    make, mode = PIL_CASES[name]
    expected = [GOLDENS[k] for k in GOLDENS.files if k.startswith(name + "/") and not k.endswith("/mode")]
    seen = set()
    for seed in range(16):
        ds.config.set_seed(seed)
        out = make(v)(pil_input(mode))
        assert isinstance(out, Image.Image) and out.mode == str(GOLDENS[f"{name}/mode"])
        got = np.asarray(out)
        assert any(got.shape == e.shape and np.array_equal(got, e) for e in expected), name
        seen.add(got.tobytes())
    # RandomColorAdjust's random order of adjustments gives each of MindSpore's outcomes
    assert len(seen) == len(expected)


def test_random_rotation_of_a_single_band_image_takes_an_int_fill():
    img = pil_input("L")
    out = v.RandomRotation((25, 25), expand=True, fill_value=200)(img)
    assert np.array_equal(np.asarray(out), np.asarray(img.rotate(25, Image.NEAREST, True, None, fillcolor=200)))
