"""Kiln's stand-in for the zoo's model_utils/moxing_adapter.py: one device, rank 0 (what the zoo's reads from
RANK_SIZE and RANK_ID when they are unset)."""


def get_device_num() -> int:
    return 1


def get_rank_id() -> int:
    return 0
