"""Distributed communication (MindSpore's `mindspore.communication`): joining a job, ranks, groups, collectives.

`init()` joins the job the launcher (`kiln msrun`) started; collectives are in `comm_func` and, as
Primitive classes, in `kiln.ops` (AllReduce, AllGather, ReduceScatter, Broadcast, AllToAll, Barrier). They
run in PyNative mode and inside compiled graphs (each a Kiln primitive, `_prims`, lowered to XLA's
collectives). `_virtual.virtual_ranks(n)` lets the devices of one process stand for n ranks (tests).
"""

from kiln.communication import comm_func, management
from kiln.communication.management import (
    HCCL_WORLD_COMM_GROUP,
    MCCL_WORLD_COMM_GROUP,
    NCCL_WORLD_COMM_GROUP,
    GlobalComm,
    create_group,
    destroy_group,
    get_group_rank_from_world_rank,
    get_group_size,
    get_local_rank,
    get_local_rank_size,
    get_process_group_ranks,
    get_rank,
    get_world_rank_from_group_rank,
    init,
    release,
)

__all__ = [
    "HCCL_WORLD_COMM_GROUP", "MCCL_WORLD_COMM_GROUP", "NCCL_WORLD_COMM_GROUP", "GlobalComm", "comm_func",
    "create_group", "destroy_group", "get_group_rank_from_world_rank", "get_group_size", "get_local_rank",
    "get_local_rank_size", "get_process_group_ranks", "get_rank", "get_world_rank_from_group_rank", "init",
    "management", "release",
]  # fmt: skip
