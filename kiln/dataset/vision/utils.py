"""Enums of the vision transforms, as in `mindspore.dataset.vision.utils`."""

from __future__ import annotations

from enum import StrEnum


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
