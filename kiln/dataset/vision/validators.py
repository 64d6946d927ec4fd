"""Argument checks shared by the vision transforms (`mindspore.dataset.vision.validators`)."""

from __future__ import annotations

from kiln.dataset.vision.transforms import _check_prob, _padding4, _range, _size_hw


def check_size(size, name: str = "size") -> tuple[int, int]:
    """An int or (height, width) of positive ints, as a pair.

    Args:
        size: the value.
        name: the name used in errors.

    Returns:
        (height, width).
    """
    return _size_hw(size, name)


def check_prob(prob, name: str = "prob") -> float:
    """A probability in [0, 1].

    Args:
        prob: the value.
        name: the name used in errors.

    Returns:
        The probability as a float.
    """
    return _check_prob(prob, name)


def check_padding(padding, name: str = "padding") -> tuple[int, int, int, int]:
    """MindSpore's padding forms as (top, bottom, left, right).

    Args:
        padding: an int, or 2 or 4 ints.
        name: the name used in errors.

    Returns:
        (top, bottom, left, right).
    """
    return _padding4(padding, name)


def check_range(value, name: str, center: float | None = None) -> tuple[float, float]:
    """A number x (-> (center - x, center + x), or (0, x) without a centre) or a (min, max) pair.

    Args:
        value: the value.
        name: the name used in errors.
        center: the centre of a symmetric range.

    Returns:
        (min, max).
    """
    return _range(value, name, center)
