"""Image transforms with MindSpore's names and semantics (`mindspore.dataset.vision`).

Each transform is a callable on one image (a NumPy array, HW or HWC, or
anything `np.asarray` accepts) for use in `Dataset.map` or on its own. Random
transforms draw from the pipeline's per-row generator (seeded by
`kiln.dataset.config.set_seed`), so results do not depend on thread scheduling.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import numpy as np

from kiln.dataset import _rng
from kiln.dataset.vision import functional as F
from kiln.dataset.vision.utils import Border, Inter

__all__ = [
    "Border",
    "CenterCrop",
    "Decode",
    "HWC2CHW",
    "Inter",
    "Normalize",
    "Pad",
    "RandomCrop",
    "RandomHorizontalFlip",
    "RandomVerticalFlip",
    "Rescale",
    "Resize",
    "ToTensor",
]


def _size_hw(size, name: str) -> tuple[int, int]:
    """An int or an (h, w) pair of positive ints."""
    if isinstance(size, int | np.integer) and not isinstance(size, bool):
        pair = (int(size), int(size))
    elif isinstance(size, Sequence) and len(size) == 2 and all(isinstance(s, int | np.integer) for s in size):
        pair = (int(size[0]), int(size[1]))
    else:
        raise TypeError(f"{name}: size must be an int or a sequence of two ints (height, width), but got {size!r}.")
    if min(pair) < 1:
        raise ValueError(f"{name}: size must be positive, but got {size!r}.")
    return pair


def _padding4(padding, name: str) -> tuple[int, int, int, int]:
    """MindSpore's padding forms as (top, bottom, left, right)."""
    if isinstance(padding, int | np.integer):
        p = int(padding)
        values = (p, p, p, p)
    elif isinstance(padding, Sequence) and len(padding) == 2:
        lr, tb = (int(v) for v in padding)  # (left/right, top/bottom)
        values = (tb, tb, lr, lr)
    elif isinstance(padding, Sequence) and len(padding) == 4:
        left, top, right, bottom = (int(v) for v in padding)
        values = (top, bottom, left, right)
    else:
        raise TypeError(f"{name}: padding must be an int or a sequence of 2 or 4 ints, but got {padding!r}.")
    if min(values) < 0:
        raise ValueError(f"{name}: padding must not be negative, but got {padding!r}.")
    return values


def _check_prob(prob, name: str) -> float:
    if isinstance(prob, bool) or not isinstance(prob, int | float) or not 0.0 <= prob <= 1.0:
        raise ValueError(f"{name}: prob must be a number in [0, 1], but got {prob!r}.")
    return float(prob)


class _ImageOp:
    """Common repr for the transforms."""

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if not k.startswith("_"))
        return f"{type(self).__name__}({args})"


@functools.lru_cache(maxsize=256)
def _shorter_side_size(h: int, w: int, size: int) -> tuple[int, int]:
    # MindSpore: the longer side becomes lround(float(long) / short * size), computed in float32.
    if h < w:
        return size, int(math.floor(float(np.float32(w) / np.float32(h) * np.float32(size)) + 0.5))
    return int(math.floor(float(np.float32(h) / np.float32(w) * np.float32(size)) + 0.5)), size


class Resize(_ImageOp):
    """Resize an image.

    Args:
        size: an int resizes the shorter side to `size` keeping the aspect ratio
            (the longer side becomes round(long * size / short)); (height, width) resizes exactly.
        interpolation: Inter.LINEAR (bilinear, half-pixel centres) or Inter.NEAREST.

    Returns:
        A callable mapping an HW/HWC image to the resized image of the same dtype.
    """

    def __init__(self, size: int | Sequence[int], interpolation: Inter = Inter.LINEAR) -> None:
        _size_hw(size, "Resize")
        if not isinstance(interpolation, Inter):
            raise TypeError(f"Resize: interpolation must be a vision.Inter, but got {interpolation!r}.")
        if interpolation not in (Inter.LINEAR, Inter.NEAREST):
            raise NotImplementedError(f"Resize: {interpolation} is not implemented in Kiln; use LINEAR or NEAREST.")
        self.size = size
        self.interpolation = interpolation

    def _out_size(self, h: int, w: int) -> tuple[int, int]:
        if isinstance(self.size, int | np.integer):
            return _shorter_side_size(h, w, int(self.size))
        return int(self.size[0]), int(self.size[1])

    def __call__(self, img) -> np.ndarray:
        img = F.as_image(img, "Resize")
        return F.resize(img, *self._out_size(*img.shape[:2]), self.interpolation)

    def batch_call(self, images: np.ndarray) -> np.ndarray:
        """The same resize on a stack of equally shaped images (N, H, W[, C])."""
        F.as_image(images[0], "Resize")
        return F.resize(images, *self._out_size(*images.shape[1:3]), self.interpolation, batched=True)


