"""Enums of the vision transforms, as in `mindspore.dataset.vision.utils`."""

from __future__ import annotations

from enum import IntEnum, StrEnum


class Inter(StrEnum):
    """Interpolation modes of `Resize`. Kiln implements NEAREST and LINEAR (= BILINEAR)."""

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


_IO_NAMES = (
    "encode_jpeg",
    "encode_png",
    "get_image_num_channels",
    "get_image_size",
    "read_file",
    "read_image",
    "write_file",
    "write_jpeg",
    "write_png",
)


def __getattr__(name: str):
    # The image I/O helpers live with the transforms (which import this module); MindSpore also exposes them here.
    if name in _IO_NAMES:
        from kiln.dataset.vision import transforms  # noqa: PLC0415

        return getattr(transforms, name)
    raise AttributeError(f"module 'kiln.dataset.vision.utils' has no attribute {name!r}")
