"""Several processes and several devices: JAX's distributed runtime, meshes and XLA's collectives.

Everything Kiln does across devices goes through this module (it is the only place that calls
`jax.distributed`, builds a `Mesh` or a `NamedSharding`, or runs `shard_map`):

- `initialize` joins this process to a cluster of `num_processes` through JAX's coordination service
  (the process with id 0 hosts it). Collectives between processes then run over JAX's own transport
  (gloo on CPU, NCCL on GPU).
- A *rank* is a process. The world mesh has two axes: `"rank"` (one row per process, in process order)
  and `"local"` (that process's devices). A collective reduces over `"rank"` only, so a process's value
  counts once however many devices it has.
- `collective` lowers one MindSpore collective on a process's local array to `jax.shard_map` over the
  group's mesh with `lax.psum`/`pmax`/`pmin`/`all_gather`/`psum_scatter`/`all_to_all`, compiled by XLA.
- `shard_batch` spreads a batch over the devices of one process (data parallelism inside a process:
  XLA's SPMD partitioner then runs each op on every device and inserts the reductions itself).
"""

from __future__ import annotations

import contextlib
import gc
import os
import socket
import sys
import threading
import time

import jax
import numpy as np
from jax import lax
from jax import numpy as jnp
from jax.extend import backend as jax_backend
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

__all__ = [
    "ClusterError",
    "all_reduce_fused",
    "collective",
    "initialize",
    "is_initialized",
    "local_device_count",
    "process_count",
    "process_index",
    "run_on_mesh",
    "shard_batch",
    "shutdown",
]

RANK_AXIS = "rank"
LOCAL_AXIS = "local"

_state: dict = {"initialized": False, "meshes": {}, "jitted": {}}


class ClusterError(RuntimeError):
    """The cluster could not be formed: coordinator unreachable, port in use, wrong world size."""


# ---------------------------------------------------------------- joining a cluster
def _probe(host: str, port: int, deadline: float) -> bool:
    """Wait until something accepts TCP connections at host:port; False at `deadline`."""
    while True:
        try:
            with socket.create_connection((host, port), timeout=1.0):
                return True
        except OSError:
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.2)


def _watchdog(seconds: float, message: str) -> threading.Event:
    """Leave the process with `message` if the returned event is not set within `seconds`.

    JAX's coordination client aborts the whole process (SIGABRT, a C++ stack trace) when the cluster does
    not form in time, and the wait cannot be interrupted from Python. This ends it a little earlier, with
    one readable line and exit status 1, which a launcher reports like any failed worker.
    """
    done = threading.Event()

    def watch() -> None:
        if not done.wait(seconds):
            sys.stderr.write(message + "\n")
            sys.stderr.flush()
            os._exit(1)

    threading.Thread(target=watch, name="kiln-cluster-watchdog", daemon=True).start()
    return done


def initialize(
    coordinator: str,
    num_processes: int,
    process_id: int,
    *,
    timeout: float = 600.0,
    local_device_ids: list[int] | None = None,
) -> None:
    """Join this process to a cluster of `num_processes` processes.

    Args:
        coordinator: "host:port" of the coordination service, hosted by process 0.
        num_processes: the world size.
        process_id: this process's rank in [0, num_processes).
        timeout: seconds to wait for the cluster to form.
        local_device_ids: the devices of this machine that this process uses (default: all; on GPU a
            launcher gives each process one).

    Raises:
        ClusterError: arrays already exist (they would belong to the backend being replaced), the
            coordinator never answered, the coordinator's port is taken, or the cluster has another size.
    """
    if _state["initialized"]:
        return
    gc.collect()  # arrays only a reference cycle keeps are not the user's
    if jax.live_arrays():
        raise ClusterError(
            "communication.init() must run before any Tensor is created in a multi-process job: "
            f"{len(jax.live_arrays())} array(s) already exist. Call init() at the start of the script."
        )
    host, _, port_text = coordinator.rpartition(":")
    port = int(port_text)
    deadline = time.monotonic() + timeout
    if process_id != 0 and not _probe(host, port, deadline):
        raise ClusterError(
            f"communication.init(): rank {process_id} could not reach the coordinator at {coordinator} "
            f"within {timeout:g} s. Is rank 0 running, and are MS_SCHED_HOST/MS_SCHED_PORT its address?"
        )
    platform = default_platform_name()
    had_default_device = jax.config.jax_default_device is not None
    # Kiln's import already started a single-process backend; the distributed one replaces it.
    jax_backend.clear_backends()
    with contextlib.suppress(Exception):  # the default already; older versions lack the option
        jax.config.update("jax_cpu_collectives_implementation", "gloo")
    remaining = max(1.0, deadline - time.monotonic())
    done = _watchdog(
        remaining,
        f"communication.init(): the cluster of {num_processes} worker(s) did not form within {timeout:g} s "
        f"(rank {process_id}, coordinator {coordinator}): a worker did not start, died, or was given another "
        "world size. See the other workers' logs.",
    )
    try:
        jax.distributed.initialize(
            coordinator_address=coordinator,
            num_processes=num_processes,
            process_id=process_id,
            local_device_ids=local_device_ids,
            initialization_timeout=int(remaining) + 30,  # the watchdog acts first
            shutdown_timeout_seconds=max(10, min(300, int(timeout))),
        )
    except Exception as err:
        done.set()
        text = str(err)
        if "Failed to start RPC server" in text or "address" in text.lower() and "use" in text.lower():
            raise ClusterError(
                f"communication.init(): rank 0 could not listen on {coordinator}: the port is in use. "
                "Pick another --master_port."
            ) from None
        raise ClusterError(f"communication.init(): joining the cluster at {coordinator} failed: {text}") from None
    done.set()
    if jax.process_count() != num_processes:
        raise ClusterError(
            f"communication.init(): expected {num_processes} worker(s), but the cluster has {jax.process_count()}."
        )
    if had_default_device:
        jax.config.update("jax_default_device", jax.local_devices(backend=platform)[0])
    _state["initialized"] = True
    _state["meshes"].clear()
    _state["jitted"].clear()