class Rescale(_ImageOp):
    """`image * rescale + shift`, as float32.

    Args:
        rescale: the scale factor.
        shift: the offset added after scaling.
    """

    def __init__(self, rescale: float, shift: float) -> None:
        self.rescale = float(rescale)
        self.shift = float(shift)

    def __call__(self, img) -> np.ndarray:
        arr = np.asarray(img, dtype=np.float32)
        return arr * np.float32(self.rescale) + np.float32(self.shift)

    batch_call = __call__  # elementwise: a stack of images is transformed alike


class Normalize(_ImageOp):
    """`(image - mean) / std` per channel, as float32.

    Args:
        mean: one value per channel (or one for all channels).
        std: one positive value per channel (or one for all channels).
        is_hwc: channels are the last axis (True) or the first (False).
    """

    def __init__(self, mean: Sequence[float], std: Sequence[float], is_hwc: bool = True) -> None:
        mean = [float(m) for m in (mean if isinstance(mean, Sequence) else [mean])]
        std = [float(s) for s in (std if isinstance(std, Sequence) else [std])]
        if not mean or len(mean) != len(std):
            raise ValueError(f"Normalize: mean and std need the same non-zero length, got {mean} and {std}.")
        if min(std) <= 0:
            raise ValueError(f"Normalize: std values must be positive, but got {std}.")
        self.mean, self.std, self.is_hwc = mean, std, bool(is_hwc)
        shape = (-1,) if self.is_hwc else (-1, 1, 1)
        self._mean = np.asarray(mean, np.float32).reshape(shape)
        self._std = np.asarray(std, np.float32).reshape(shape)

    def __call__(self, img) -> np.ndarray:
        return self._normalize(np.asarray(F.as_image(img, "Normalize"), dtype=np.float32), arr_ndim=None)

    def batch_call(self, images: np.ndarray) -> np.ndarray:
        """The same normalisation on a stack of equally shaped images."""
        F.as_image(images[0], "Normalize")
        return self._normalize(np.asarray(images, dtype=np.float32), arr_ndim=images.ndim - 1)

    def _normalize(self, arr: np.ndarray, arr_ndim: int | None) -> np.ndarray:
        # `arr_ndim` is one image's rank when `arr` is a stack of images (the channel axis is counted from it).
        row_ndim = arr.ndim if arr_ndim is None else arr_ndim
        row_shape = arr.shape[arr.ndim - row_ndim :]
        axis = -1 if self.is_hwc else 0
        channels = 1 if row_ndim == 2 else row_shape[axis]
        if len(self.mean) not in (1, channels):
            raise RuntimeError(
                f"Normalize: the image has {channels} channel(s) (shape {row_shape}, is_hwc={self.is_hwc}) "
                f"but mean/std have {len(self.mean)} values."
            )
        if row_ndim == 2:
            return (arr - self._mean.reshape(-1)) / self._std.reshape(-1)
        return (arr - self._mean) / self._std


class HWC2CHW(_ImageOp):
    """Transpose an HWC image to CHW (an HW image is returned unchanged, as in MindSpore)."""

    def __call__(self, img) -> np.ndarray:
        arr = F.as_image(img, "HWC2CHW")
        return arr if arr.ndim == 2 else np.ascontiguousarray(arr.transpose(2, 0, 1))

    def batch_call(self, images: np.ndarray) -> np.ndarray:
        """The same transpose on a stack of images: (N, H, W, C) -> (N, C, H, W)."""
        F.as_image(images[0], "HWC2CHW")
        return images if images.ndim == 3 else np.ascontiguousarray(images.transpose(0, 3, 1, 2))


class ToTensor(_ImageOp):
    """HWC image in [0, 255] -> CHW float array in [0, 1] (HW becomes 1HW).

    Args:
        output_type: the output dtype (default float32).
    """

    def __init__(self, output_type=np.float32) -> None:
        self.output_type = np.dtype(getattr(output_type, "np", output_type))

    def __call__(self, img) -> np.ndarray:
        arr = F.as_image(img, "ToTensor")
        if arr.ndim == 2:
            arr = arr[:, :, None]
        out = arr.transpose(2, 0, 1).astype(np.float32) / np.float32(255.0)
        return np.ascontiguousarray(out.astype(self.output_type, copy=False))


