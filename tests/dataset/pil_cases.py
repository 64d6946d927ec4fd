"""Cases of vision transforms given PIL images (MindSpore runs them with Pillow and returns PIL images)."""

import numpy as np
from PIL import Image


def pil_input(mode: str):
    """A 16x16 image with every channel value spread over 0..250."""
    arr = ((np.arange(16 * 16 * 3) * 37) % 251).astype(np.uint8).reshape(16, 16, 3)
    return Image.fromarray(arr).convert(mode)


PIL_CASES = {
    "brightness": (lambda v: v.RandomColorAdjust(brightness=(1.5, 1.5)), "RGB"),
    "contrast": (lambda v: v.RandomColorAdjust(contrast=(0.6, 0.6)), "RGB"),
    "saturation": (lambda v: v.RandomColorAdjust(saturation=(1.7, 1.7)), "RGB"),
    "hue": (lambda v: v.RandomColorAdjust(hue=(0.2, 0.2)), "RGB"),
    "hue_negative": (lambda v: v.RandomColorAdjust(hue=(-0.3, -0.3)), "RGB"),
    "grey": (lambda v: v.RandomColorAdjust(brightness=(0.7, 0.7), hue=(0.1, 0.1)), "L"),
    "rotate": (lambda v: v.RandomRotation((30, 30)), "RGB"),
    "rotate_expand_fill": (lambda v: v.RandomRotation((30, 30), expand=True, fill_value=(9, 8, 7)), "RGB"),
    "rotate_bilinear_center": (lambda v: v.RandomRotation((45, 45), v.Inter.BILINEAR, center=(3, 5)), "RGB"),
}
