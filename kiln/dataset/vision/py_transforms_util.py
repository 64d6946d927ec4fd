"""Helpers of the Python vision transforms (`mindspore.dataset.vision.py_transforms_util`)."""

from __future__ import annotations

import numpy as np

from kiln.dataset.vision import color as _color


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