class CenterCrop(_ImageOp):
    """Crop the centre; an image smaller than `size` is zero-padded first (as in MindSpore).

    Args:
        size: an int (square) or (height, width).
    """

    def __init__(self, size: int | Sequence[int]) -> None:
        self.size = _size_hw(size, "CenterCrop")

    def __call__(self, img) -> np.ndarray:
        arr = F.as_image(img, "CenterCrop")
        ch, cw = self.size
        dh, dw = max(ch - arr.shape[0], 0), max(cw - arr.shape[1], 0)
        # The extra pixel of an odd padding goes to the top/left, as in MindSpore.
        arr = F.pad(arr, dh - dh // 2, dh // 2, dw - dw // 2, dw // 2)
        top, left = (arr.shape[0] - ch) // 2, (arr.shape[1] - cw) // 2
        return F.crop(arr, top, left, ch, cw)


class Pad(_ImageOp):
    """Pad an image.

    Args:
        padding: int (all sides), (left/right, top/bottom) or (left, top, right, bottom).
        fill_value: value (or one per channel) for Border.CONSTANT.
        padding_mode: a vision.Border.
    """

    def __init__(self, padding, fill_value=0, padding_mode: Border = Border.CONSTANT) -> None:
        self.padding = _padding4(padding, "Pad")
        self.fill_value = fill_value
        self.padding_mode = Border(padding_mode)

    def __call__(self, img) -> np.ndarray:
        return F.pad(F.as_image(img, "Pad"), *self.padding, self.padding_mode, self.fill_value)


class RandomCrop(_ImageOp):
    """Crop a random window, optionally after padding.

    Args:
        size: an int (square) or (height, width).
        padding: padded around the image first: int, (left/right, top/bottom) or (left, top, right, bottom).
        pad_if_needed: pad (both sides, by the shortfall) when the image is smaller than `size`.
        fill_value: value (or one per channel) for Border.CONSTANT.
        padding_mode: a vision.Border.
    """

    def __init__(
        self,
        size: int | Sequence[int],
        padding=None,
        pad_if_needed: bool = False,
        fill_value=0,
        padding_mode: Border = Border.CONSTANT,
    ) -> None:
        self.size = _size_hw(size, "RandomCrop")
        self.padding = (0, 0, 0, 0) if padding is None else _padding4(padding, "RandomCrop")
        self.pad_if_needed = bool(pad_if_needed)
        self.fill_value = fill_value
        self.padding_mode = Border(padding_mode)

    def __call__(self, img) -> np.ndarray:
        arr = F.pad(F.as_image(img, "RandomCrop"), *self.padding, self.padding_mode, self.fill_value)
        ch, cw = self.size
        if self.pad_if_needed:
            dh, dw = max(ch - arr.shape[0], 0), max(cw - arr.shape[1], 0)
            arr = F.pad(arr, dh, dh, dw, dw, self.padding_mode, self.fill_value)
        h, w = arr.shape[:2]
        if h < ch or w < cw:
            raise RuntimeError(
                f"RandomCrop: crop size {self.size} is bigger than the (padded) image {(h, w)}; "
                "use padding or pad_if_needed=True."
            )
        gen = _rng.generator()
        left = int(gen.integers(0, w - cw + 1))
        top = int(gen.integers(0, h - ch + 1))
        return F.crop(arr, top, left, ch, cw)


class RandomHorizontalFlip(_ImageOp):
    """Mirror the image left-right with probability `prob`.

    Args:
        prob: probability of flipping, in [0, 1].
    """

    def __init__(self, prob: float = 0.5) -> None:
        self.prob = _check_prob(prob, "RandomHorizontalFlip")

    def __call__(self, img) -> np.ndarray:
        arr = F.as_image(img, "RandomHorizontalFlip")
        return arr[:, ::-1].copy() if _rng.generator().random() < self.prob else arr


class RandomVerticalFlip(_ImageOp):
    """Mirror the image top-bottom with probability `prob`.

    Args:
        prob: probability of flipping, in [0, 1].
    """

    def __init__(self, prob: float = 0.5) -> None:
        self.prob = _check_prob(prob, "RandomVerticalFlip")

    def __call__(self, img) -> np.ndarray:
        arr = F.as_image(img, "RandomVerticalFlip")
        return arr[::-1].copy() if _rng.generator().random() < self.prob else arr


class Decode(_ImageOp):
    """Decode image file bytes (1-D uint8) into an HWC uint8 RGB image; needs Pillow."""

    def __call__(self, img) -> np.ndarray:
        return F.decode(img)
