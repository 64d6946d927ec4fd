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
from kiln.dataset.vision import color as C
from kiln.dataset.vision import functional as F
from kiln.dataset.vision import py_transforms_util as P
from kiln.dataset.vision.utils import (
    AutoAugmentPolicy,
    Border,
    ConvertMode,
    ImageBatchFormat,
    ImageReadMode,
    Inter,
    SliceMode,
    as_image,
    encode_jpeg,
    encode_png,
    get_image_num_channels,
    get_image_size,
    is_pil,
    pil_image,
    pil_resample,
    read_file,
    read_image,
    write_file,
    write_jpeg,
    write_png,
)

__all__ = [
    "AdjustBrightness",
    "AdjustContrast",
    "AdjustGamma",
    "AdjustHue",
    "AdjustSaturation",
    "AdjustSharpness",
    "Affine",
    "AutoContrast",
    "Border",
    "CenterCrop",
    "ConvertColor",
    "ConvertMode",
    "Crop",
    "CutMixBatch",
    "CutOut",
    "Decode",
    "Equalize",
    "Erase",
    "FiveCrop",
    "GaussianBlur",
    "Grayscale",
    "HWC2CHW",
    "HorizontalFlip",
    "HsvToRgb",
    "ImageBatchFormat",
    "ImageReadMode",
    "Inter",
    "Invert",
    "LinearTransformation",
    "MixUp",
    "MixUpBatch",
    "Normalize",
    "NormalizePad",
    "Pad",
    "PadToSize",
    "Perspective",
    "Posterize",
    "RandomAdjustSharpness",
    "RandomAffine",
    "RandomAutoContrast",
    "RandomColor",
    "RandomColorAdjust",
    "RandomCrop",
    "RandomCropDecodeResize",
    "RandomEqualize",
    "RandomErasing",
    "RandomGrayscale",
    "RandomHorizontalFlip",
    "RandomInvert",
    "RandomLighting",
    "RandomPerspective",
    "RandomPosterize",
    "RandomResize",
    "RandomResizedCrop",
    "RandomRotation",
    "RandomSelectSubpolicy",
    "RandomSharpness",
    "RandomSolarize",
    "RandomVerticalFlip",
    "Rescale",
    "Resize",
    "ResizedCrop",
    "RgbToHsv",
    "Rotate",
    "SliceMode",
    "SlicePatches",
    "Solarize",
    "TenCrop",
    "ToNumpy",
    "ToPIL",
    "ToTensor",
    "ToType",
    "UniformAugment",
    "VerticalFlip",
    "encode_jpeg",
    "encode_png",
    "get_image_num_channels",
    "get_image_size",
    "read_file",
    "read_image",
    "write_file",
    "write_jpeg",
    "write_png",
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
    # MindSpore: the longer side becomes floor(float(long) / short * size), computed in float32 (truncated,
    # not rounded: a 97x131 image resized to 256 is 256x345).
    if h < w:
        return size, int(math.floor(float(np.float32(w) / np.float32(h) * np.float32(size))))
    return int(math.floor(float(np.float32(h) / np.float32(w) * np.float32(size)))), size


class Resize(_ImageOp):
    """Resize an image.

    Args:
        size: an int resizes the shorter side to `size` keeping the aspect ratio (the longer side
            becomes floor(long * size / short), as MindSpore computes it); (height, width) resizes exactly.
        interpolation: Inter.LINEAR (bilinear, half-pixel centres), Inter.NEAREST, Inter.BICUBIC (= CUBIC,
            OpenCV's bicubic), Inter.AREA (OpenCV's pixel-area averaging), Inter.PILCUBIC (Pillow's bicubic,
            uint8 RGB images); Inter.ANTIALIAS for PIL images only. A PIL image is resized by Pillow, as in
            MindSpore, and returned as a PIL image.

    Returns:
        A callable mapping an HW/HWC image (or a <..., H, W, C> stack of them) to the resized image of the same
        dtype.
    """

    def __init__(self, size: int | Sequence[int], interpolation: Inter = Inter.LINEAR) -> None:
        _size_hw(size, "Resize")
        if not isinstance(interpolation, Inter):
            raise TypeError(f"Resize: interpolation must be a vision.Inter, but got {interpolation!r}.")
        if interpolation not in (Inter.LINEAR, Inter.NEAREST, Inter.CUBIC, Inter.AREA, Inter.PILCUBIC, Inter.ANTIALIAS):
            raise NotImplementedError(
                f"Resize: {interpolation} is not implemented in Kiln; use LINEAR, NEAREST, BICUBIC, AREA or "
                "PILCUBIC (or ANTIALIAS on PIL images)."
            )
        self.size = size
        self.interpolation = interpolation

    def _out_size(self, h: int, w: int) -> tuple[int, int]:
        if isinstance(self.size, int | np.integer):
            return _shorter_side_size(h, w, int(self.size))
        return int(self.size[0]), int(self.size[1])

    def __call__(self, img) -> np.ndarray:
        if is_pil(img) and self.interpolation in (Inter.AREA, Inter.PILCUBIC):
            # no Pillow filter: a MindSpore pipeline resizes these as arrays (and returns an array)
            img = np.asarray(img)
        if is_pil(img):
            return self._resize_pil(img)
        if self.interpolation == Inter.ANTIALIAS:
            raise TypeError(
                f"Resize: Inter.ANTIALIAS resizes PIL images only (Pillow's LANCZOS), but got {type(img).__name__}; "
                "add vision.ToPIL() before it."
            )
        arr = np.asarray(img)
        if arr.ndim > 3:  # <..., H, W, C>: every image of the leading dimensions, as MindSpore
            flat = arr.reshape(-1, *arr.shape[-3:])
            out = F.resize(flat, *self._out_size(*arr.shape[-3:-1]), self.interpolation, batched=True)
            return out.reshape(*arr.shape[:-3], *out.shape[1:])
        img = as_image(arr, "Resize")
        return F.resize(img, *self._out_size(*img.shape[:2]), self.interpolation)

    def _resize_pil(self, img):
        """A PIL image is resized by Pillow and stays a PIL image, as MindSpore does (its filters differ from
        OpenCV's: Pillow widens its kernel when it shrinks). An int size truncates the longer side too."""
        width, height = img.size
        if isinstance(self.size, int | np.integer):
            size = int(self.size)
            if width <= height:
                width, height = size, int(size * height / width)
            else:
                width, height = int(size * width / height), size
        else:
            height, width = int(self.size[0]), int(self.size[1])
        return img.resize((width, height), pil_resample(self.interpolation))

    def batch_call(self, images: np.ndarray) -> np.ndarray:
        """The same resize on a stack of equally shaped images (N, H, W[, C])."""
        as_image(images[0], "Resize")
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
        return self._normalize(np.asarray(as_image(img, "Normalize"), dtype=np.float32), arr_ndim=None)

    def batch_call(self, images: np.ndarray) -> np.ndarray:
        """The same normalisation on a stack of equally shaped images."""
        as_image(images[0], "Normalize")
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
        arr = as_image(img, "HWC2CHW")
        return arr if arr.ndim == 2 else np.ascontiguousarray(arr.transpose(2, 0, 1))

    def batch_call(self, images: np.ndarray) -> np.ndarray:
        """The same transpose on a stack of images: (N, H, W, C) -> (N, C, H, W)."""
        as_image(images[0], "HWC2CHW")
        return images if images.ndim == 3 else np.ascontiguousarray(images.transpose(0, 3, 1, 2))


class ToTensor(_ImageOp):
    """HWC image in [0, 255] -> CHW float array in [0, 1] (HW becomes 1HW).

    Args:
        output_type: the output dtype (default float32).
    """

    def __init__(self, output_type=np.float32) -> None:
        self.output_type = np.dtype(getattr(output_type, "np", output_type))

    def __call__(self, img) -> np.ndarray:
        if isinstance(img, np.ndarray) and (img.dtype.kind in "USO" or img.dtype in (np.uint32, np.int64, np.uint64)):
            # MindSpore refuses these input types rather than converting them.
            raise RuntimeError(
                f"ToTensor: images of dtype {img.dtype} are refused (as MindSpore refuses uint32, int64, uint64, "
                "string and bytes images); cast the image to uint8 or float first."
            )
        arr = as_image(img, "ToTensor")
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
        ch, cw = self.size
        if is_pil(img):
            # MindSpore crops a PIL image with Pillow and rounds the offsets (halves to even), where its array
            # path floors them; Pillow fills what lies outside the image with zeros.
            width, height = img.size
            top, left = int(round((height - ch) / 2)), int(round((width - cw) / 2))
            return img.crop((left, top, left + cw, top + ch))
        arr = as_image(img, "CenterCrop")
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
        if is_pil(img):  # the same pixels, returned as a PIL image as MindSpore does
            return pil_image().fromarray(self(np.asarray(img)))
        return F.pad(as_image(img, "Pad"), *self.padding, self.padding_mode, self.fill_value)


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
        if is_pil(img):  # the same crop, returned as a PIL image as MindSpore does
            return pil_image().fromarray(self(np.asarray(img)))
        arr = F.pad(as_image(img, "RandomCrop"), *self.padding, self.padding_mode, self.fill_value)
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


class _RandomApplyOp(_ImageOp):
    """Apply a deterministic op with probability `prob` (0.5 unless the subclass's own `__init__` says otherwise)."""

    def __init__(self, prob: float = 0.5) -> None:
        self.prob = _check_prob(prob, type(self).__name__)

    def _maybe(self, img, op):
        arr = as_image(img, type(self).__name__)
        return op(arr) if _rng.generator().random() < self.prob else arr


class _RandomFlip(_RandomApplyOp):
    """Mirror the image along the axis `_AXIS` (0: top-bottom, 1: left-right) with probability `prob`."""

    _AXIS: int

    def __call__(self, img) -> np.ndarray:
        if is_pil(img):  # MindSpore flips a PIL image with Pillow and returns a PIL image
            flip = pil_image().FLIP_TOP_BOTTOM if self._AXIS == 0 else pil_image().FLIP_LEFT_RIGHT
            return img.transpose(flip) if _rng.generator().random() < self.prob else img
        return self._maybe(img, lambda arr: np.flip(arr, self._AXIS).copy())


class RandomHorizontalFlip(_RandomFlip):
    """Mirror the image left-right with probability `prob`.

    Args:
        prob: probability of flipping, in [0, 1].
    """

    _AXIS = 1


class RandomVerticalFlip(_RandomFlip):
    """Mirror the image top-bottom with probability `prob`.

    Args:
        prob: probability of flipping, in [0, 1].
    """

    _AXIS = 0


class Decode(_ImageOp):
    """Decode image file bytes (1-D uint8) into an HWC uint8 RGB image; needs Pillow.

    Args:
        to_pil: return an RGB PIL image instead of an array (for the transforms that take PIL images).
    """

    def __init__(self, to_pil: bool = False) -> None:
        if not isinstance(to_pil, bool):
            raise TypeError(f"Decode: to_pil must be a bool, but got {type(to_pil).__name__}.")
        self.to_pil = to_pil

    def __call__(self, img):
        if is_pil(img):
            raise TypeError("Decode: the input is a PIL image, which is decoded already; Decode takes file bytes.")
        return pil_image().fromarray(F.decode(img)) if self.to_pil else F.decode(img)


# -- more transforms ---------------------------------------------------------------------------------------------


def _rgb(img, op: str) -> np.ndarray:
    arr = as_image(img, op)
    if arr.ndim != 3 or arr.shape[2] != 3:
        raise RuntimeError(f"{op}: expected an RGB image of shape <H, W, 3>, but got shape {arr.shape}.")
    return arr


def _pil_enhance(img, kind: str, factor: float):
    """Pillow's ImageEnhance.<kind> of a PIL image by `factor` (MindSpore's path for PIL images)."""
    return getattr(pil_image("ImageEnhance"), kind)(img).enhance(factor)


def _like_input(img, out):
    """`out` as a PIL image when the input `img` was one (the transforms MindSpore runs in Python keep PIL images)."""
    return pil_image().fromarray(np.asarray(out)) if is_pil(img) else out


def _check_factor(value, name: str, low: float = 0.0) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating) or value < low:
        raise ValueError(f"{name} must be a number >= {low}, but got {value!r}.")
    return float(value)


