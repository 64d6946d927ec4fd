"""Integer and float bounds, and the integer check, that dataset argument checks share (MindSpore's
`dataset.core.validator_helpers`)."""

__all__ = [
    "DOUBLE_MAX_INTEGER", "DOUBLE_MIN_INTEGER", "FLOAT_MAX_INTEGER", "FLOAT_MIN_INTEGER", "INT32_MAX", "INT32_MIN",
    "INT64_MAX", "INT64_MIN", "POS_INT_MIN", "UINT8_MAX", "UINT8_MIN", "UINT32_MAX", "UINT32_MIN", "UINT64_MAX",
    "UINT64_MIN",
]  # fmt: skip

UINT8_MIN, UINT8_MAX = 0, 2**8 - 1
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
UINT32_MIN, UINT32_MAX = 0, 2**32 - 1
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
UINT64_MIN, UINT64_MAX = 0, 2**64 - 1
POS_INT_MIN = 1
# The integers a float32 / float64 holds exactly: +-2**24 and +-2**53.
FLOAT_MIN_INTEGER, FLOAT_MAX_INTEGER = -(2**24), 2**24
DOUBLE_MIN_INTEGER, DOUBLE_MAX_INTEGER = -(2**53), 2**53


def check_non_negative_int(value, name: str) -> int:
    """`value` when it is a Python int >= 0 (not a bool).

    Args:
        value: the argument to check.
        name: how error messages name it.

    Returns:
        `value`, unchanged.
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, but got {type(value).__name__}.")
    if value < 0:
        raise ValueError(f"{name} must be a non-negative int, but got {value!r}.")
    return value
