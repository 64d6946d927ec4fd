"""Joining a distributed job and naming its ranks (MindSpore's `mindspore.communication.management`).

A rank is a process. `init()` reads what the launcher (`kiln msrun`, or any launcher that sets MindSpore's
variables) put in the environment:

| variable | meaning |
| --- | --- |
| `RANK_SIZE` / `MS_WORKER_NUM` | the number of workers (they must agree when both are set) |
| `RANK_ID` | this worker's rank |
| `MS_SCHED_HOST`, `MS_SCHED_PORT` | where rank 0 hosts the coordination service |
| `MS_TOPO_TIMEOUT` | seconds to wait for every worker to join (default 600) |
| `DEVICE_ID` | the device of this machine that this worker uses (GPU) |
| `KILN_LOCAL_RANK`, `KILN_LOCAL_WORKER_NUM` | rank on this machine and workers on this machine |

With more than one worker, `init()` joins JAX's distributed runtime (JAX's coordination service on rank 0;
collectives over gloo on CPU, NCCL on GPU). Without a launcher (one worker), it uses this process's devices:
the group has one rank, and in data-parallel mode each batch is spread over the process's devices.
"""

from __future__ import annotations

import os

import numpy as np

from kiln._backend import as_array
from kiln._backend import distributed as D
from kiln._core import random_state as RS

__all__ = [
    "HCCL_WORLD_COMM_GROUP",
    "MCCL_WORLD_COMM_GROUP",
    "NCCL_WORLD_COMM_GROUP",
    "GlobalComm",
    "create_group",
    "destroy_group",
    "get_group_rank_from_world_rank",
    "get_group_size",
    "get_local_rank",
    "get_local_rank_size",
    "get_process_group_ranks",
    "get_rank",
    "get_world_rank_from_group_rank",
    "init",
    "release",
]

HCCL_WORLD_COMM_GROUP = "hccl_world_group"
NCCL_WORLD_COMM_GROUP = "nccl_world_group"
MCCL_WORLD_COMM_GROUP = "mccl_world_group"
_WORLD_NAMES = frozenset({HCCL_WORLD_COMM_GROUP, NCCL_WORLD_COMM_GROUP, MCCL_WORLD_COMM_GROUP})
_DEFAULT_TIMEOUT = 600.0


class GlobalComm:
    """The state of the world group.

    - BACKEND: "mccl" on CPU, "nccl" on GPU once `init()` ran.
    - WORLD_COMM_GROUP: the name of the group of all ranks (any of the three world names is accepted).
    - INITED: whether `init()` ran.
    - CHECK_ENVS: kept for MindSpore scripts that set it.
    """

    BACKEND = "hccl"
    WORLD_COMM_GROUP = HCCL_WORLD_COMM_GROUP
    INITED = False
    CHECK_ENVS = True


_world = {"rank": 0, "size": 1, "local_rank": 0, "local_size": 1, "multi": False}
_groups: dict[str, tuple[int, ...]] = {}


def _env_int(name: str, low: int = 0) -> int | None:
    text = os.environ.get(name)
    if text is None or text.strip() == "":
        return None
    try:
        value = int(text)
    except ValueError:
        raise ValueError(
            f"communication.init(): environment variable {name} must be an integer, but is {text!r}."
        ) from None
    if value < low:
        raise ValueError(f"communication.init(): environment variable {name} must be >= {low}, but is {value}.")
    return value


def _read_environment() -> dict:
    """The job as the launcher described it; errors name the variable at fault."""
    rank_size = _env_int("RANK_SIZE", 1)
    worker_num = _env_int("MS_WORKER_NUM", 1)
    if rank_size is not None and worker_num is not None and rank_size != worker_num:
        raise ValueError(
            f"communication.init(): the world size is inconsistent: RANK_SIZE={rank_size} but "
            f"MS_WORKER_NUM={worker_num}."
        )
    size = rank_size if rank_size is not None else worker_num if worker_num is not None else 1
    rank = _env_int("RANK_ID")
    if size > 1:
        if rank is None:
            raise ValueError(
                f"communication.init(): {size} workers but RANK_ID is not set; start the workers with "
                "`kiln msrun` (or set RANK_ID to each worker's rank)."
            )
        host, port = os.environ.get("MS_SCHED_HOST"), _env_int("MS_SCHED_PORT", 1)
        if not host or port is None:
            raise ValueError(
                f"communication.init(): {size} workers but MS_SCHED_HOST/MS_SCHED_PORT (the address of rank 0) "
                "are not set; start the workers with `kiln msrun`."
            )
    else:
        host, port = None, None
    rank = 0 if rank is None else rank
    if rank >= size:
        raise ValueError(f"communication.init(): RANK_ID={rank} is out of range for a world of {size} worker(s).")
    local_size = _env_int("KILN_LOCAL_WORKER_NUM", 1) or size
    local_rank = _env_int("KILN_LOCAL_RANK")
    if local_rank is None:
        local_rank = rank % local_size
    timeout = os.environ.get("MS_TOPO_TIMEOUT")
    try:
        timeout = _DEFAULT_TIMEOUT if timeout is None else float(timeout)
    except ValueError:
        raise ValueError(
            f"communication.init(): MS_TOPO_TIMEOUT must be a number of seconds, but is {timeout!r}."
        ) from None
    if timeout <= 0:
        timeout = 7 * 24 * 3600.0  # msrun: a negative timeout waits for ever
    return {
        "size": size,
        "rank": rank,
        "host": host,
        "port": port,
        "local_size": local_size,
        "local_rank": local_rank,
        "timeout": timeout,
        "device_id": _env_int("DEVICE_ID"),
    }