def _range(value, name: str, center: float | None = None, low: float = 0.0) -> tuple[float, float]:
    """A number x (-> (center - x, center + x) or (0, x)) or a (min, max) pair."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        if value < 0:
            raise ValueError(f"{name} is {value}; a range half-width cannot be negative: pass 0 or more.")
        pair = (max(low, center - value), center + value) if center is not None else (low, float(value))
    elif isinstance(value, Sequence) and len(value) == 2:
        pair = (float(value[0]), float(value[1]))
    else:
        raise TypeError(f"{name} must be a number or a (min, max) pair, but got {value!r}.")
    if pair[0] > pair[1]:
        raise ValueError(f"{name}: min must not exceed max, but got {value!r}.")
    return pair


class AdjustBrightness(_ImageOp):
    """Multiply the image by `brightness_factor` (saturated for uint8).

    Args:
        brightness_factor: a non-negative number; 1 keeps the image.
    """

    def __init__(self, brightness_factor: float) -> None:
        self.brightness_factor = _check_factor(brightness_factor, "AdjustBrightness: brightness_factor")

    def __call__(self, img):
        if is_pil(img):  # MindSpore enhances a PIL image with Pillow and returns a PIL image
            return _pil_enhance(img, "Brightness", self.brightness_factor)
        return C.adjust_brightness(_rgb(img, "AdjustBrightness"), self.brightness_factor)


class AdjustContrast(_ImageOp):
    """Blend the image with its mean gray level: factor * img + (1 - factor) * mean.

    Args:
        contrast_factor: a non-negative number; 1 keeps the image, 0 gives the mean gray.
    """

    def __init__(self, contrast_factor: float) -> None:
        self.contrast_factor = _check_factor(contrast_factor, "AdjustContrast: contrast_factor")

    def __call__(self, img):
        if is_pil(img):  # Pillow's ImageEnhance.Contrast, a PIL image out, as MindSpore
            return _pil_enhance(img, "Contrast", self.contrast_factor)
        return C.adjust_contrast(_rgb(img, "AdjustContrast"), self.contrast_factor)


class AdjustSaturation(_ImageOp):
    """Blend the image with its grayscale version: factor * img + (1 - factor) * gray.

    Args:
        saturation_factor: a non-negative number; 1 keeps the image, 0 gives gray.
    """

    def __init__(self, saturation_factor: float) -> None:
        self.saturation_factor = _check_factor(saturation_factor, "AdjustSaturation: saturation_factor")

    def __call__(self, img):
        if is_pil(img):  # Pillow's ImageEnhance.Color, a PIL image out, as MindSpore
            return _pil_enhance(img, "Color", self.saturation_factor)
        return C.adjust_saturation(_rgb(img, "AdjustSaturation"), self.saturation_factor)


class AdjustHue(_ImageOp):
    """Shift the hue by `hue_factor` turns (in HSV).

    Args:
        hue_factor: in [-0.5, 0.5].
    """

    def __init__(self, hue_factor: float) -> None:
        if not -0.5 <= float(hue_factor) <= 0.5:
            raise ValueError(f"AdjustHue: hue_factor must be in [-0.5, 0.5], but got {hue_factor}.")
        self.hue_factor = float(hue_factor)

    def __call__(self, img):
        if is_pil(img):  # Pillow's 8-bit HSV, a PIL image out (single-band images unchanged), as MindSpore
            return P.adjust_hue(img, self.hue_factor)
        return C.adjust_hue(_rgb(img, "AdjustHue"), self.hue_factor)


class AdjustGamma(_ImageOp):
    """out = 255 * gain * (img / 255) ** gamma (for uint8; float images: gain * img ** gamma).

    Args:
        gamma: a non-negative exponent.
        gain: the multiplier.
    """

    def __init__(self, gamma: float, gain: float = 1) -> None:
        self.gamma = _check_factor(gamma, "AdjustGamma: gamma")
        self.gain = float(gain)

    def __call__(self, img):
        if is_pil(img):
            # MindSpore maps a PIL image through the table int((256 - 1e-3) * gain * (i / 255) ** gamma) (cut at
            # 255), with Pillow's point, and returns a PIL image.
            table = [min(255, int((256 - 1e-3) * self.gain * (i / 255.0) ** self.gamma)) for i in range(256)]
            return img.point(table * len(img.getbands()))
        return C.adjust_gamma(as_image(img, "AdjustGamma"), self.gamma, self.gain)


class AdjustSharpness(_ImageOp):
    """Blend with a smoothed image: factor 0 blurs, 1 keeps, 2 sharpens.

    Args:
        sharpness_factor: a non-negative number.
    """

    def __init__(self, sharpness_factor: float) -> None:
        self.sharpness_factor = _check_factor(sharpness_factor, "AdjustSharpness: sharpness_factor")

    def __call__(self, img) -> np.ndarray:
        return C.sharpness(as_image(img, "AdjustSharpness"), self.sharpness_factor)


class AutoContrast(_ImageOp):
    """Stretch every channel to the full [0, 255] range (PIL's autocontrast).

    Args:
        cutoff: percent of the lightest and darkest pixels to ignore, in [0, 50).
        ignore: a gray level (or list of levels) left out of the histogram.
    """

    def __init__(self, cutoff: float = 0.0, ignore=None) -> None:
        if not 0 <= float(cutoff) < 50:
            raise ValueError(f"AutoContrast: cutoff must be in [0, 50), but got {cutoff}.")
        self.cutoff, self.ignore = float(cutoff), ignore

    def __call__(self, img):
        if is_pil(img):  # Pillow's ImageOps.autocontrast, a PIL image out, as MindSpore
            return pil_image("ImageOps").autocontrast(img, self.cutoff, self.ignore)
        return C.auto_contrast(as_image(img, "AutoContrast"), self.cutoff, self.ignore)


class Equalize(_ImageOp):
    """Equalize the histogram of every channel (OpenCV's equalizeHist; Pillow's ImageOps.equalize on a PIL image,
    which stays a PIL image, as in MindSpore)."""

    def __call__(self, img):
        if is_pil(img):
            return pil_image("ImageOps").equalize(img)
        return C.equalize(as_image(img, "Equalize"))


class Invert(_ImageOp):
    """255 - image: integer images keep their dtype (the result saturated to it), float images 255.0 - x."""

    def __call__(self, img):
        if is_pil(img):  # a PIL image out, as MindSpore
            return pil_image("ImageOps").invert(img)
        return self.batch_call(img)

    def batch_call(self, img) -> np.ndarray:
        arr = as_image(img, "Invert") if np.ndim(img) <= 3 else np.asarray(img)
        if arr.dtype == np.bool_ or np.issubdtype(arr.dtype, np.integer):
            # 255 - x saturated to the dtype, which it keeps (as MindSpore: a uint16 0 stays 255, a 300 becomes 0)
            low, high = (0, 1) if arr.dtype == np.bool_ else (np.iinfo(arr.dtype).min, np.iinfo(arr.dtype).max)
            return np.clip(255 - arr.astype(np.int64), low, high).astype(arr.dtype)
        return 255.0 - arr


class Posterize(_ImageOp):
    """Keep the `bits` high bits of every uint8 value.

    Args:
        bits: in [0, 8].
    """

    def __init__(self, bits: int) -> None:
        if isinstance(bits, bool) or not isinstance(bits, int) or not 0 <= bits <= 8:
            raise ValueError(f"Posterize: bits must be an int in [0, 8], but got {bits!r}.")
        self.bits = bits

    def __call__(self, img) -> np.ndarray:
        arr = as_image(img, "Posterize")
        if arr.dtype != np.uint8:
            raise RuntimeError(f"Posterize: the image must be uint8, but got {arr.dtype}.")
        return arr & np.uint8((0xFF << (8 - self.bits)) & 0xFF)


class Solarize(_ImageOp):
    """Invert the pixels whose value lies in [min, max].

    Args:
        threshold: a number t (the range [t, 255]) or a (min, max) pair; (t, t) is read as t.
    """

    def __init__(self, threshold) -> None:
        self.threshold = (float(threshold), 255.0) if isinstance(threshold, int | float) else tuple(threshold)
        if len(self.threshold) != 2 or self.threshold[0] > self.threshold[1]:
            raise ValueError(f"Solarize: threshold must be a number or a (min, max) pair, but got {threshold!r}.")

    def __call__(self, img) -> np.ndarray:
        arr = as_image(img, "Solarize")
        lo, hi = self.threshold
        if lo == hi:  # MindSpore reads (t, t) as the single threshold t: every value >= t is inverted
            hi = 255.0
        inside = (arr >= lo) & (arr <= hi)
        return np.where(
            inside, (255 - arr.astype(np.int64)).astype(arr.dtype) if arr.dtype == np.uint8 else 255.0 - arr, arr
        ).astype(arr.dtype)


class ConvertColor(_ImageOp):
    """Convert between RGB, BGR, RGBA, BGRA and gray (OpenCV's cvtColor codes).

    Args:
        convert_mode: a vision.ConvertMode.
    """

    def __init__(self, convert_mode: ConvertMode) -> None:
        self.convert_mode = ConvertMode(convert_mode)

    def __call__(self, img) -> np.ndarray:
        arr = as_image(img, "ConvertColor")
        m = int(self.convert_mode)
        alpha = np.iinfo(arr.dtype).max if np.issubdtype(arr.dtype, np.integer) else 1.0
        if m in (8, 9):  # gray -> 3 or 4 channels
            g = arr if arr.ndim == 2 else arr[..., 0]
            out = np.stack([g, g, g], -1)
            return np.concatenate([out, np.full(g.shape + (1,), alpha, arr.dtype)], -1) if m == 9 else out
        if arr.ndim != 3 or arr.shape[2] not in (3, 4):
            raise RuntimeError(f"ConvertColor: expected a 3- or 4-channel image, but got shape {arr.shape}.")
        if m in (6, 7, 10, 11):  # -> gray
            rgb = arr[..., :3] if m in (7, 11) else arr[..., 2::-1]
            return C.rgb_to_gray(np.ascontiguousarray(rgb))
        color = arr[..., :3]
        if m in (2, 3, 4, 5):
            color = color[..., ::-1]
        if m in (0, 2):
            return np.concatenate([color, np.full(arr.shape[:2] + (1,), alpha, arr.dtype)], -1)
        if m == 5:
            return np.concatenate([color, arr[..., 3:4]], -1)
        return np.ascontiguousarray(color)


class Crop(_ImageOp):
    """Crop the window at `coordinates` (top, left) of `size`.

    Args:
        coordinates: (top, left).
        size: an int or (height, width).
    """

    def __init__(self, coordinates, size) -> None:
        self.coordinates = (int(coordinates[0]), int(coordinates[1]))
        self.size = _size_hw(size, "Crop")

    def __call__(self, img) -> np.ndarray:
        arr = as_image(img, "Crop")
        (top, left), (h, w) = self.coordinates, self.size
        if top + h > arr.shape[0] or left + w > arr.shape[1]:
            raise RuntimeError(f"Crop: the window {(top, left, h, w)} exceeds the image {arr.shape[:2]}.")
        return F.crop(arr, top, left, h, w)


class HorizontalFlip(_ImageOp):
    """Mirror the image left-right."""

    def __call__(self, img) -> np.ndarray:
        return np.ascontiguousarray(as_image(img, "HorizontalFlip")[:, ::-1])


class VerticalFlip(_ImageOp):
    """Mirror the image top-bottom."""

    def __call__(self, img) -> np.ndarray:
        return np.ascontiguousarray(as_image(img, "VerticalFlip")[::-1])


class Erase(_ImageOp):
    """Fill the window (top, left, height, width) with `value`.

    Args:
        top, left, height, width: the window.
        value: a number or one per channel.
        inplace: accepted for compatibility (a new array is returned).
    """

    def __init__(self, top: int, left: int, height: int, width: int, value=0.0, inplace: bool = False) -> None:
        self.top, self.left, self.height, self.width = int(top), int(left), int(height), int(width)
        self.value, self.inplace = value, inplace

    def __call__(self, img) -> np.ndarray:
        arr = as_image(img, "Erase").copy()
        value = np.asarray(self.value)
        if arr.dtype == np.uint8:
            value = C.saturate_u8(value.astype(np.float64))
        arr[self.top : self.top + self.height, self.left : self.left + self.width] = value
        return arr


class CutOut(_ImageOp):
    """Zero `num_patches` random square patches of side `length`.

    Args:
        length: the side of a patch.
        num_patches: how many patches.
        is_hwc: the image is HWC (True) or CHW.
    """

    def __init__(self, length: int, num_patches: int = 1, is_hwc: bool = True) -> None:
        self.length, self.num_patches, self.is_hwc = int(length), int(num_patches), bool(is_hwc)
        if self.length < 1 or self.num_patches < 1:
            raise ValueError("CutOut: length and num_patches must be positive.")

    def __call__(self, img) -> np.ndarray:
        arr = np.array(img)
        h, w = (arr.shape[0], arr.shape[1]) if self.is_hwc else (arr.shape[-2], arr.shape[-1])
        gen = _rng.generator()
        for _ in range(self.num_patches):
            top = int(gen.integers(0, max(h - self.length, 0) + 1))
            left = int(gen.integers(0, max(w - self.length, 0) + 1))
            if self.is_hwc:
                arr[top : top + self.length, left : left + self.length] = 0
            else:
                arr[..., top : top + self.length, left : left + self.length] = 0
        return arr


class FiveCrop(_ImageOp):
    """The four corner crops and the centre crop of `size`, as a tuple.

    Args:
        size: an int or (height, width).
    """

    def __init__(self, size) -> None:
        self.size = _size_hw(size, "FiveCrop")

    def __call__(self, img):
        arr = _as_array(img)
        h, w = arr.shape[:2]
        ch, cw = self.size
        if ch > h or cw > w:
            raise RuntimeError(f"FiveCrop: crop size {self.size} is larger than the image {(h, w)}.")
        # MindSpore's FiveCrop (a PIL transform) puts the centre crop at round((h - ch) / 2), round((w - cw) / 2),
        # Python's rounding (half to even), where CenterCrop floors.
        centre = F.crop(arr, round((h - ch) / 2.0), round((w - cw) / 2.0), ch, cw)
        crops = (
            F.crop(arr, 0, 0, ch, cw),
            F.crop(arr, 0, w - cw, ch, cw),
            F.crop(arr, h - ch, 0, ch, cw),
            F.crop(arr, h - ch, w - cw, ch, cw),
            centre,
        )
        if is_pil(img):  # MindSpore's FiveCrop takes and returns PIL images
            return tuple(pil_image().fromarray(np.ascontiguousarray(c)) for c in crops)
        return crops


class TenCrop(_ImageOp):
    """FiveCrop of the image and of its flipped version (10 crops).

    Args:
        size: an int or (height, width).
        use_vertical_flip: flip top-bottom instead of left-right.
    """

    def __init__(self, size, use_vertical_flip: bool = False) -> None:
        self.size = _size_hw(size, "TenCrop")
        self.use_vertical_flip = bool(use_vertical_flip)

    def __call__(self, img):
        arr = _as_array(img)
        flipped = np.ascontiguousarray(arr[::-1] if self.use_vertical_flip else arr[:, ::-1])
        five = FiveCrop(self.size)
        if is_pil(img):  # PIL images in, PIL images out, as MindSpore's TenCrop
            return five(img) + five(pil_image().fromarray(flipped))
        return five(arr) + five(flipped)


class GaussianBlur(_ImageOp):
    """Blur with a Gaussian kernel (borders reflected as OpenCV's BORDER_REFLECT_101).

    Args:
        kernel_size: an odd positive int or (width, height).
        sigma: a number or (sigma_x, sigma_y); None derives it from the kernel size (OpenCV's rule).
    """

    def __init__(self, kernel_size, sigma=None) -> None:
        ks = (kernel_size, kernel_size) if isinstance(kernel_size, int) else tuple(kernel_size)
        if len(ks) != 2 or any(k < 1 or k % 2 == 0 for k in ks):
            raise ValueError(f"GaussianBlur: kernel_size must be odd and positive, but got {kernel_size!r}.")
        sg = (0.0, 0.0) if sigma is None else ((sigma, sigma) if isinstance(sigma, int | float) else tuple(sigma))
        self.kernel_size, self.sigma = (int(ks[0]), int(ks[1])), (float(sg[0]), float(sg[1]))

    def __call__(self, img) -> np.ndarray:
        return C.gaussian_blur(as_image(img, "GaussianBlur"), self.kernel_size, self.sigma)


class Grayscale(_ImageOp):
    """RGB -> grayscale with PIL's weights (L = (19595 R + 38470 G + 7471 B + 32768) >> 16).

    Args:
        num_output_channels: 1 (H, W) or 3 (the gray value repeated).
    """

    def __init__(self, num_output_channels: int = 1) -> None:
        if num_output_channels not in (1, 3):
            raise ValueError(f"Grayscale: num_output_channels must be 1 or 3, but got {num_output_channels!r}.")
        self.num_output_channels = num_output_channels

    def __call__(self, img):
        if is_pil(img):  # Pillow's own conversion (the same weights; any mode), a PIL image out, as MindSpore
            gray = img.convert("L")
            return gray.convert("RGB") if self.num_output_channels == 3 else gray
        arr = _rgb(_as_array(img), "Grayscale").astype(np.int64)
        gray = ((arr[..., 0] * 19595 + arr[..., 1] * 38470 + arr[..., 2] * 7471 + 0x8000) >> 16).astype(np.uint8)
        return np.stack([gray] * 3, -1) if self.num_output_channels == 3 else gray


class RgbToHsv(_ImageOp):
    """RGB in [0, 1] -> HSV in [0, 1] (float).

    Args:
        is_hwc: channels last (True) or first (False, the default as MindSpore).
    """

    def __init__(self, is_hwc: bool = False) -> None:
        self.is_hwc = bool(is_hwc)

    def __call__(self, img) -> np.ndarray:
        arr = np.asarray(img, dtype=np.float64)
        x = arr if self.is_hwc else np.moveaxis(arr, 0, -1)
        out = C.rgb_to_hsv_float(x)
        out = out if self.is_hwc else np.moveaxis(out, -1, 0)
        return out.astype(arr.dtype if np.asarray(img).dtype.kind == "f" else np.float64)


class HsvToRgb(RgbToHsv):
    """HSV in [0, 1] -> RGB in [0, 1] (float).

    Args:
        is_hwc: channels last (True) or first (False, the default as MindSpore).
    """

    def __call__(self, img) -> np.ndarray:
        arr = np.asarray(img, dtype=np.float64)
        x = arr if self.is_hwc else np.moveaxis(arr, 0, -1)
        out = C.hsv_to_rgb_float(x)
        return out if self.is_hwc else np.moveaxis(out, -1, 0)


class LinearTransformation(_ImageOp):
    """(flattened image - mean_vector) @ transformation_matrix, reshaped back (e.g. ZCA whitening).

    Args:
        transformation_matrix: a (D, D) array, D the number of values of an image.
        mean_vector: a (D,) array.
    """

    def __init__(self, transformation_matrix, mean_vector) -> None:
        self.transformation_matrix = np.asarray(transformation_matrix)
        self.mean_vector = np.asarray(mean_vector)
        d = self.transformation_matrix.shape
        if len(d) != 2 or d[0] != d[1] or self.mean_vector.shape != (d[0],):
            raise ValueError("LinearTransformation: the matrix must be (D, D) and the mean vector (D,).")

    def __call__(self, img) -> np.ndarray:
        arr = np.asarray(img)
        flat = arr.reshape(1, -1)
        if flat.shape[1] != self.mean_vector.shape[0]:
            raise RuntimeError(
                f"LinearTransformation: the image has {flat.shape[1]} values but the matrix is for "
                f"{self.mean_vector.shape[0]}."
            )
        return np.dot(flat - self.mean_vector, self.transformation_matrix).reshape(arr.shape)


class NormalizePad(_ImageOp):
    """Normalize, then append a zero channel (3 -> 4 channels).

    Args:
        mean, std: per channel, as for Normalize.
        dtype: "float32" or "float16".
        is_hwc: channels last (True) or first.
    """

    def __init__(self, mean, std, dtype: str = "float32", is_hwc: bool = True) -> None:
        if dtype not in ("float32", "float16"):
            raise ValueError(f"NormalizePad: dtype must be 'float32' or 'float16', but got {dtype!r}.")
        self._norm = Normalize(mean, std, is_hwc)
        self.mean, self.std, self.dtype, self.is_hwc = mean, std, dtype, bool(is_hwc)

    def __call__(self, img) -> np.ndarray:
        out = self._norm(img)
        axis = -1 if self.is_hwc else 0
        shape = list(out.shape)
        shape[axis] = 1
        return np.concatenate([out, np.zeros(shape, out.dtype)], axis).astype(self.dtype)


class PadToSize(_ImageOp):
    """Pad to `size` (height, width), at `offset` (top, left) or centred.

    Args:
        size: an int or (height, width), at least the image size.
        offset: an int or (top, left) of the image in the result; None centres it.
        fill_value: value (or one per channel) for Border.CONSTANT.
        padding_mode: a vision.Border.
    """

    def __init__(self, size, offset=None, fill_value=0, padding_mode: Border = Border.CONSTANT) -> None:
        self.size = _size_hw(size, "PadToSize")
        self.offset = None if offset is None else ((offset, offset) if isinstance(offset, int) else tuple(offset))
        self.fill_value, self.padding_mode = fill_value, Border(padding_mode)

    def __call__(self, img) -> np.ndarray:
        arr = as_image(img, "PadToSize")
        h, w = arr.shape[:2]
        th, tw = self.size
        if th < h or tw < w:
            raise RuntimeError(f"PadToSize: the target size {self.size} is smaller than the image {(h, w)}.")
        top, left = ((th - h) // 2, (tw - w) // 2) if self.offset is None else self.offset
        if top + h > th or left + w > tw:
            raise RuntimeError(f"PadToSize: offset {self.offset} leaves no room for the image in {self.size}.")
        return F.pad(arr, top, th - h - top, left, tw - w - left, self.padding_mode, self.fill_value)


class ResizedCrop(_ImageOp):
    """Crop (top, left, height, width), then resize to `size`.

    Args:
        top, left, height, width: the window.
        size: an int or (height, width), as for Resize.
        interpolation: a vision.Inter.
    """

    def __init__(self, top, left, height, width, size, interpolation: Inter = Inter.BILINEAR) -> None:
        self.top, self.left, self.height, self.width = int(top), int(left), int(height), int(width)
        self._resize = Resize(size, interpolation)
        self.size, self.interpolation = size, interpolation

    def __call__(self, img) -> np.ndarray:
        arr = as_image(img, "ResizedCrop")
        if self.top + self.height > arr.shape[0] or self.left + self.width > arr.shape[1]:
            raise RuntimeError(f"ResizedCrop: the window exceeds the image {arr.shape[:2]}.")
        return self._resize(F.crop(arr, self.top, self.left, self.height, self.width))


def _nearest(resample) -> bool:
    if resample in (Inter.NEAREST,):
        return True
    if resample in (Inter.LINEAR, Inter.BILINEAR):
        return False
    raise NotImplementedError(f"{resample} is not implemented for warps in Kiln; use NEAREST or BILINEAR.")


class Rotate(_ImageOp):
    """Rotate counter-clockwise by `degrees` about `center`.

    Args:
        degrees: the angle.
        resample: Inter.NEAREST or Inter.BILINEAR.
        expand: enlarge the output to hold the whole rotated image.
        center: (x, y); None is the image centre ((w - 1) / 2, (h - 1) / 2).
        fill_value: value (or one per channel) outside the image.
    """

    def __init__(
        self, degrees, resample: Inter = Inter.NEAREST, expand: bool = False, center=None, fill_value=0
    ) -> None:
        self.degrees, self.resample, self.expand = float(degrees), resample, bool(expand)
        self.center, self.fill_value = center, fill_value
        _nearest(resample)

    def __call__(self, img) -> np.ndarray:
        arr = as_image(img, "Rotate")
        h, w = arr.shape[:2]
        center = ((w - 1) / 2.0, (h - 1) / 2.0) if self.center is None else tuple(map(float, self.center))
        m = C.rotation_matrix(center, self.degrees)
        out_h, out_w = h, w
        if self.expand:
            corners = np.array([[0, 0, 1], [w, 0, 1], [0, h, 1], [w, h, 1]], np.float64)
            pts = corners @ m.T
            out_w = int(np.round(pts[:, 0].max() - pts[:, 0].min()))
            out_h = int(np.round(pts[:, 1].max() - pts[:, 1].min()))
            m = m.copy()
            m[0, 2] += out_w / 2.0 - (w / 2.0)
            m[1, 2] += out_h / 2.0 - (h / 2.0)
        return C.warp(arr, C.invert_affine(m), out_h, out_w, _nearest(self.resample), self.fill_value)


def _affine_matrix(center, angle, translate, scale, shear) -> np.ndarray:
    """The forward matrix of torchvision's affine (rotation, scale and shear about the centre, then shift)."""
    cx, cy = center
    tx, ty = translate
    rot, sx, sy = np.deg2rad(angle), np.deg2rad(shear[0]), np.deg2rad(shear[1])
    a = np.cos(rot - sy) / np.cos(sy)
    b = -np.cos(rot - sy) * np.tan(sx) / np.cos(sy) - np.sin(rot)
    c = np.sin(rot - sy) / np.cos(sy)
    d = -np.sin(rot - sy) * np.tan(sx) / np.cos(sy) + np.cos(rot)
    m = np.array([[a, b, 0.0], [c, d, 0.0]]) * scale
    m[0, 2] = cx + tx - (m[0, 0] * cx + m[0, 1] * cy)
    m[1, 2] = cy + ty - (m[1, 0] * cx + m[1, 1] * cy)
    return m


def _shear_pair(shear) -> tuple[float, float]:
    if isinstance(shear, int | float):
        return float(shear), 0.0
    return float(shear[0]), float(shear[1]) if len(shear) > 1 else 0.0


class Affine(_ImageOp):
    """Rotate, translate, scale and shear about the image centre.

    Args:
        degrees: rotation angle (clockwise, as MindSpore's Affine).
        translate: (tx, ty), fractions of the width and height in [-1, 1] (MindSpore shifts by tx * width
            and ty * height pixels).
        scale: the scale factor.
        shear: a number (x shear) or (x, y) shear angles in degrees.
        resample: Inter.NEAREST or Inter.BILINEAR.
        fill_value: value outside the image.

    The centre is ((width - 1) / 2, (height - 1) / 2), as MindSpore's.
    """

    def __init__(self, degrees, translate, scale, shear, resample: Inter = Inter.NEAREST, fill_value=0) -> None:
        self.degrees, self.translate, self.scale = float(degrees), tuple(translate), float(scale)
        if len(self.translate) != 2 or any(not -1.0 <= float(t) <= 1.0 for t in self.translate):
            raise ValueError(f"Affine: translate must be two fractions in [-1, 1], but got {translate!r}.")
        self.shear, self.resample, self.fill_value = _shear_pair(shear), resample, fill_value
        _nearest(resample)

    def __call__(self, img) -> np.ndarray:
        arr = as_image(img, "Affine")
        h, w = arr.shape[:2]
        shift = (float(self.translate[0]) * w, float(self.translate[1]) * h)
        return _affine_warp(arr, self.degrees, shift, self.scale, self.shear, self.resample, self.fill_value)


def _affine_warp(arr, degrees, shift, scale, shear, resample, fill_value) -> np.ndarray:
    """`arr` rotated, scaled and sheared about its centre ((w - 1) / 2, (h - 1) / 2), then moved by `shift` pixels."""
    h, w = arr.shape[:2]
    m = _affine_matrix(((w - 1) * 0.5, (h - 1) * 0.5), degrees, shift, scale, shear)
    return C.warp(arr, C.invert_affine(m), h, w, _nearest(resample), fill_value)


def _perspective_matrix(start_points, end_points) -> np.ndarray:
    """The 3x3 matrix mapping end_points back to start_points (what a warp needs)."""
    a, b = [], []
    for (x, y), (u, v) in zip(end_points, start_points):
        a.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        a.append([0, 0, 0, x, y, 1, -v * x, -v * y])
        b.extend([u, v])
    coeffs = np.linalg.solve(np.asarray(a, np.float64), np.asarray(b, np.float64))
    return np.append(coeffs, 1.0).reshape(3, 3)


class Perspective(_ImageOp):
    """Warp so that the four `start_points` move to `end_points`.

    Args:
        start_points: four (x, y) points of the input.
        end_points: where they go.
        interpolation: Inter.NEAREST or Inter.BILINEAR.
    """

    def __init__(self, start_points, end_points, interpolation: Inter = Inter.BILINEAR) -> None:
        self.start_points = [tuple(p) for p in start_points]
        self.end_points = [tuple(p) for p in end_points]
        if len(self.start_points) != 4 or len(self.end_points) != 4:
            raise ValueError("Perspective: start_points and end_points must hold four (x, y) points each.")
        self.interpolation = interpolation
        _nearest(interpolation)

    def __call__(self, img):
        # a PIL image comes back as a PIL image, as MindSpore's
        return _like_input(img, self._call(img))

    def _call(self, img):
        m = _perspective_matrix(self.start_points, self.end_points)
        if is_pil(img):  # MindSpore warps a PIL image with Pillow's perspective transform
            return img.transform(
                img.size, pil_image().PERSPECTIVE, tuple(m.ravel()[:8]), pil_resample(self.interpolation)
            )
        arr = as_image(img, "Perspective")
        return C.warp(arr, m, arr.shape[0], arr.shape[1], _nearest(self.interpolation), 0)


class SlicePatches(_ImageOp):
    """Cut the image into num_height x num_width patches (a tuple, row by row).

    Args:
        num_height, num_width: patches per column and per row.
        slice_mode: SliceMode.PAD pads the image up to a multiple of the patch size; DROP drops the rest.
        fill_value: the padding value.
    """

    def __init__(
        self, num_height: int = 1, num_width: int = 1, slice_mode: SliceMode = SliceMode.PAD, fill_value=0
    ) -> None:
        self.num_height, self.num_width = int(num_height), int(num_width)
        self.slice_mode, self.fill_value = SliceMode(slice_mode), fill_value

    def __call__(self, img):
        arr = as_image(img, "SlicePatches")
        h, w = arr.shape[:2]
        if self.slice_mode == SliceMode.PAD:
            ph, pw = math.ceil(h / self.num_height), math.ceil(w / self.num_width)
            arr = F.pad(arr, 0, ph * self.num_height - h, 0, pw * self.num_width - w, Border.CONSTANT, self.fill_value)
        else:
            ph, pw = h // self.num_height, w // self.num_width
        return tuple(F.crop(arr, i * ph, j * pw, ph, pw) for i in range(self.num_height) for j in range(self.num_width))


def _as_array(img) -> np.ndarray:
    """A PIL image or an array as an array."""
    return np.asarray(img)


class ToNumpy(_ImageOp):
    """A PIL image (or anything array-like) as a NumPy array."""

    def __call__(self, img) -> np.ndarray:
        return np.array(img)


class ToPIL(_ImageOp):
    """A NumPy image (HW or HWC uint8) as a PIL image; needs Pillow."""

    def __call__(self, img):
        if not isinstance(img, np.ndarray):
            return img
        if img.ndim == 3 and img.shape[2] == 1:  # <H, W, 1> is a one-band (mode L) image, as in MindSpore
            img = img[..., 0]
        return pil_image().fromarray(img)


class ToType(_ImageOp):
    """Cast to `data_type` (a kiln or NumPy dtype).

    Args:
        data_type: the target dtype.
    """

    def __init__(self, data_type) -> None:
        self.data_type = data_type
        self._np = np.dtype(getattr(data_type, "np", data_type)) if not isinstance(data_type, str) else None
        if self._np is None:
            self._np = np.dtype(data_type)

    def __call__(self, img) -> np.ndarray:
        return np.asarray(img).astype(self._np)

    batch_call = __call__


# -- random transforms -----------------------------------------------------------------------------------------


class RandomAdjustSharpness(_RandomApplyOp):
    """AdjustSharpness(degree) with probability `prob`.

    Args:
        degree: the sharpness factor.
        prob: the probability.
    """

    def __init__(self, degree: float, prob: float = 0.5) -> None:
        self.degree = _check_factor(degree, "RandomAdjustSharpness: degree")
        self.prob = _check_prob(prob, "RandomAdjustSharpness")

    def __call__(self, img):
        return self._maybe(img, AdjustSharpness(self.degree))


class RandomAutoContrast(_RandomApplyOp):
    """AutoContrast with probability `prob`.

    Args:
        cutoff, ignore: as for AutoContrast.
        prob: the probability.
    """

    def __init__(self, cutoff: float = 0.0, ignore=None, prob: float = 0.5) -> None:
        self._op = AutoContrast(cutoff, ignore)
        self.cutoff, self.ignore, self.prob = cutoff, ignore, _check_prob(prob, "RandomAutoContrast")

    def __call__(self, img):
        return self._maybe(img, self._op)


class _RandomArgumentlessOp(_RandomApplyOp):
    """Apply the op `_OP`, which takes no arguments, with probability `prob`."""

    _OP: type

    def __call__(self, img):
        return self._maybe(img, self._OP())


class RandomEqualize(_RandomArgumentlessOp):
    """Equalize with probability `prob`.

    Args:
        prob: the probability.
    """

    _OP = Equalize


class RandomInvert(_RandomArgumentlessOp):
    """Invert with probability `prob`.

    Args:
        prob: the probability.
    """

    _OP = Invert


class RandomGrayscale(_RandomApplyOp):
    """Grayscale (keeping the number of channels) with probability `prob`.

    Args:
        prob: the probability.
    """

    def __init__(self, prob: float = 0.1) -> None:
        self.prob = _check_prob(prob, "RandomGrayscale")

    def __call__(self, img):
        arr = _as_array(img)
        channels = 1 if arr.ndim == 2 else arr.shape[2]
        out = self._maybe(arr, Grayscale(3 if channels == 3 else 1))
        return pil_image().fromarray(out) if is_pil(img) else out  # a PIL image stays one, as in MindSpore


class _RandomFactorOp(_ImageOp):
    """Apply the op `_OP(factor)` with a factor drawn uniformly from `degrees`."""

    _OP: type

    def __init__(self, degrees=(0.1, 1.9)) -> None:
        self.degrees = _range(degrees, f"{type(self).__name__}: degrees")

    def __call__(self, img):
        return self._OP(float(_rng.generator().uniform(*self.degrees)))(img)


class RandomColor(_RandomFactorOp):
    """AdjustSaturation with a factor drawn uniformly from `degrees`.

    Args:
        degrees: (min, max) factor.
    """

    _OP = AdjustSaturation


class RandomSharpness(_RandomFactorOp):
    """AdjustSharpness with a factor drawn uniformly from `degrees`.

    Args:
        degrees: (min, max) factor.
    """

    _OP = AdjustSharpness

    def __call__(self, img):
        factor = float(_rng.generator().uniform(*self.degrees))
        if is_pil(img):  # Pillow's ImageEnhance.Sharpness, a PIL image out, as MindSpore
            return _pil_enhance(img, "Sharpness", factor)
        return AdjustSharpness(factor)(img)


class RandomPosterize(_ImageOp):
    """Posterize with a bit count drawn from `bits`.

    Args:
        bits: an int or an inclusive (min, max) range in [1, 8].
    """

    def __init__(self, bits=(8, 8)) -> None:
        self.bits = (bits, bits) if isinstance(bits, int) else (int(bits[0]), int(bits[1]))
        if not 1 <= self.bits[0] <= self.bits[1] <= 8:
            raise ValueError(f"RandomPosterize: bits must lie in [1, 8], but got {bits!r}.")

    def __call__(self, img):
        return Posterize(int(_rng.generator().integers(self.bits[0], self.bits[1] + 1)))(img)


class RandomSolarize(_ImageOp):
    """Solarize with a threshold range drawn from `threshold`.

    Args:
        threshold: (min, max); two values drawn in it give the range of pixels inverted.
    """

    def __init__(self, threshold=(0, 255)) -> None:
        self.threshold = (int(threshold[0]), int(threshold[1]))

    def __call__(self, img):
        gen = _rng.generator()
        a, b = sorted(int(v) for v in gen.integers(self.threshold[0], self.threshold[1] + 1, size=2))
        return Solarize((a, b))(img)


class RandomColorAdjust(_ImageOp):
    """Random brightness, contrast, saturation and hue, applied in that order.

    Args:
        brightness: a factor range, or x for [max(0, 1 - x), 1 + x].
        contrast: the same for contrast.
        saturation: the same for saturation.
        hue: a range in [-0.5, 0.5], or x for [-x, x].
    """

    def __init__(self, brightness=(1, 1), contrast=(1, 1), saturation=(1, 1), hue=(0, 0)) -> None:
        self.brightness = _range(brightness, "RandomColorAdjust: brightness", 1.0)
        self.contrast = _range(contrast, "RandomColorAdjust: contrast", 1.0)
        self.saturation = _range(saturation, "RandomColorAdjust: saturation", 1.0)
        self.hue = _range(hue, "RandomColorAdjust: hue", 0.0, low=-0.5)
        if not -0.5 <= self.hue[0] <= self.hue[1] <= 0.5:
            raise ValueError(f"RandomColorAdjust: hue must lie in [-0.5, 0.5], but got {hue!r}.")

    def __call__(self, img):
        gen = _rng.generator()
        if is_pil(img):
            return self._adjust_pil(img, gen)
        arr = _rgb(img, "RandomColorAdjust")
        if self.brightness != (1.0, 1.0):
            arr = C.adjust_brightness(arr, float(gen.uniform(*self.brightness)))
        if self.contrast != (1.0, 1.0):
            arr = C.adjust_contrast(arr, float(gen.uniform(*self.contrast)))
        if self.saturation != (1.0, 1.0):
            arr = C.adjust_saturation(arr, float(gen.uniform(*self.saturation)))
        if self.hue != (0.0, 0.0):
            arr = C.adjust_hue(arr, float(gen.uniform(*self.hue)))
        return arr

    def _adjust_pil(self, img, gen):
        """A PIL image is adjusted by Pillow and comes back a PIL image, as in MindSpore: all four adjustments, in a
        random order (hue's round trip through 8-bit HSV changes pixels even at a zero turn)."""
        factors = [float(gen.uniform(*r)) for r in (self.brightness, self.contrast, self.saturation, self.hue)]
        steps = list(zip((P.adjust_brightness, P.adjust_contrast, P.adjust_saturation, P.adjust_hue), factors))
        for k in gen.permutation(len(steps)):
            adjust, factor = steps[k]
            img = adjust(img, factor)
        return img


def _random_resized_window(gen, h: int, w: int, scale, ratio, attempts: int) -> tuple[int, int, int, int]:
    area = h * w
    log_ratio = (math.log(ratio[0]), math.log(ratio[1]))
    for _ in range(attempts):
        target = area * gen.uniform(*scale)
        aspect = math.exp(gen.uniform(*log_ratio))
        cw = int(round(math.sqrt(target * aspect)))
        ch = int(round(math.sqrt(target / aspect)))
        if 0 < cw <= w and 0 < ch <= h:
            return int(gen.integers(0, h - ch + 1)), int(gen.integers(0, w - cw + 1)), ch, cw
    # Fallback: the central crop with the ratio clamped into range.
    in_ratio = w / h
    if in_ratio < ratio[0]:
        cw, ch = w, int(round(w / ratio[0]))
    elif in_ratio > ratio[1]:
        ch, cw = h, int(round(h * ratio[1]))
    else:
        cw, ch = w, h
    return (h - ch) // 2, (w - cw) // 2, ch, cw


class RandomResizedCrop(_ImageOp):
    """Crop a random window (area fraction in `scale`, aspect ratio in `ratio`), then resize to `size`.

    Args:
        size: an int or (height, width).
        scale: (min, max) fraction of the image area.
        ratio: (min, max) aspect ratio (width / height).
        interpolation: a vision.Inter.
        max_attempts: tries before falling back to a central crop.
    """

    def __init__(
        self,
        size,
        scale=(0.08, 1.0),
        ratio=(3.0 / 4.0, 4.0 / 3.0),
        interpolation=Inter.BILINEAR,
        max_attempts: int = 10,
    ) -> None:
        self.size = _size_hw(size, "RandomResizedCrop")
        self.scale, self.ratio = tuple(map(float, scale)), tuple(map(float, ratio))
        if not 0 <= self.scale[0] <= self.scale[1] or not 0 < self.ratio[0] <= self.ratio[1]:
            raise ValueError("RandomResizedCrop: scale and ratio must be increasing positive ranges.")
        self.interpolation, self.max_attempts = interpolation, int(max_attempts)
        self._resize = Resize(self.size, interpolation)

    def __call__(self, img):
        if is_pil(img):  # cropped and resized by Pillow, a PIL image again, as in MindSpore
            width, height = img.size
            top, left, ch, cw = _random_resized_window(
                _rng.generator(), height, width, self.scale, self.ratio, self.max_attempts
            )
            return self._resize(img.crop((left, top, left + cw, top + ch)))
        arr = as_image(img, "RandomResizedCrop")
        top, left, ch, cw = _random_resized_window(
            _rng.generator(), *arr.shape[:2], self.scale, self.ratio, self.max_attempts
        )
        return self._resize(F.crop(arr, top, left, ch, cw))


class RandomCropDecodeResize(RandomResizedCrop):
    """Decode image bytes, then RandomResizedCrop.

    Args: as for RandomResizedCrop.
    """

    def __call__(self, img):
        return super().__call__(F.decode(img))


class RandomResize(_ImageOp):
    """Resize with an interpolation drawn at random (NEAREST or BILINEAR in Kiln).

    Args:
        size: as for Resize.
    """

    def __init__(self, size) -> None:
        _size_hw(size, "RandomResize")
        self.size = size

    def __call__(self, img):
        mode = (Inter.NEAREST, Inter.BILINEAR)[int(_rng.generator().integers(0, 2))]
        return Resize(self.size, mode)(img)


class RandomRotation(_ImageOp):
    """Rotate by an angle drawn uniformly from `degrees`.

    Args:
        degrees: x for [-x, x], or a (min, max) range.
        resample, expand, center, fill_value: as for Rotate.
    """

    def __init__(
        self, degrees, resample: Inter = Inter.NEAREST, expand: bool = False, center=None, fill_value=0
    ) -> None:
        if isinstance(degrees, int | float):
            if degrees < 0:
                raise ValueError(f"RandomRotation: degrees must be non-negative, but got {degrees}.")
            degrees = (-degrees, degrees)
        self.degrees = (float(degrees[0]), float(degrees[1]))
        self.resample, self.expand, self.center, self.fill_value = resample, expand, center, fill_value
        _nearest(resample)

    def __call__(self, img):
        angle = float(_rng.generator().uniform(*self.degrees))
        if is_pil(img):  # rotated by Pillow, a PIL image again, as MindSpore does (its Rotate gives an array)
            return P.rotate(img, angle, self.resample, self.expand, self.center, self.fill_value)
        return Rotate(angle, self.resample, self.expand, self.center, self.fill_value)(img)


class RandomAffine(_ImageOp):
    """Affine with parameters drawn at random.

    Args:
        degrees: x for [-x, x] or a (min, max) rotation range.
        translate: (min_dx, max_dx) or (min_dx, max_dx, min_dy, max_dy), fractions of the width / height
            (no vertical shift with two values), or None.
        scale: a (min, max) range, or None for 1.
        shear: x for an x shear in [-x, x], (min, max) for x, or (xmin, xmax, ymin, ymax); None for none.
        resample, fill_value: as for Affine.
    """

    def __init__(
        self, degrees, translate=None, scale=None, shear=None, resample: Inter = Inter.NEAREST, fill_value=0
    ) -> None:
        self.degrees = (-float(degrees), float(degrees)) if isinstance(degrees, int | float) else tuple(degrees)
        if translate is not None and len(translate) not in (2, 4):
            raise TypeError(f"RandomAffine: translate must hold 2 or 4 fractions, but got {translate!r}.")
        self.translate, self.scale, self.shear = translate, scale, shear
        self.resample, self.fill_value = resample, fill_value
        _nearest(resample)

    def __call__(self, img):
        # a PIL image comes back as a PIL image, as MindSpore's
        return _like_input(img, self._call(img))

    def _call(self, img):
        arr = as_image(img, "RandomAffine")
        h, w = arr.shape[:2]
        gen = _rng.generator()
        angle = float(gen.uniform(*self.degrees))
        tx = ty = 0.0
        if self.translate is not None:
            # MindSpore's ranges: (min_dx, max_dx) or (min_dx, max_dx, min_dy, max_dy), fractions of the size.
            # The shift is not rounded to whole pixels (the warp's sampling rounds, as MindSpore's).
            t = [float(x) for x in self.translate]
            tx = float(gen.uniform(t[0], t[1]) * w)
            ty = float(gen.uniform(t[2], t[3]) * h) if len(t) == 4 else 0.0
        sc = 1.0 if self.scale is None else float(gen.uniform(*self.scale))
        sh = (0.0, 0.0)
        if self.shear is not None:
            s = (-self.shear, self.shear) if isinstance(self.shear, int | float) else tuple(self.shear)
            sh = (float(gen.uniform(s[0], s[1])), float(gen.uniform(s[2], s[3])) if len(s) == 4 else 0.0)
        return _affine_warp(arr, angle, (tx, ty), sc, sh, self.resample, self.fill_value)


class RandomPerspective(_ImageOp):
    """Perspective with corners moved at random by up to `distortion_scale`, with probability `prob`.

    Args:
        distortion_scale: in [0, 1].
        prob: the probability.
        interpolation: Inter.NEAREST or Inter.BILINEAR.
    """

    def __init__(self, distortion_scale: float = 0.5, prob: float = 0.5, interpolation=Inter.BILINEAR) -> None:
        self.distortion_scale = float(distortion_scale)
        self.prob = _check_prob(prob, "RandomPerspective")
        self.interpolation = interpolation
        _nearest(interpolation)

    def __call__(self, img):
        # a PIL image comes back as a PIL image, as MindSpore's
        return _like_input(img, self._call(img))

    def _call(self, img):
        arr = as_image(img, "RandomPerspective")
        gen = _rng.generator()
        if gen.random() >= self.prob:
            return arr
        h, w = arr.shape[:2]
        dx, dy = int(self.distortion_scale * w / 2), int(self.distortion_scale * h / 2)
        start = [(0, 0), (w - 1, 0), (w - 1, h - 1), (0, h - 1)]
        end = [
            (int(gen.integers(0, dx + 1)), int(gen.integers(0, dy + 1))),
            (w - 1 - int(gen.integers(0, dx + 1)), int(gen.integers(0, dy + 1))),
            (w - 1 - int(gen.integers(0, dx + 1)), h - 1 - int(gen.integers(0, dy + 1))),
            (int(gen.integers(0, dx + 1)), h - 1 - int(gen.integers(0, dy + 1))),
        ]
        return Perspective(start, end, self.interpolation)(arr)


class RandomErasing(_ImageOp):
    """Erase a random rectangle of a CHW image with probability `prob` (random erasing augmentation).

    Args:
        prob: the probability.
        scale: (min, max) erased fraction of the area.
        ratio: (min, max) aspect ratio of the rectangle.
        value: a number, one per channel, or "random" (normal noise).
        inplace: accepted for compatibility.
        max_attempts: tries to find a rectangle that fits.
    """

    def __init__(self, prob=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0, inplace=False, max_attempts=10) -> None:
        self.prob = _check_prob(prob, "RandomErasing")
        self.scale, self.ratio, self.value = tuple(scale), tuple(ratio), value
        self.inplace, self.max_attempts = inplace, int(max_attempts)

    def __call__(self, img):
        # a PIL image comes back as a PIL image, as MindSpore's
        return _like_input(img, self._call(img))

    def _call(self, img):
        arr = np.array(img)
        gen = _rng.generator()
        if gen.random() >= self.prob:
            return arr
        c, h, w = arr.shape[-3:]
        area = h * w
        for _ in range(self.max_attempts):
            target = area * gen.uniform(*self.scale)
            aspect = math.exp(gen.uniform(math.log(self.ratio[0]), math.log(self.ratio[1])))
            eh, ew = int(round(math.sqrt(target * aspect))), int(round(math.sqrt(target / aspect)))
            if eh < h and ew < w:
                top, left = int(gen.integers(0, h - eh + 1)), int(gen.integers(0, w - ew + 1))
                if self.value == "random":
                    patch = gen.standard_normal((c, eh, ew)).astype(arr.dtype)
                else:
                    patch = np.asarray(self.value, arr.dtype).reshape(-1, 1, 1)
                arr[..., top : top + eh, left : left + ew] = patch
                return arr
        return arr


class RandomLighting(_ImageOp):
    """AlexNet's PCA lighting noise: add eigvec @ (alpha * N(0, 1) * eigval) to every pixel.

    Args:
        alpha: the standard deviation of the noise.
    """

    _EIGVAL = np.array([0.2175, 0.0188, 0.0045]) * 255.0
    _EIGVEC = np.array([[-0.5675, 0.7192, 0.4009], [-0.5808, -0.0045, -0.8140], [-0.5836, -0.6948, 0.4203]])

    def __init__(self, alpha: float = 0.05) -> None:
        self.alpha = _check_factor(alpha, "RandomLighting: alpha")

    def __call__(self, img):
        # a PIL image comes back as a PIL image, as MindSpore's
        return _like_input(img, self._call(img))

    def _call(self, img):
        arr = _rgb(img, "RandomLighting")
        noise = _rng.generator().normal(0.0, self.alpha, size=3)
        shift = self._EIGVEC @ (noise * self._EIGVAL)
        return C.cast_like(arr.astype(np.float64) + shift, arr)


def _one_hot_labels(labels: np.ndarray, what: str) -> np.ndarray:
    labels = np.asarray(labels)
    if labels.ndim != 2:
        raise RuntimeError(f"{what}: labels must be one-hot, of shape (N, num_classes); got shape {labels.shape}.")
    return labels


class MixUpBatch(_ImageOp):
    """Mix a batch with its reversed self: lam * x + (1 - lam) * x[::-1], lam ~ Beta(alpha, alpha).

    Apply after `batch`, to (images, one-hot labels).

    Args:
        alpha: the Beta distribution's parameter.
    """

    def __init__(self, alpha: float = 1.0) -> None:
        self.alpha = _check_factor(alpha, "MixUpBatch: alpha", 0.0)
        if self.alpha == 0:
            raise ValueError("MixUpBatch: alpha must be positive.")

    def __call__(self, images, labels):
        images, labels = np.asarray(images), _one_hot_labels(labels, "MixUpBatch")
        lam = float(_rng.generator().beta(self.alpha, self.alpha))
        mixed = images.astype(np.float64) * lam + images[::-1].astype(np.float64) * (1 - lam)
        out_labels = (labels * lam + labels[::-1] * (1 - lam)).astype(np.float32)
        return C.cast_like(mixed, images), out_labels


class CutMixBatch(_ImageOp):
    """Paste a random box of the reversed batch into each image, mixing labels by area (CutMix).

    Args:
        image_batch_format: ImageBatchFormat.NHWC or NCHW.
        alpha: the Beta distribution's parameter.
        prob: the probability of mixing each image.
    """

    def __init__(self, image_batch_format: ImageBatchFormat, alpha: float = 1.0, prob: float = 1.0) -> None:
        self.image_batch_format = ImageBatchFormat(image_batch_format)
        self.alpha, self.prob = float(alpha), _check_prob(prob, "CutMixBatch")

    def __call__(self, images, labels):
        images = np.array(images)
        labels = _one_hot_labels(labels, "CutMixBatch").astype(np.float32)
        nhwc = self.image_batch_format == ImageBatchFormat.NHWC
        h, w = (images.shape[1], images.shape[2]) if nhwc else (images.shape[2], images.shape[3])
        gen = _rng.generator()
        source, src_labels = images[::-1].copy(), labels[::-1].copy()
        out_labels = labels.copy()
        for i in range(len(images)):
            if gen.random() >= self.prob:
                continue
            lam = float(gen.beta(self.alpha, self.alpha))
            ch, cw = int(h * math.sqrt(1 - lam)), int(w * math.sqrt(1 - lam))
            y, x = int(gen.integers(0, h)), int(gen.integers(0, w))
            y0, y1 = max(y - ch // 2, 0), min(y + ch // 2, h)
            x0, x1 = max(x - cw // 2, 0), min(x + cw // 2, w)
            if nhwc:
                images[i, y0:y1, x0:x1] = source[i, y0:y1, x0:x1]
            else:
                images[i, :, y0:y1, x0:x1] = source[i, :, y0:y1, x0:x1]
            ratio = (y1 - y0) * (x1 - x0) / (h * w)
            out_labels[i] = labels[i] * (1 - ratio) + src_labels[i] * ratio
        return images, out_labels


class MixUp(_ImageOp):
    """MixUp of a batch: images and one-hot labels mixed with their reversed batch by lam ~ Beta(alpha, alpha).

    Args:
        batch_size: the batch size.
        alpha: the Beta distribution's parameter.
        is_single: accepted for compatibility (one lam per batch).
    """

    def __init__(self, batch_size: int, alpha: float, is_single: bool = True) -> None:
        self.batch_size, self.alpha, self.is_single = int(batch_size), float(alpha), bool(is_single)

    def __call__(self, images, labels):
        return MixUpBatch(self.alpha)(images, labels)


class UniformAugment(_ImageOp):
    """Apply `num_ops` transforms chosen uniformly (without repeats) from `transforms`, each with probability 1/2.

    Args:
        transforms: a list of image transforms.
        num_ops: how many to pick.
    """

    def __init__(self, transforms, num_ops: int = 2) -> None:
        self.transforms = list(transforms)
        if not 1 <= int(num_ops) <= len(self.transforms):
            raise ValueError(f"UniformAugment: num_ops must be in [1, {len(self.transforms)}], but got {num_ops}.")
        self.num_ops = int(num_ops)

    def __call__(self, img):
        gen = _rng.generator()
        for k in gen.choice(len(self.transforms), size=self.num_ops, replace=False):
            if gen.random() < 0.5:
                img = self.transforms[int(k)](img)
        return img


class RandomSelectSubpolicy(_ImageOp):
    """Pick one sub-policy (a list of (transform, prob) pairs) at random and apply it.

    Args:
        policy: a list of sub-policies.
    """

    def __init__(self, policy) -> None:
        self.policy = [list(p) for p in policy]
        if not self.policy or any(not p for p in self.policy):
            raise ValueError("RandomSelectSubpolicy: policy must be a non-empty list of non-empty sub-policies.")

    def __call__(self, img):
        gen = _rng.generator()
        for op, prob in self.policy[int(gen.integers(0, len(self.policy)))]:
            if gen.random() < prob:
                img = op(img)
        return img


# -- automatic augmentation policies (AutoAugment, RandAugment, TrivialAugmentWide) ---------------------------------
# The policies, magnitude ranges and op semantics are those of the papers (as torchvision and MindSpore use them).

_AUTO_POLICIES = {
    "imagenet": (
        (("Posterize", 0.4, 8), ("Rotate", 0.6, 9)),
        (("Solarize", 0.6, 5), ("AutoContrast", 0.6, None)),
        (("Equalize", 0.8, None), ("Equalize", 0.6, None)),
        (("Posterize", 0.6, 7), ("Posterize", 0.6, 6)),
        (("Equalize", 0.4, None), ("Solarize", 0.2, 4)),
        (("Equalize", 0.4, None), ("Rotate", 0.8, 8)),
        (("Solarize", 0.6, 3), ("Equalize", 0.6, None)),
        (("Posterize", 0.8, 5), ("Equalize", 1.0, None)),
        (("Rotate", 0.2, 3), ("Solarize", 0.6, 8)),
        (("Equalize", 0.6, None), ("Posterize", 0.4, 6)),
        (("Rotate", 0.8, 8), ("Color", 0.4, 0)),
        (("Rotate", 0.4, 9), ("Equalize", 0.6, None)),
        (("Equalize", 0.0, None), ("Equalize", 0.8, None)),
        (("Invert", 0.6, None), ("Equalize", 1.0, None)),
        (("Color", 0.6, 4), ("Contrast", 1.0, 8)),
        (("Rotate", 0.8, 8), ("Color", 1.0, 2)),
        (("Color", 0.8, 8), ("Solarize", 0.8, 7)),
        (("Sharpness", 0.4, 7), ("Invert", 0.6, None)),
        (("ShearX", 0.6, 5), ("Equalize", 1.0, None)),
        (("Color", 0.4, 0), ("Equalize", 0.6, None)),
        (("Equalize", 0.4, None), ("Solarize", 0.2, 4)),
        (("Solarize", 0.6, 5), ("AutoContrast", 0.6, None)),
        (("Invert", 0.6, None), ("Equalize", 1.0, None)),
        (("Color", 0.6, 4), ("Contrast", 1.0, 8)),
        (("Equalize", 0.8, None), ("Equalize", 0.6, None)),
    ),
    "cifar10": (
        (("Invert", 0.1, None), ("Contrast", 0.2, 6)),
        (("Rotate", 0.7, 2), ("TranslateX", 0.3, 9)),
        (("Sharpness", 0.8, 1), ("Sharpness", 0.9, 3)),
        (("ShearY", 0.5, 8), ("TranslateY", 0.7, 9)),
        (("AutoContrast", 0.5, None), ("Equalize", 0.9, None)),
        (("ShearY", 0.2, 7), ("Posterize", 0.3, 7)),
        (("Color", 0.4, 3), ("Brightness", 0.6, 7)),
        (("Sharpness", 0.3, 9), ("Brightness", 0.7, 9)),
        (("Equalize", 0.6, None), ("Equalize", 0.5, None)),
        (("Contrast", 0.6, 7), ("Sharpness", 0.6, 5)),
        (("Color", 0.7, 7), ("TranslateX", 0.5, 8)),
        (("Equalize", 0.3, None), ("AutoContrast", 0.4, None)),
        (("TranslateY", 0.4, 3), ("Sharpness", 0.2, 6)),
        (("Brightness", 0.9, 6), ("Color", 0.2, 8)),
        (("Solarize", 0.5, 2), ("Invert", 0.0, None)),
        (("Equalize", 0.2, None), ("AutoContrast", 0.6, None)),
        (("Equalize", 0.2, None), ("Equalize", 0.6, None)),
        (("Color", 0.9, 9), ("Equalize", 0.6, None)),
        (("AutoContrast", 0.8, None), ("Solarize", 0.2, 8)),
        (("Brightness", 0.1, 3), ("Color", 0.7, 0)),
        (("Solarize", 0.4, 5), ("AutoContrast", 0.9, None)),
        (("TranslateY", 0.9, 9), ("TranslateY", 0.7, 9)),
        (("AutoContrast", 0.9, None), ("Solarize", 0.8, 3)),
        (("Equalize", 0.8, None), ("Invert", 0.1, None)),
        (("TranslateY", 0.7, 9), ("AutoContrast", 0.9, None)),
    ),
    "svhn": (
        (("ShearX", 0.9, 4), ("Invert", 0.2, None)),
        (("ShearY", 0.9, 8), ("Invert", 0.7, None)),
        (("Equalize", 0.6, None), ("Solarize", 0.6, 6)),
        (("Invert", 0.9, None), ("Equalize", 0.6, None)),
        (("Equalize", 0.6, None), ("Rotate", 0.9, 3)),
        (("ShearX", 0.9, 4), ("AutoContrast", 0.8, None)),
        (("ShearY", 0.9, 8), ("Invert", 0.4, None)),
        (("ShearY", 0.9, 5), ("Solarize", 0.2, 6)),
        (("Invert", 0.9, None), ("AutoContrast", 0.8, None)),
        (("Equalize", 0.6, None), ("Rotate", 0.9, 3)),
        (("ShearX", 0.9, 4), ("Solarize", 0.3, 3)),
        (("ShearY", 0.8, 8), ("Invert", 0.7, None)),
        (("Equalize", 0.9, None), ("TranslateY", 0.6, 6)),
        (("Invert", 0.9, None), ("Equalize", 0.6, None)),
        (("Contrast", 0.3, 3), ("Rotate", 0.8, 4)),
        (("Invert", 0.8, None), ("TranslateY", 0.0, 2)),
        (("ShearY", 0.7, 6), ("Solarize", 0.4, 8)),
        (("Invert", 0.6, None), ("Rotate", 0.8, 4)),
        (("ShearY", 0.3, 7), ("TranslateX", 0.9, 3)),
        (("ShearX", 0.1, 6), ("Invert", 0.6, None)),
        (("Solarize", 0.7, 2), ("TranslateY", 0.6, 7)),
        (("ShearY", 0.8, 4), ("Invert", 0.8, None)),
        (("ShearX", 0.7, 9), ("TranslateY", 0.8, 3)),
        (("ShearY", 0.8, 5), ("AutoContrast", 0.7, None)),
        (("ShearX", 0.7, 2), ("Invert", 0.1, None)),
    ),
}


def _augment_op(arr: np.ndarray, name: str, magnitude: float, interpolation, fill) -> np.ndarray:
    """One named augmentation with a signed magnitude (shears about the top-left corner, as in the papers)."""
    h, w = arr.shape[:2]
    if name in ("ShearX", "ShearY", "TranslateX", "TranslateY"):
        if name.startswith("Shear"):
            angle = math.degrees(math.atan(magnitude))
            shear = (angle, 0.0) if name == "ShearX" else (0.0, angle)
            m = _affine_matrix((0.0, 0.0), 0.0, (0.0, 0.0), 1.0, shear)
        else:
            shift = (int(magnitude), 0) if name == "TranslateX" else (0, int(magnitude))
            m = _affine_matrix((w * 0.5, h * 0.5), 0.0, shift, 1.0, (0.0, 0.0))
        return C.warp(arr, C.invert_affine(m), h, w, _nearest(interpolation), fill)
    if name == "Rotate":
        return Rotate(magnitude, interpolation, fill_value=fill)(arr)
    if name == "Brightness":
        return AdjustBrightness(1.0 + magnitude)(arr)
    if name == "Color":
        return AdjustSaturation(1.0 + magnitude)(arr)
    if name == "Contrast":
        return AdjustContrast(1.0 + magnitude)(arr)
    if name == "Sharpness":
        return AdjustSharpness(1.0 + magnitude)(arr)
    if name == "Posterize":
        return Posterize(int(magnitude))(arr)
    if name == "Solarize":
        return Solarize(float(magnitude))(arr)
    if name == "AutoContrast":
        return AutoContrast()(arr)
    if name == "Equalize":
        return Equalize()(arr)
    if name == "Invert":
        return Invert()(arr)
    return arr  # Identity


def _posterize_bins(n: int, div: float) -> np.ndarray:
    return (8 - np.round(np.arange(n) / ((n - 1) / div))).astype(np.int64)


def _check_uint8_rgb(img, op: str) -> np.ndarray:
    arr = as_image(img, op)
    if arr.dtype != np.uint8 or arr.ndim != 3 or arr.shape[2] != 3:
        raise RuntimeError(f"{op}: the input must be an RGB uint8 image (H, W, 3), but got {arr.dtype} {arr.shape}.")
    return arr


def _fill3(fill_value):
    if isinstance(fill_value, int | float):
        return int(fill_value)
    fill = tuple(int(v) for v in fill_value)
    if len(fill) != 3:
        raise ValueError(f"fill_value must be an int or 3 ints, but got {fill_value!r}.")
    return fill


class AutoAugment(_ImageOp):
    """AutoAugment: one of the learned sub-policies (two ops with probabilities and magnitudes) per image.

    Args:
        policy: an AutoAugmentPolicy (IMAGENET, CIFAR10 or SVHN).
        interpolation: Inter.NEAREST or Inter.BILINEAR for the geometric ops.
        fill_value: the value (or RGB triple) of pixels moved in from outside.
    """

    def __init__(self, policy=AutoAugmentPolicy.IMAGENET, interpolation=Inter.NEAREST, fill_value=0) -> None:
        self.policy = AutoAugmentPolicy(policy)
        self.interpolation, self.fill_value = interpolation, _fill3(fill_value)
        _nearest(interpolation)

    def __call__(self, img) -> np.ndarray:
        arr = _check_uint8_rgb(img, "AutoAugment")
        h, w = arr.shape[:2]
        bins = {
            "ShearX": np.linspace(0.0, 0.3, 10),
            "ShearY": np.linspace(0.0, 0.3, 10),
            "TranslateX": np.linspace(0.0, 150.0 / 331.0 * w, 10),
            "TranslateY": np.linspace(0.0, 150.0 / 331.0 * h, 10),
            "Rotate": np.linspace(0.0, 30.0, 10),
            "Brightness": np.linspace(0.0, 0.9, 10),
            "Color": np.linspace(0.0, 0.9, 10),
            "Contrast": np.linspace(0.0, 0.9, 10),
            "Sharpness": np.linspace(0.0, 0.9, 10),
            "Posterize": _posterize_bins(10, 4),
            "Solarize": np.linspace(255.0, 0.0, 10),
        }
        signed = {"ShearX", "ShearY", "TranslateX", "TranslateY", "Rotate", "Brightness", "Color", "Contrast",
                  "Sharpness"}  # fmt: skip
        gen = _rng.generator()
        policies = _AUTO_POLICIES[self.policy.value]
        for name, prob, level in policies[int(gen.integers(len(policies)))]:
            if gen.random() <= prob:
                mag = float(bins[name][level]) if level is not None and name in bins else 0.0
                if name in signed and gen.random() < 0.5:
                    mag = -mag
                arr = _augment_op(arr, name, mag, self.interpolation, self.fill_value)
        return arr


def _magnitude_space(
    n: int, shear: float, translate_x: float, translate_y: float, rotate: float, enhance: float, posterize_bits: int
) -> dict:
    """The ops RandAugment and TrivialAugmentWide draw from, in drawing order: name -> (`n` magnitude bins from 0 up
    to the given largest magnitude, or None for an op without one; whether the magnitude's sign is drawn too)."""
    return {
        "Identity": (None, False),
        "ShearX": (np.linspace(0.0, shear, n), True),
        "ShearY": (np.linspace(0.0, shear, n), True),
        "TranslateX": (np.linspace(0.0, translate_x, n), True),
        "TranslateY": (np.linspace(0.0, translate_y, n), True),
        "Rotate": (np.linspace(0.0, rotate, n), True),
        "Brightness": (np.linspace(0.0, enhance, n), True),
        "Color": (np.linspace(0.0, enhance, n), True),
        "Contrast": (np.linspace(0.0, enhance, n), True),
        "Sharpness": (np.linspace(0.0, enhance, n), True),
        "Posterize": (_posterize_bins(n, posterize_bits), False),
        "Solarize": (np.linspace(255.0, 0.0, n), False),
        "AutoContrast": (None, False),
        "Equalize": (None, False),
    }


class RandAugment(_ImageOp):
    """RandAugment: `num_ops` ops drawn uniformly, each at the fixed `magnitude` (of `num_magnitude_bins`).

    Args:
        num_ops: ops applied in sequence.
        magnitude: the magnitude bin, in [0, num_magnitude_bins).
        num_magnitude_bins: bins the magnitude ranges are split into (>= 2).
        interpolation: Inter.NEAREST or Inter.BILINEAR.
        fill_value: the value (or RGB triple) of pixels moved in from outside.
    """

    def __init__(self, num_ops=2, magnitude=9, num_magnitude_bins=31, interpolation=Inter.NEAREST, fill_value=0):
        for name, v, low in (
            ("num_ops", num_ops, 0),
            ("magnitude", magnitude, 0),
            ("num_magnitude_bins", num_magnitude_bins, 2),
        ):
            if isinstance(v, bool) or not isinstance(v, int) or v < low:
                raise ValueError(f"RandAugment: {name} must be an int >= {low}, but got {v!r}.")
        if magnitude >= num_magnitude_bins:
            raise ValueError(
                f"RandAugment: magnitude ({magnitude}) must be < num_magnitude_bins ({num_magnitude_bins})."
            )
        self.num_ops, self.magnitude, self.num_magnitude_bins = num_ops, magnitude, num_magnitude_bins
        self.interpolation, self.fill_value = interpolation, _fill3(fill_value)
        _nearest(interpolation)

    def _space(self, h: int, w: int) -> dict:
        return _magnitude_space(self.num_magnitude_bins, 0.3, 150.0 / 331.0 * w, 150.0 / 331.0 * h, 30.0, 0.9, 4)

    def _level(self, gen) -> int:
        return self.magnitude

    def _count(self) -> int:
        return self.num_ops

    def __call__(self, img) -> np.ndarray:
        arr = _check_uint8_rgb(img, type(self).__name__)
        space = self._space(*arr.shape[:2])
        names = list(space)
        gen = _rng.generator()
        for _ in range(self._count()):
            name = names[int(gen.integers(len(names)))]
            bins, signed = space[name]
            mag = float(bins[self._level(gen)]) if bins is not None else 0.0
            if signed and gen.random() < 0.5:
                mag = -mag
            arr = _augment_op(arr, name, mag, self.interpolation, self.fill_value)
        return arr


class TrivialAugmentWide(RandAugment):
    """TrivialAugment (wide ranges): one op drawn uniformly with a magnitude bin drawn uniformly.

    Args:
        num_magnitude_bins: bins the magnitude ranges are split into (>= 2).
        interpolation: Inter.NEAREST or Inter.BILINEAR.
        fill_value: the value (or RGB triple) of pixels moved in from outside.
    """

    def __init__(self, num_magnitude_bins=31, interpolation=Inter.NEAREST, fill_value=0) -> None:
        super().__init__(1, 0, num_magnitude_bins, interpolation, fill_value)

    def _space(self, h: int, w: int) -> dict:
        return _magnitude_space(self.num_magnitude_bins, 0.99, 32.0, 32.0, 135.0, 0.99, 6)

    def _level(self, gen) -> int:
        return int(gen.integers(self.num_magnitude_bins))


__all__ += ["AutoAugment", "RandAugment", "TrivialAugmentWide"]  # noqa: PLE0605


# -- transforms of an image and its bounding boxes ------------------------------------------------------------------
# Boxes are float32 rows (x, y, width, height, extra columns...) in pixels, as VOCDataset and CocoDataset give them.
# Inputs are not modified (MindSpore's eager ops write the new boxes into the given array).


def _check_boxes(arr: np.ndarray, bboxes, op: str) -> np.ndarray:
    boxes = np.asarray(bboxes)
    if boxes.dtype.kind != "f":
        raise RuntimeError(f"{op}: bounding boxes must be floats, but got {boxes.dtype}.")
    if boxes.ndim != 2 or boxes.shape[1] < 4:
        raise RuntimeError(f"{op}: bounding boxes must be (N, 4 or more), but got shape {boxes.shape}.")
    boxes = boxes.astype(np.float32, copy=True)
    h, w = arr.shape[:2]
    x, y, bw, bh = boxes[:, 0], boxes[:, 1], boxes[:, 2], boxes[:, 3]
    if (x < 0).any() or (y < 0).any() or (bw <= 0).any() or (bh <= 0).any():
        raise RuntimeError(f"{op}: bounding boxes need x, y >= 0 and a positive width and height.")
    if (x + bw > w).any() or (y + bh > h).any():
        raise RuntimeError(f"{op}: a bounding box extends beyond the image of size (h={h}, w={w}).")
    return boxes


def _crop_boxes(boxes: np.ndarray, top: int, left: int, ch: int, cw: int) -> np.ndarray:
    """Boxes moved into a crop window and clipped to it; boxes left outside it are dropped."""
    x0 = np.clip(boxes[:, 0] - left, 0, cw)
    y0 = np.clip(boxes[:, 1] - top, 0, ch)
    x1 = np.clip(boxes[:, 0] + boxes[:, 2] - left, 0, cw)
    y1 = np.clip(boxes[:, 1] + boxes[:, 3] - top, 0, ch)
    keep = (x1 > x0) & (y1 > y0)
    out = boxes[keep].copy()
    out[:, 0], out[:, 1], out[:, 2], out[:, 3] = x0[keep], y0[keep], (x1 - x0)[keep], (y1 - y0)[keep]
    return out


def _scale_boxes(boxes: np.ndarray, sy: float, sx: float) -> np.ndarray:
    out = boxes.copy()
    out[:, [0, 2]] *= np.float32(sx)
    out[:, [1, 3]] *= np.float32(sy)
    return out


class ResizeWithBBox(_ImageOp):
    """Resize (as Resize) and scale the boxes with the image.

    Args:
        size: an int (the shorter side) or (height, width).
        interpolation: a vision.Inter.
    """

    def __init__(self, size, interpolation=Inter.LINEAR) -> None:
        self._resize = Resize(size, interpolation)
        self.size, self.interpolation = size, interpolation

    def __call__(self, img, bboxes):
        arr = as_image(img, "ResizeWithBBox")
        boxes = _check_boxes(arr, bboxes, "ResizeWithBBox")
        out = self._resize(arr)
        return out, _scale_boxes(boxes, out.shape[0] / arr.shape[0], out.shape[1] / arr.shape[1])


class RandomResizeWithBBox(_ImageOp):
    """ResizeWithBBox with an interpolation drawn at random (NEAREST, BILINEAR, BICUBIC, AREA in MindSpore; Kiln
    draws among the interpolations its Resize supports)."""

    def __init__(self, size) -> None:
        self.size = size
        self._ops = [ResizeWithBBox(size, Inter.NEAREST), ResizeWithBBox(size, Inter.BILINEAR)]

    def __call__(self, img, bboxes):
        return self._ops[int(_rng.generator().integers(0, len(self._ops)))](img, bboxes)


class _RandomFlipWithBBox(_ImageOp):
    """Flip the image and its (x, y, width, height) boxes along the image axis `_AXIS` (0: top-bottom, 1:
    left-right) with probability `prob`."""

    _AXIS: int

    def __init__(self, prob=0.5) -> None:
        self.prob = _check_prob(prob, type(self).__name__)

    def __call__(self, img, bboxes):
        op = type(self).__name__
        arr = as_image(img, op)
        boxes = _check_boxes(arr, bboxes, op)
        if _rng.generator().random() < self.prob:
            arr = np.flip(arr, self._AXIS).copy()
            start, size = 1 - self._AXIS, 3 - self._AXIS  # the box columns along the flipped axis
            boxes[:, start] = arr.shape[self._AXIS] - boxes[:, start] - boxes[:, size]
        return arr, boxes


class RandomHorizontalFlipWithBBox(_RandomFlipWithBBox):
    """Flip the image and its boxes left-right with probability `prob`."""

    _AXIS = 1


class RandomVerticalFlipWithBBox(_RandomFlipWithBBox):
    """Flip the image and its boxes top-bottom with probability `prob`."""

    _AXIS = 0


class RandomCropWithBBox(RandomCrop):
    """RandomCrop that moves the boxes into the window, clips them, and drops those left outside."""

    def __call__(self, img, bboxes):
        arr = as_image(img, "RandomCropWithBBox")
        boxes = _check_boxes(arr, bboxes, "RandomCropWithBBox")
        left_pad, top_pad = self.padding[0], self.padding[1]
        arr = F.pad(arr, *self.padding, self.padding_mode, self.fill_value)
        boxes[:, 0] += left_pad
        boxes[:, 1] += top_pad
        ch, cw = self.size
        if self.pad_if_needed:
            dh, dw = max(ch - arr.shape[0], 0), max(cw - arr.shape[1], 0)
            arr = F.pad(arr, dh, dh, dw, dw, self.padding_mode, self.fill_value)
            boxes[:, 0] += dw
            boxes[:, 1] += dh
        h, w = arr.shape[:2]
        if h < ch or w < cw:
            raise RuntimeError(f"RandomCropWithBBox: crop size {self.size} is bigger than the (padded) image {(h, w)}.")
        gen = _rng.generator()
        left = int(gen.integers(0, w - cw + 1))
        top = int(gen.integers(0, h - ch + 1))
        return F.crop(arr, top, left, ch, cw), _crop_boxes(boxes, top, left, ch, cw)


class RandomResizedCropWithBBox(RandomResizedCrop):
    """RandomResizedCrop that carries the boxes through the crop (clipped, outside ones dropped) and the resize."""

    def __call__(self, img, bboxes):
        arr = as_image(img, "RandomResizedCropWithBBox")
        boxes = _check_boxes(arr, bboxes, "RandomResizedCropWithBBox")
        top, left, ch, cw = _random_resized_window(
            _rng.generator(), *arr.shape[:2], self.scale, self.ratio, self.max_attempts
        )
        out = self._resize(F.crop(arr, top, left, ch, cw))
        boxes = _crop_boxes(boxes, top, left, ch, cw)
        return out, _scale_boxes(boxes, out.shape[0] / ch, out.shape[1] / cw)


class BoundingBoxAugment(_ImageOp):
    """Apply `transform` to the image inside a random `ratio` of the boxes (the patches are put back in place).

    Args:
        transform: an image transform that keeps the patch size (e.g. a flip, a color change).
        ratio: the fraction of boxes to augment, in [0, 1].
    """

    def __init__(self, transform, ratio=0.3) -> None:
        if not callable(transform):
            raise TypeError(f"BoundingBoxAugment: transform must be callable, but got {type(transform).__name__}.")
        if isinstance(ratio, bool) or not isinstance(ratio, int | float) or not 0 <= ratio <= 1:
            raise ValueError(f"BoundingBoxAugment: ratio must be in [0, 1], but got {ratio!r}.")
        self.transform, self.ratio = transform, float(ratio)

    def __call__(self, img, bboxes):
        arr = as_image(img, "BoundingBoxAugment")
        boxes = _check_boxes(arr, bboxes, "BoundingBoxAugment")
        count = int(np.floor(self.ratio * len(boxes)))
        out = arr.copy()
        for k in _rng.generator().choice(len(boxes), size=count, replace=False):
            x, y, bw, bh = (int(v) for v in boxes[k, :4])
            patch = np.asarray(self.transform(out[y : y + bh, x : x + bw].copy()))
            if patch.shape != out[y : y + bh, x : x + bw].shape:
                raise RuntimeError(
                    f"BoundingBoxAugment: the transform changed the patch shape {out[y : y + bh, x : x + bw].shape} "
                    f"to {patch.shape}; use a transform that keeps the size."
                )
            out[y : y + bh, x : x + bw] = patch
        return out, boxes


__all__ += [  # noqa: PLE0605
    "BoundingBoxAugment",
    "RandomCropWithBBox",
    "RandomHorizontalFlipWithBBox",
    "RandomResizeWithBBox",
    "RandomResizedCropWithBBox",
    "RandomVerticalFlipWithBBox",
    "ResizeWithBBox",
]
