"""The enums of the vision transforms and the image-file helpers (read/write/encode, image size and channels),
as in `mindspore.dataset.vision.utils`."""

from __future__ import annotations

import importlib
import io
import sys
from enum import IntEnum, StrEnum

import numpy as np


class Inter(StrEnum):
    """Interpolation modes of `Resize`. Kiln implements NEAREST, LINEAR (= BILINEAR) and CUBIC (= BICUBIC), and
    ANTIALIAS for PIL images (Pillow's LANCZOS)."""

    NEAREST = "nearest"
    ANTIALIAS = "antialias"
    BILINEAR = "linear"
    LINEAR = "linear"
    BICUBIC = "cubic"
    CUBIC = "cubic"
    AREA = "area"
    PILCUBIC = "pilcubic"


class Border(StrEnum):
    """How padding fills new pixels (the NumPy `np.pad` mode in brackets).

    CONSTANT: `fill_value` ("constant"); EDGE: repeat the edge ("edge");
    REFLECT: mirror without the edge pixel ("reflect"); SYMMETRIC: mirror with it ("symmetric").
    """

    CONSTANT = "constant"
    EDGE = "edge"
    REFLECT = "reflect"
    SYMMETRIC = "symmetric"


class ImageBatchFormat(IntEnum):
    """Layout of an image batch for CutMixBatch: NHWC or NCHW."""

    NHWC = 0
    NCHW = 1


class ImageReadMode(IntEnum):
    """How `read_image` decodes: UNCHANGED, GRAYSCALE or COLOR (RGB)."""

    UNCHANGED = 0
    GRAYSCALE = 1
    COLOR = 2


class SliceMode(IntEnum):
    """What SlicePatches does with a remainder: PAD it to a whole patch or DROP it."""

    PAD = 0
    DROP = 1


class AutoAugmentPolicy(StrEnum):
    """The AutoAugment policy (the data set it was learned on)."""

    IMAGENET = "imagenet"
    CIFAR10 = "cifar10"
    SVHN = "svhn"


class ConvertMode(IntEnum):
    """Color conversions of ConvertColor (OpenCV's codes)."""

    COLOR_BGR2BGRA = 0
    COLOR_RGB2RGBA = 0
    COLOR_BGRA2BGR = 1
    COLOR_RGBA2RGB = 1
    COLOR_BGR2RGBA = 2
    COLOR_RGB2BGRA = 2
    COLOR_RGBA2BGR = 3
    COLOR_BGRA2RGB = 3
    COLOR_BGR2RGB = 4
    COLOR_RGB2BGR = 4
    COLOR_BGRA2RGBA = 5
    COLOR_RGBA2BGRA = 5
    COLOR_BGR2GRAY = 6
    COLOR_RGB2GRAY = 7
    COLOR_GRAY2BGR = 8
    COLOR_GRAY2RGB = 8
    COLOR_GRAY2BGRA = 9
    COLOR_GRAY2RGBA = 9
    COLOR_BGRA2GRAY = 10
    COLOR_RGBA2GRAY = 11


def as_image(img, op: str) -> np.ndarray:
    """`img` as an HW or HWC array, or a RuntimeError naming `op`."""
    arr = np.asarray(img)
    if arr.ndim not in (2, 3):
        hint = " (raw image bytes? add vision.Decode() first)" if arr.ndim == 1 else ""
        raise RuntimeError(f"{op}: expected an image of shape <H, W> or <H, W, C>, but got shape {arr.shape}{hint}.")
    return arr


def is_pil(img) -> bool:
    """Whether `img` is a PIL image (without importing Pillow: a PIL image means it is imported already)."""
    module = sys.modules.get("PIL.Image")
    return module is not None and isinstance(img, module.Image)


def pil_filters() -> dict:
    """{`Inter` mode: Pillow's resampling filter}, as MindSpore maps them for PIL images."""
    image = pil_image()
    return {
        Inter.NEAREST: image.NEAREST,
        Inter.LINEAR: image.BILINEAR,
        Inter.CUBIC: image.BICUBIC,
        Inter.PILCUBIC: image.BICUBIC,
        Inter.ANTIALIAS: image.LANCZOS,
    }


def pil_resample(interpolation) -> int:
    """Pillow's resampling filter for an `Inter` mode, as MindSpore maps them for PIL images."""
    table = pil_filters()
    if interpolation not in table:
        raise NotImplementedError(f"{interpolation} has no Pillow filter; use NEAREST, BILINEAR, BICUBIC or ANTIALIAS.")
    return table[interpolation]


def pil_image(module: str = "Image"):
    """Pillow's `PIL.<module>` (PIL.Image by default), imported on first use: most pipelines never decode an image."""
    try:
        return importlib.import_module(f"PIL.{module}")  # optional dependency, imported on first use
    except ImportError as exc:
        raise ImportError(
            "Decoding images needs Pillow, which Kiln does not install. Install it with `pip install pillow`, "
            "or read images undecoded (decode=False)."
        ) from exc


# -- image files -----------------------------------------------------------------------------------------------