def init(backend_name: str | None = None) -> None:
    """Join the distributed job this process was launched in (or set up a one-process group).

    Args:
        backend_name: None (chosen by device), "mccl" (CPU), "nccl" (GPU); "hccl" (Ascend) is not available.

    Raises:
        ValueError: the launcher's environment is inconsistent (world size, rank, missing address).
        RuntimeError: the cluster could not be formed (coordinator unreachable, port in use, size mismatch).
    """
    if backend_name is not None and not isinstance(backend_name, str):
        raise TypeError(f"communication.init(): backend_name must be a str or None, but got {backend_name!r}.")
    platform = D.default_platform_name()
    expected = {"cpu": "mccl", "gpu": "nccl"}.get(platform, "mccl")
    if backend_name is not None and backend_name.lower() not in ("mccl", "nccl", "hccl"):
        raise ValueError(f"communication.init(): backend_name must be 'mccl', 'nccl' or 'hccl', got {backend_name!r}.")
    if backend_name is not None and backend_name.lower() != expected:
        raise RuntimeError(
            f"communication.init(): backend '{backend_name}' is not available here: this process runs on "
            f"{platform.upper()}, whose backend is '{expected}'."
        )
    if GlobalComm.INITED:
        return
    env = _read_environment()
    if env["size"] > 1:
        local_ids = None
        if platform == "gpu":
            device = env["device_id"] if env["device_id"] is not None else env["local_rank"]
            local_ids = [device]
        # The generator's key (made by set_seed) is the one array a script may hold before init(): it is kept
        # on the host while the backend is replaced, then put back.
        saved_key = None if RS._key is None else np.array(RS._key, copy=True)  # not a view of the old array
        RS._key = None
        try:
            D.initialize(
                f"{env['host']}:{env['port']}",
                env["size"],
                env["rank"],
                timeout=env["timeout"],
                local_device_ids=local_ids,
            )
        finally:
            if saved_key is not None:
                RS._key = as_array(saved_key)
    _world.update(
        rank=env["rank"], size=env["size"], local_rank=env["local_rank"], local_size=min(env["local_size"], env["size"])
    )
    _world["multi"] = env["size"] > 1
    GlobalComm.BACKEND = expected
    GlobalComm.WORLD_COMM_GROUP = MCCL_WORLD_COMM_GROUP if expected == "mccl" else NCCL_WORLD_COMM_GROUP
    GlobalComm.INITED = True
    os.environ.setdefault("RANK_ID", str(env["rank"]))


def release() -> None:
    """Leave the distributed job (waits for the other ranks); `init()` may not be called again afterwards."""
    if GlobalComm.INITED:
        D.shutdown()
        GlobalComm.INITED = False
        _groups.clear()


def _require_init(what: str) -> None:
    if not GlobalComm.INITED:
        raise RuntimeError(
            f"communication.{what}: call communication.init() first: ranks and groups exist only once this "
            "process has joined its distributed job."
        )


def _check_group_name(what: str, group) -> str:
    if not isinstance(group, str):
        raise TypeError(f"communication.{what}: 'group' must be a str, but got {type(group).__name__}.")
    return group


def group_ranks(group: str, what: str = "collective") -> tuple[int, ...]:
    """The world ranks of `group`, in group-rank order."""
    _require_init(what)
    _check_group_name(what, group)
    if group in _WORLD_NAMES:
        return tuple(range(_world["size"]))
    ranks = _groups.get(group)
    if ranks is None:
        raise ValueError(f"communication.{what}: there is no group named '{group}'; create it with create_group().")
    return ranks


