"""Helpers shared by the distributions and bijectors."""

from kiln.nn.probability.distribution._utils.utils import (
    CheckTensor,
    CheckTuple,
    cast_to_tensor,
    check_greater,
    check_greater_equal_zero,
    check_greater_zero,
    check_prob,
    check_rank,
    check_sum_equal_one,
    set_param_type,
)

__all__ = [
    "CheckTensor",
    "CheckTuple",
    "cast_to_tensor",
    "check_greater",
    "check_greater_equal_zero",
    "check_greater_zero",
    "check_prob",
    "check_rank",
    "check_sum_equal_one",
    "set_param_type",
]
