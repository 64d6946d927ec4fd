"""Helpers of the Python vision transforms (`mindspore.dataset.vision.py_transforms_util`)."""

from __future__ import annotations

import numpy as np

from kiln.dataset.vision import color as _color
from kiln.dataset.vision.utils import Inter, pil_filters, pil_image


def is_pil(img) -> bool:
    """Whether `img` is a PIL image.

    Args:
        img: anything.

    Returns:
        True for PIL images.
    """
    return hasattr(img, "getbands") and hasattr(img, "size") and not isinstance(img, np.ndarray)


def is_numpy(img) -> bool:
    """Whether `img` is a NumPy array.

    Args:
        img: anything.

    Returns:
        True for arrays.
    """
    return isinstance(img, np.ndarray)


def hwc_to_chw(img) -> np.ndarray:
    """An HWC array as CHW (HW arrays get a leading axis).

    Args:
        img: the image.

    Returns:
        The CHW array.
    """
    arr = np.asarray(img)
    return arr[None] if arr.ndim == 2 else arr.transpose(2, 0, 1)


def _channels_last(convert, images, is_hwc: bool) -> np.ndarray:
    """`convert` (a per-pixel colour conversion on HWC float64 arrays) applied to HWC or CHW `images`."""
    arr = np.asarray(images, np.float64)
    out = convert(arr if is_hwc else np.moveaxis(arr, -3, -1))
    return out if is_hwc else np.moveaxis(out, -1, -3)


def rgb_to_hsvs(np_rgb_imgs, is_hwc: bool) -> np.ndarray:
    """RGB images in [0, 1] (one or a batch) to HSV.

    Args:
        np_rgb_imgs: the images.
        is_hwc: channels last (True) or first.

    Returns:
        The HSV images.
    """
    return _channels_last(_color.rgb_to_hsv_float, np_rgb_imgs, is_hwc)


def hsv_to_rgbs(np_hsv_imgs, is_hwc: bool) -> np.ndarray:
    """HSV images (one or a batch) to RGB in [0, 1].

    Args:
        np_hsv_imgs: the images.
        is_hwc: channels last (True) or first.

    Returns:
        The RGB images.
    """
    return _channels_last(_color.hsv_to_rgb_float, np_hsv_imgs, is_hwc)


# The TypeError of the PIL helpers below when given something else; `{}` is the type received.
augment_error_message = "expected a PIL image, but got {}; decode encoded data with Decode() or convert with ToPIL()"


def _require_pil(img) -> None:
    if not is_pil(img):
        raise TypeError(augment_error_message.format(type(img)))


def rotate(img, angle: float, resample, expand: bool, center, fill_value):
    """`img` (a PIL image) rotated by `angle` degrees counter-clockwise, as PIL's `Image.rotate` does.

    Args:
        img: the PIL image.
        angle: degrees, counter-clockwise.
        resample: an `Inter` mode (or a PIL filter); ANTIALIAS only for multiples of 90 degrees about the centre.
        expand: enlarge the output to hold the whole rotated image.
        center: (x, y) of the rotation centre, None for the image centre.
        fill_value: fill of the uncovered area: an int for every band, or one value per band.

    Returns:
        The rotated PIL image.

    Raises:
        TypeError: `img` is not a PIL image.
        ValueError: ANTIALIAS with another angle or an explicit centre.
    """
    _require_pil(img)
    if isinstance(fill_value, int) and len(img.getbands()) > 1:  # a single-band image takes the int itself
        fill_value = (fill_value,) * len(img.getbands())
    elif isinstance(fill_value, list):
        fill_value = tuple(fill_value)
    angle = angle % 360.0
    if resample == Inter.ANTIALIAS and (angle not in (0, 90, 180, 270) or center):
        raise ValueError(f"rotate: Inter.ANTIALIAS needs a multiple of 90 degrees about the centre, got {angle}.")
    pil_filter = pil_filters().get(resample, resample) if isinstance(resample, Inter) else resample
    return img.rotate(angle, pil_filter, expand, center, fillcolor=fill_value)


def _enhanced(img, kind: str, factor: float):
    _require_pil(img)
    return getattr(pil_image("ImageEnhance"), kind)(img).enhance(factor)


def adjust_brightness(img, brightness_factor: float):
    """`img` (a PIL image) with its brightness scaled by `brightness_factor` (1: unchanged), by Pillow.

    Args:
        img: the PIL image.
        brightness_factor: non-negative; 0 gives a black image.

    Returns:
        The adjusted PIL image.
    """
    return _enhanced(img, "Brightness", brightness_factor)


def adjust_contrast(img, contrast_factor: float):
    """`img` (a PIL image) with its contrast scaled by `contrast_factor` (1: unchanged), by Pillow.

    Args:
        img: the PIL image.
        contrast_factor: non-negative; 0 gives a grey image.

    Returns:
        The adjusted PIL image.
    """
    return _enhanced(img, "Contrast", contrast_factor)


def adjust_saturation(img, saturation_factor: float):
    """`img` (a PIL image) with its saturation scaled by `saturation_factor` (1: unchanged), by Pillow.

    Args:
        img: the PIL image.
        saturation_factor: non-negative; 0 gives a grey image.

    Returns:
        The adjusted PIL image.
    """
    return _enhanced(img, "Color", saturation_factor)


def adjust_hue(img, hue_factor: float):
    """`img` (a PIL image) with its hue turned by `hue_factor` of a full turn, in Pillow's 8-bit HSV.

    Args:
        img: the PIL image; single-channel modes come back unchanged.
        hue_factor: in [-0.5, 0.5].

    Returns:
        The adjusted PIL image, in `img`'s mode.
    """
    if not -0.5 <= hue_factor <= 0.5:
        raise ValueError(f"adjust_hue: hue_factor must lie in [-0.5, 0.5], but got {hue_factor}.")
    _require_pil(img)
    if img.mode in {"L", "1", "I", "F"}:
        return img
    hue, saturation, value = img.convert("HSV").split()
    # The shift wraps around in uint8, as a turn of the hue wheel does (a negative factor wraps too).
    turned = (np.asarray(hue, np.uint8) + np.uint8(np.int64(hue_factor * 255) % 256)).astype(np.uint8)
    image = pil_image()
    return image.merge("HSV", (image.fromarray(turned, "L"), saturation, value)).convert(img.mode)