def is_multi_process() -> bool:
    """True when init() joined several processes."""
    return GlobalComm.INITED and _world["multi"]


def get_rank(group: str = GlobalComm.WORLD_COMM_GROUP) -> int:
    """This process's rank in `group` (the world by default).

    Raises:
        RuntimeError: before `init()`.
        ValueError: no such group, or this process is not in it.
    """
    ranks = group_ranks(group, "get_rank()")
    me = _world["rank"]
    if me not in ranks:
        raise ValueError(f"communication.get_rank(): rank {me} is not a member of group '{group}' {list(ranks)}.")
    return ranks.index(me)


def get_group_size(group: str = GlobalComm.WORLD_COMM_GROUP) -> int:
    """The number of ranks in `group` (the world by default).

    Raises:
        RuntimeError: before `init()`.
    """
    return len(group_ranks(group, "get_group_size()"))


def get_local_rank(group: str = GlobalComm.WORLD_COMM_GROUP) -> int:
    """This process's rank among the workers of its machine."""
    group_ranks(group, "get_local_rank()")
    if group not in _WORLD_NAMES:
        raise ValueError("communication.get_local_rank(): only the world group has local ranks.")
    return _world["local_rank"]


def get_local_rank_size(group: str = GlobalComm.WORLD_COMM_GROUP) -> int:
    """The number of workers on this process's machine."""
    group_ranks(group, "get_local_rank_size()")
    if group not in _WORLD_NAMES:
        raise ValueError("communication.get_local_rank_size(): only the world group has local ranks.")
    return _world["local_size"]


def create_group(group: str, rank_ids, options=None) -> None:
    """Name a subset of the world's ranks; collectives given `group` then run among them only.

    Args:
        group: the new group's name.
        rank_ids: its members' world ranks; a member's group rank is its position in this list.
        options: accepted for MindSpore scripts; unused.

    Raises:
        RuntimeError: before `init()`.
        ValueError: the name is taken or is a world group, or `rank_ids` is empty, has duplicates or ranks
            outside the world.
    """
    _require_init("create_group()")
    _check_group_name("create_group()", group)
    if group in _WORLD_NAMES or group in _groups:
        raise ValueError(f"communication.create_group(): a group named '{group}' already exists.")
    if not isinstance(rank_ids, (list, tuple)) or not rank_ids:
        raise ValueError(f"communication.create_group(): rank_ids must be a non-empty list of ranks, got {rank_ids!r}.")
    ranks = []
    for r in rank_ids:
        if isinstance(r, bool) or not isinstance(r, int) or not 0 <= r < _world["size"]:
            raise ValueError(
                f"communication.create_group(): rank {r!r} is not a rank of the world (0..{_world['size'] - 1})."
            )
        ranks.append(int(r))
    if len(set(ranks)) != len(ranks):
        raise ValueError(f"communication.create_group(): rank_ids has duplicates: {list(rank_ids)}.")
    _groups[group] = tuple(ranks)


def destroy_group(group: str) -> None:
    """Forget a group made by `create_group`."""
    _require_init("destroy_group()")
    if group in _WORLD_NAMES:
        raise ValueError("communication.destroy_group(): the world group cannot be destroyed.")
    if _groups.pop(_check_group_name("destroy_group()", group), None) is None:
        raise ValueError(f"communication.destroy_group(): there is no group named '{group}'.")


def get_process_group_ranks(group: str = GlobalComm.WORLD_COMM_GROUP) -> list[int]:
    """The world ranks of `group`, in group-rank order."""
    return list(group_ranks(group, "get_process_group_ranks()"))


def get_world_rank_from_group_rank(group: str, group_rank_id: int) -> int:
    """The world rank of member `group_rank_id` of `group`."""
    ranks = group_ranks(group, "get_world_rank_from_group_rank()")
    if isinstance(group_rank_id, bool) or not isinstance(group_rank_id, int) or not 0 <= group_rank_id < len(ranks):
        raise ValueError(
            f"communication.get_world_rank_from_group_rank(): group '{group}' has {len(ranks)} rank(s), "
            f"so group_rank_id must be in [0, {len(ranks) - 1}], but got {group_rank_id!r}."
        )
    return ranks[group_rank_id]


def get_group_rank_from_world_rank(world_rank_id: int, group: str) -> int:
    """The rank in `group` of world rank `world_rank_id`."""
    ranks = group_ranks(group, "get_group_rank_from_world_rank()")
    if world_rank_id not in ranks:
        raise ValueError(
            f"communication.get_group_rank_from_world_rank(): world rank {world_rank_id!r} is not in group "
            f"'{group}' {list(ranks)}."
        )
    return ranks.index(world_rank_id)