def is_initialized() -> bool:
    """True after `initialize` succeeded (several processes)."""
    return _state["initialized"]


def shutdown() -> None:
    """Leave the cluster (a barrier with the other processes); a no-op in a single process."""
    if _state["initialized"]:
        jax.distributed.shutdown()
        _state["initialized"] = False
        _state["meshes"].clear()
        _state["jitted"].clear()


def process_index() -> int:
    return jax.process_index()


def process_count() -> int:
    return jax.process_count()


def local_device_count() -> int:
    return jax.local_device_count()


def default_platform_name() -> str:
    """The platform Kiln runs on: its chosen default device's (set_context(device_target=...)), else JAX's."""
    device = jax.config.jax_default_device
    return getattr(device, "platform", None) or jax.default_backend()


# ---------------------------------------------------------------- meshes
def _group_mesh(ranks: tuple[int, ...]) -> Mesh:
    """The mesh of the processes `ranks` (in that order): axes ("rank", "local")."""
    mesh = _state["meshes"].get(ranks)
    if mesh is None:
        by_process: dict[int, list] = {}
        for d in jax.devices():
            by_process.setdefault(d.process_index, []).append(d)
        rows = [sorted(by_process[r], key=lambda d: d.id) for r in ranks]
        width = min(len(row) for row in rows)
        mesh = Mesh(np.array([row[:width] for row in rows], dtype=object), (RANK_AXIS, LOCAL_AXIS))
        _state["meshes"][ranks] = mesh
    return mesh


def _local_mesh() -> Mesh:
    mesh = _state["meshes"].get("local")
    if mesh is None:
        mesh = Mesh(np.array(jax.local_devices()), ("batch",))
        _state["meshes"]["local"] = mesh
    return mesh


# ---------------------------------------------------------------- collectives
def _block_fn(kind: str, op: str, size: int, root: int, axis: str, split_dim: int, concat_dim: int):
    """What each rank computes on its block (its value with a leading axis of 1) inside shard_map."""

    def reduce(b):
        if op == "sum":
            return lax.psum(b, axis)
        if op == "max":
            return lax.pmax(b, axis)
        if op == "min":
            return lax.pmin(b, axis)
        if op == "prod":
            return jnp.prod(lax.all_gather(b, axis, tiled=True), axis=0, keepdims=True).astype(b.dtype)
        raise ValueError(op)

    if kind == "all_reduce":
        return lambda b: reduce(b)[0], P()
    if kind == "all_gather":
        # (1, n, ...) on every rank -> (size * n, ...), ranks in order along the first axis.
        return lambda b: lax.all_gather(b[0], axis, axis=0, tiled=True), P()
    if kind == "reduce_scatter":
        if op == "sum":
            return lambda b: lax.psum_scatter(b[0], axis, scatter_dimension=0, tiled=True)[None], P(axis)

        def scatter(b):
            full = reduce(b)[0]
            n = full.shape[0] // size
            return lax.dynamic_slice_in_dim(full, lax.axis_index(axis) * n, n, axis=0)[None]

        return scatter, P(axis)
    if kind == "broadcast":
        return lambda b: lax.all_gather(b, axis, tiled=True)[root], P()
    if kind == "all_to_all":
        # Split `split_dim` into `size` pieces, piece j goes to rank j; received pieces join along `concat_dim`.
        return lambda b: lax.all_to_all(b[0], axis, split_dim, concat_dim, tiled=True)[None], P(axis)
    raise ValueError(kind)