def read_file(filename: str) -> np.ndarray:
    """The bytes of a file as a 1-D uint8 array.

    Args:
        filename: the path.

    Returns:
        The bytes.
    """
    with open(filename, "rb") as f:
        return np.frombuffer(bytearray(f.read()), dtype=np.uint8)


def write_file(filename: str, data) -> None:
    """Write a 1-D uint8 array to a file.

    Args:
        filename: the path.
        data: the bytes as a 1-D uint8 array.
    """
    arr = np.asarray(data)
    if arr.dtype != np.uint8 or arr.ndim != 1:
        raise TypeError(f"write_file: data must be a 1-D uint8 array, but got shape {arr.shape} {arr.dtype}.")
    with open(filename, "wb") as f:
        f.write(arr.tobytes())


def read_image(filename: str, mode: ImageReadMode = ImageReadMode.UNCHANGED) -> np.ndarray:
    """Decode an image file into an HWC uint8 array.

    Args:
        filename: the path.
        mode: UNCHANGED (as stored), GRAYSCALE (H, W, 1) or COLOR (H, W, 3).

    Returns:
        The image.
    """
    image_mod = pil_image()
    with image_mod.open(filename) as im:
        if mode == ImageReadMode.GRAYSCALE:
            return np.array(im.convert("L"))[:, :, None]
        if mode == ImageReadMode.COLOR:
            return np.array(im.convert("RGB"))
        arr = np.array(im)
    return arr[:, :, None] if arr.ndim == 2 else arr


def _encode(image, fmt: str, setting: str, value, bounds: tuple[int, int], pil_option: str) -> np.ndarray:
    """`image` encoded as `fmt` by Pillow, with the encoder option `pil_option` set to `value` (MindSpore's
    argument `setting`, checked against the inclusive `bounds`)."""
    low, high = bounds
    if not low <= int(value) <= high:
        raise ValueError(f"encode_{fmt.lower()}: {setting} must be in [{low}, {high}], but got {value}.")
    arr = np.asarray(image)
    if arr.dtype != np.uint8 or arr.ndim not in (2, 3):
        raise RuntimeError(f"encode_{fmt.lower()}: the image must be HW or HWC uint8, but got {arr.shape} {arr.dtype}.")
    if arr.ndim == 3 and arr.shape[2] == 1:
        arr = arr[:, :, 0]
    buf = io.BytesIO()
    pil_image().fromarray(arr).save(buf, format=fmt, **{pil_option: int(value)})
    return np.frombuffer(buf.getvalue(), dtype=np.uint8)


def encode_jpeg(image, quality: int = 75) -> np.ndarray:
    """JPEG bytes of an HW/HWC uint8 image (Pillow's encoder).

    Args:
        image: the image.
        quality: in [1, 100].

    Returns:
        The file bytes as a 1-D uint8 array.
    """
    return _encode(image, "JPEG", "quality", quality, (1, 100), "quality")


def encode_png(image, compression_level: int = 6) -> np.ndarray:
    """PNG bytes of an HW/HWC uint8 image.

    Args:
        image: the image.
        compression_level: in [0, 9].

    Returns:
        The file bytes as a 1-D uint8 array.
    """
    return _encode(image, "PNG", "compression_level", compression_level, (0, 9), "compress_level")


def write_jpeg(filename: str, image, quality: int = 75) -> None:
    """Write an image as a JPEG file.

    Args:
        filename: the path.
        image: an HW/HWC uint8 image.
        quality: in [1, 100].
    """
    write_file(filename, encode_jpeg(image, quality))


def write_png(filename: str, image, compression_level: int = 6) -> None:
    """Write an image as a PNG file.

    Args:
        filename: the path.
        image: an HW/HWC uint8 image.
        compression_level: in [0, 9].
    """
    write_file(filename, encode_png(image, compression_level))


def _is_pil(image, op: str) -> bool:
    """Whether `image` is a PIL image; anything but one or a NumPy array is a TypeError, as MindSpore raises (a
    number or a list became a 0-d or nested array and failed later with a RuntimeError about its shape)."""
    if hasattr(image, "getbands"):
        return True
    if not isinstance(image, np.ndarray):
        raise TypeError(f"{op}: the image must be a NumPy array or a PIL image, but got {type(image).__name__}.")
    return False


def get_image_size(image) -> list[int]:
    """[height, width] of an HW/HWC array or a PIL image.

    Args:
        image: the image.

    Returns:
        [height, width].
    """
    if _is_pil(image, "get_image_size"):
        w, h = image.size
        return [h, w]
    arr = as_image(image, "get_image_size")
    return [int(arr.shape[0]), int(arr.shape[1])]


def get_image_num_channels(image) -> int:
    """The number of channels of an HW (1) / HWC array or a PIL image.

    Args:
        image: the image.

    Returns:
        The channel count.
    """
    if _is_pil(image, "get_image_num_channels"):
        return len(image.getbands())
    arr = as_image(image, "get_image_num_channels")
    return 1 if arr.ndim == 2 else int(arr.shape[2])