def run_on_mesh(
    kind: str,
    stacked,
    mesh: Mesh,
    axis: str,
    *,
    op: str = "sum",
    root: int = 0,
    split_dim: int = 0,
    concat_dim: int = 0,
):
    """Run collective `kind` where rank r's value is `stacked[r]` and ranks are mesh axis `axis`.

    `stacked` is a global array whose first axis (of length `mesh.shape[axis]`) is sharded over `axis`.
    The result is a global array: replicated (all_reduce, all_gather, broadcast) or with a first axis of
    ranks (reduce_scatter, all_to_all).
    """
    size = mesh.shape[axis]
    key = (kind, op, root, mesh, axis, split_dim, concat_dim)
    fn = _state["jitted"].get(key)
    if fn is None:
        block, out_spec = _block_fn(kind, op, size, root, axis, split_dim, concat_dim)
        # check_vma=False: the values are plain per-rank data (no autodiff through shard_map here), and
        # replicated outputs of all_gather/psum need no proof of invariance.
        fn = jax.jit(jax.shard_map(block, mesh=mesh, in_specs=P(axis), out_specs=out_spec, check_vma=False))
        _state["jitted"][key] = fn
    return fn(stacked)


def collective(
    kind: str, x, ranks: tuple[int, ...], *, op: str = "sum", root: int = 0, split_dim: int = 0, concat_dim: int = 0
):
    """Collective `kind` over the processes `ranks`, on this process's local array `x`; returns its local result.

    Only the processes in `ranks` may call it, all with the same shape and dtype (XLA's rule). `root` is a
    position in `ranks`.
    """
    mesh = _group_mesh(ranks)
    size = len(ranks)
    x = jnp.asarray(x)
    if size == 1:
        return x
    sharding = NamedSharding(mesh, P(RANK_AXIS))
    local = x[None]
    if len(local.devices()) != 1:  # spread over this process's devices (data parallel): one copy suffices
        local = jax.device_put(local, jax.local_devices()[0])
    stacked = jax.make_array_from_process_local_data(sharding, local, (size, *x.shape))
    out = run_on_mesh(kind, stacked, mesh, RANK_AXIS, op=op, root=root, split_dim=split_dim, concat_dim=concat_dim)
    home = jax.local_devices()[0]
    # This process's piece, on its first device (where its other arrays live).
    piece = next(s.data for s in out.addressable_shards if s.device == home)
    return piece[0] if kind in ("reduce_scatter", "all_to_all") else piece


@jax.jit
def _pack(*xs):
    return jnp.concatenate([x.ravel() for x in xs])


_unpackers: dict = {}


def _unpacker(shapes: tuple, scaled: bool):
    fn = _unpackers.get((shapes, scaled))
    if fn is None:
        sizes = [int(np.prod(s, dtype=np.int64)) for s in shapes]
        cuts = np.cumsum(sizes)[:-1].tolist()

        def unpack(flat, scale):
            if scaled:
                flat = flat * scale.astype(flat.dtype)
            return tuple(p.reshape(s) for p, s in zip(jnp.split(flat, cuts), shapes))

        fn = _unpackers[(shapes, scaled)] = jax.jit(unpack)
    return fn


def all_reduce_fused(arrays: list, ranks: tuple[int, ...], scale: float | None = None) -> list:
    """Sum each of `arrays` over the processes `ranks` (then multiply by `scale`), one all-reduce per dtype.

    The arrays of one dtype are flattened into one buffer, reduced by one XLA all-reduce, and split back:
    one collective per step instead of one per gradient.
    """
    out: list = [None] * len(arrays)
    by_dtype: dict = {}
    for i, a in enumerate(arrays):
        by_dtype.setdefault(jnp.asarray(a).dtype, []).append(i)
    for positions in by_dtype.values():
        parts = [arrays[i] for i in positions]
        flat = _pack(*parts)
        if len(ranks) > 1:
            flat = collective("all_reduce", flat, ranks)
        pieces = _unpacker(tuple(tuple(p.shape) for p in parts), scale is not None)(
            flat, np.asarray(1.0 if scale is None else scale, np.float64)
        )
        for i, piece in zip(positions, pieces):
            out[i] = piece
    return out


def barrier(ranks: tuple[int, ...]) -> None:
    """Return once every process in `ranks` got here."""
    out = collective("all_reduce", np.ones((1,), np.int32), ranks)
    out.block_until_ready()


# ---------------------------------------------------------------- data parallelism inside one process
def shard_batch(x):
    """`x` with its first axis spread over this process's devices, or `x` itself when that cannot be done.

    Arrays of other shapes (no first axis, or one the device count does not divide) stay as they are;
    each op then runs where its inputs are, and results are the same either way.
    """
    n = jax.local_device_count()
    if n == 1 or jax.process_count() != 1 or not isinstance(x, jax.Array) or isinstance(x, jax.core.Tracer):
        return x
    if x.ndim == 0 or x.shape[0] % n:
        return x
    target = NamedSharding(_local_mesh(), P("batch"))
    if x.sharding == target:
        return x
    return jax.device_put(x, target)


def stacked_on_devices(values: np.ndarray, axis_size: int):
    """Test helper: a (ranks, ...) host array as a global array, rank r's row on device r of one process."""
    mesh = Mesh(np.array(jax.local_devices()[:axis_size]), (RANK_AXIS,))
    return jax.device_put(values, NamedSharding(mesh, P(RANK_AXIS))), mesh
