"""Several processes and several devices: JAX's distributed runtime, meshes and XLA's collectives.

Everything Kiln does across devices goes through this module (it is the only place that calls
`jax.distributed`, builds a `Mesh` or a `NamedSharding`, or runs `shard_map`):

- `initialize` joins this process to a cluster of `num_processes` through JAX's coordination service
  (the process with id 0 hosts it). Collectives between processes then run over JAX's own transport
  (gloo on CPU, NCCL on GPU).
- A *rank* is a process. The world mesh has two axes: `"rank"` (one row per process, in process order)
  and `"local"` (that process's devices). A collective reduces over `"rank"` only, so a process's value
  counts once however many devices it has.
- `lower_collective` is what one rank computes for a MindSpore collective, with
  `lax.psum`/`pmax`/`pmin`/`all_gather`/`psum_scatter`/`all_to_all` over the rank axis. `collective` runs
  it at once on a process's local array (`jax.shard_map` over the group's mesh, compiled by XLA);
  `spmd_jit` compiles a whole Kiln graph that holds collectives as one program over every rank's devices.
- `virtual_ranks` makes the devices of one process stand for ranks (tests on one machine).
- `sharding_constraint` splits an array over a mesh of devices as a strategy says (semi-auto parallel:
  XLA's SPMD partitioner splits the rest of the program).
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
from jax.experimental import multihost_utils
from jax.extend import backend as jax_backend
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

from kiln._backend import late_errors

__all__ = [
    "ClusterError",
    "DifferingValueError",
    "all_reduce_fused",
    "collective",
    "initialize",
    "is_initialized",
    "local_device_count",
    "lower_collective",
    "process_count",
    "process_index",
    "run_on_mesh",
    "shard_batch",
    "sharding_constraint",
    "shutdown",
    "spmd_jit",
    "spmd_needed",
    "virtual_ranks",
    "spans_processes",
    "replicate_on_world",
    "from_process_parts",
    "to_host",
    "private_copies",
    "process_block",
    "settle",
]

RANK_AXIS = "rank"
LOCAL_AXIS = "local"

_state: dict = {"initialized": False, "meshes": {}, "jitted": {}}


class DifferingValueError(ValueError):
    """A process-local value was to become one global array, but the processes hold different values."""


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
    if platform == "cpu":
        # With XLA's CPU client dispatching programs asynchronously, PyNative's stream of small programs with
        # gloo collectives across processes was seen to deadlock (both ranks waiting inside one program's
        # collective); running each program before the next is dispatched keeps every rank in step.
        jax.config.update("jax_cpu_enable_async_dispatch", False)
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
# A collective is written once, as what one rank computes on its own value (`lower_collective`), with
# XLA's collectives over the mesh axis "rank". It runs inside `jax.shard_map` over the ranks' devices:
# eagerly (`collective`: a program of one collective) and in compiled graphs (`spmd_jit`: the whole
# graph is the per-rank program, as in MindSpore, where each rank runs its own copy of the graph).
#
# Each rank's value enters the program as a "replicated" global array whose copy on each rank's devices
# is that rank's own value (the mesh's rank axis is manual inside shard_map, so nothing assumes the
# copies agree), and leaves it the same way: every input and output keeps its per-rank shape.

CROSS_RANK_PRIMS: set[str] = set()  # names of the primitives that communicate between ranks (see spmd_needed)
_spmd: dict = {"axis": None, "size": 1}  # the rank axis while a program over the ranks is traced
_virtual: dict = {"mesh": None}  # set by `virtual_ranks`: this process's devices stand for the ranks


@contextlib.contextmanager
def _over_ranks(axis: str, size: int):
    saved = dict(_spmd)
    _spmd.update(axis=axis, size=size)
    try:
        yield
    finally:
        _spmd.update(saved)


@contextlib.contextmanager
def virtual_ranks(n: int):
    """Within this block, the first `n` devices of this process are `n` ranks (one process; for tests).

    A rank's value is a global array replicated over the `n` devices whose copy on device r is rank r's
    value (`to_ranks` / `from_ranks`); collectives, eager or compiled, run between the devices.
    """
    devices = jax.local_devices()
    if n > len(devices):
        raise ValueError(f"virtual_ranks({n}): this process has only {len(devices)} device(s).")
    saved = _virtual["mesh"]
    _virtual["mesh"] = Mesh(np.array(devices[:n]), (RANK_AXIS,))
    try:
        yield _virtual["mesh"]
    finally:
        _virtual["mesh"] = saved


def to_ranks(values: list):
    """Inside `virtual_ranks`: one array holding rank r's value `values[r]` on device r."""
    mesh = _virtual["mesh"]
    devices = list(mesh.devices.flat)
    parts = [jax.device_put(np.asarray(v), d) for v, d in zip(values, devices, strict=True)]
    return jax.make_array_from_single_device_arrays(parts[0].shape, NamedSharding(mesh, P()), parts)


def from_ranks(x) -> list:
    """Inside `virtual_ranks`: the per-rank values of an array made by `to_ranks` or a program over the ranks."""
    mesh = _virtual["mesh"]
    by_device = {s.device: s.data for s in x.addressable_shards}
    return [np.asarray(by_device[d]) for d in mesh.devices.flat]


def world_mesh() -> Mesh | None:
    """The mesh of all ranks (axes "rank", "local"; or "rank" with virtual ranks), None with one rank."""
    if _virtual["mesh"] is not None:
        return _virtual["mesh"]
    if not _state["initialized"] or jax.process_count() == 1:
        return None
    return _group_mesh(tuple(range(jax.process_count())))


def _as_global(x, mesh: Mesh):
    """This rank's value `x` as a global array over `mesh` (each of this process's devices holds a copy)."""
    sharding = NamedSharding(mesh, P())
    if isinstance(x, jax.Array) and x.sharding == sharding:
        return x
    x = jnp.asarray(x)
    me = jax.process_index()
    local = [d for d in mesh.devices.flat if d.process_index == me]
    parts = [jax.device_put(x, d) for d in local]
    return jax.make_array_from_single_device_arrays(x.shape, sharding, parts)


def _as_local(x, mesh: Mesh):
    """This rank's value of a program's output: the copy on this process's first device of the mesh."""
    if _virtual["mesh"] is mesh:
        return x
    me = jax.process_index()
    home = next(d for d in mesh.devices.flat if d.process_index == me)
    return next(s.data for s in x.addressable_shards if s.device == home)


def _reduce(x, op: str, axis):
    """Reduce over array axis `axis` keeping the dtype (the per-rank values stacked along it)."""
    if op == "sum":
        return jnp.sum(x, axis=axis, dtype=x.dtype)
    if op == "max":
        return jnp.max(x, axis=axis)
    if op == "min":
        return jnp.min(x, axis=axis)
    if op == "prod":
        return jnp.prod(x, axis=axis, dtype=x.dtype)
    raise ValueError(op)


def _stand_in(kind: str, x, size: int, split_dim: int, concat_dim: int):
    """A value of the result's shape and dtype, for shape inference outside a program over the ranks."""
    if kind == "all_gather":
        return jnp.concatenate([x] * size, axis=0)
    if kind == "reduce_scatter":
        return x[: x.shape[0] // size]
    if kind == "all_to_all":
        block = lax.slice_in_dim(x, 0, x.shape[split_dim] // size, axis=split_dim)
        return jnp.concatenate([block] * size, axis=concat_dim)
    return x


def lower_collective(
    kind: str, x, ranks: tuple[int, ...], *, op: str = "sum", root: int = 0, split_dim: int = 0, concat_dim: int = 0
):
    """What one rank computes for collective `kind` on its value `x` among the world ranks `ranks`.

    Traced inside a program over the ranks (`collective`, `spmd_jit`), it lowers to XLA's collectives
    over the rank axis: psum/pmax/pmin (all_reduce), all_gather, psum_scatter (reduce_scatter), a masked
    psum (broadcast from `root`, a position in `ranks`), all_to_all. A group that is not the whole world
    gathers every rank's value once and computes its members' result from them. Outside such a program
    (shape inference) it returns a stand-in of the right shape.
    """
    size = len(ranks)
    if size == 1:
        return x
    axis, world = _spmd["axis"], _spmd["size"]
    if axis is None:
        return _stand_in(kind, x, size, split_dim, concat_dim)
    if tuple(ranks) == tuple(range(world)):
        if kind == "all_reduce":
            if op == "sum":
                return lax.psum(x, axis)
            if op == "max":
                return lax.pmax(x, axis)
            if op == "min":
                return lax.pmin(x, axis)
            return _reduce(lax.all_gather(x, axis), op, 0)
        if kind == "all_gather":
            return lax.all_gather(x, axis, axis=0, tiled=True)
        if kind == "reduce_scatter":
            if op == "sum":
                return lax.psum_scatter(x, axis, scatter_dimension=0, tiled=True)
            full = _reduce(lax.all_gather(x, axis), op, 0)
            n = full.shape[0] // size
            return lax.dynamic_slice_in_dim(full, lax.axis_index(axis) * n, n, axis=0)
        if kind == "broadcast":
            if x.dtype == jnp.bool_:
                return lax.all_gather(x, axis)[root]
            return lax.psum(jnp.where(lax.axis_index(axis) == root, x, jnp.zeros_like(x)), axis)
        if kind == "all_to_all":
            return lax.all_to_all(x, axis, split_dim, concat_dim, tiled=True)
        raise ValueError(kind)
    # A sub-group: every rank's value, then the members' result (members compute theirs; others ignore it).
    members = lax.all_gather(x, axis)[np.asarray(ranks)]  # (size, ...) in group order
    position = np.zeros(world, np.int32)
    position[list(ranks)] = np.arange(size, dtype=np.int32)
    pos = jnp.asarray(position)[lax.axis_index(axis)]
    if kind == "all_reduce":
        return _reduce(members, op, 0)
    if kind == "all_gather":
        return members.reshape(size * x.shape[0], *x.shape[1:])
    if kind == "reduce_scatter":
        full = _reduce(members, op, 0)
        n = full.shape[0] // size
        return lax.dynamic_slice_in_dim(full, pos * n, n, axis=0)
    if kind == "broadcast":
        return members[root]
    if kind == "all_to_all":
        b = x.shape[split_dim] // size
        blocks = [lax.dynamic_slice_in_dim(members[j], pos * b, b, axis=split_dim) for j in range(size)]
        return jnp.concatenate(blocks, axis=concat_dim)
    raise ValueError(kind)


def _program(fun, mesh: Mesh, n_args: int):
    """jit(shard_map(fun)) over `mesh`: every argument and output is a per-rank value."""
    axis = RANK_AXIS
    size = mesh.shape[axis]

    def body(*args):
        with _over_ranks(axis, size):
            outs = fun(*args)
        return [jnp.asarray(o) for o in outs]

    specs = tuple(P() for _ in range(n_args))
    # check_vma=False: each rank's copy is its own value, not a replica that must agree.
    return jax.jit(jax.shard_map(body, mesh=mesh, in_specs=specs, out_specs=P(), check_vma=False))


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
    ranks = tuple(range(size))
    key = ("stacked", kind, op, root, mesh, axis, split_dim, concat_dim)
    fn = _state["jitted"].get(key)
    if fn is None:
        out_spec = P(axis) if kind in ("reduce_scatter", "all_to_all") else P()

        def block(b):
            with _over_ranks(axis, size):
                out = lower_collective(kind, b[0], ranks, op=op, root=root, split_dim=split_dim, concat_dim=concat_dim)
            return out[None] if kind in ("reduce_scatter", "all_to_all") else out

        fn = jax.jit(jax.shard_map(block, mesh=mesh, in_specs=P(axis), out_specs=out_spec, check_vma=False))
        _state["jitted"][key] = fn
    return fn(stacked)


def collective(
    kind: str, x, ranks: tuple[int, ...], *, op: str = "sum", root: int = 0, split_dim: int = 0, concat_dim: int = 0
):
    """Collective `kind` among the world ranks `ranks`, on this rank's value `x`; returns this rank's result.

    Only the ranks in `ranks` call it (a program over their devices), all with the same shape and dtype.
    `root` is a position in `ranks`.
    """
    if len(ranks) == 1:
        return jnp.asarray(x)
    if _virtual["mesh"] is not None:
        mesh, members = _virtual["mesh"], tuple(ranks)
    else:  # only the group's processes take part: the program's mesh is theirs, in group order
        mesh, members = _group_mesh(tuple(ranks)), tuple(range(len(ranks)))
    x = _as_global(x, mesh)
    key = ("eager", kind, members, op, root, split_dim, concat_dim, mesh)
    fn = _state["jitted"].get(key)
    if fn is None:

        def one(v):
            return [lower_collective(kind, v, members, op=op, root=root, split_dim=split_dim, concat_dim=concat_dim)]

        fn = _state["jitted"][key] = _program(one, mesh, 1)
    return _as_local(fn(x)[0], mesh)


class SpmdProgram:
    """A compiled graph run as one program over every rank's devices (see `spmd_jit`)."""

    __slots__ = ("fun", "programs")

    def __init__(self, fun) -> None:
        self.fun = fun
        self.programs: dict = {}

    def __call__(self, *args):
        mesh = world_mesh()
        if mesh is None:
            raise RuntimeError(
                "A graph with collectives among several ranks was compiled in a job of several ranks and is "
                "called outside it."
            )
        fn = self.programs.get((mesh, len(args)))
        if fn is None:
            fn = self.programs[(mesh, len(args))] = _program(self.fun, mesh, len(args))
        outs = fn(*(_as_global(a, mesh) for a in args))
        return [_as_local(o, mesh) for o in outs]

    def lower(self, *args):
        """The XLA program (for inspection: its collectives and bytes)."""
        mesh = world_mesh()
        return _program(self.fun, mesh, len(args)).lower(*(_as_global(a, mesh) for a in args))


def spmd_jit(fun) -> SpmdProgram:
    """`fun` (a graph's per-rank program, returning a list of arrays) compiled over every rank's devices.

    Called with this rank's arrays, it returns this rank's outputs; the collectives inside lower to XLA's
    collectives between the ranks (across processes through JAX's distributed runtime).
    """
    return SpmdProgram(fun)


def spmd_needed(graph) -> bool:
    """Whether `graph` (a Kiln graph; nested graphs included) has a collective among several ranks."""
    for e in graph.eqns:
        prim = e.prim
        if type(prim) is not str and prim.name in CROSS_RANK_PRIMS:
            ranks = prim.attrs_dict(e.attrs).get("ranks", ())
            if len(ranks) > 1:
                return True
        if any(spmd_needed(g) for g in e.subgraphs()):
            return True
    return False


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
    """Return once every rank in `ranks` got here."""
    out = collective("all_reduce", np.ones((1,), np.int32), ranks)
    out.block_until_ready()


# ---------------------------------------------------------------- sharding strategies (semi-auto parallel)
def device_count() -> int:
    """The number of devices of the job (every process's)."""
    return jax.device_count()


def _named_sharding(layout: tuple) -> NamedSharding:
    """The NamedSharding of a descriptor (mesh shape, axis names, device ids, partition spec)."""
    key = ("layout", layout)
    sharding = _state["meshes"].get(key)
    if sharding is None:
        shape, names, positions, spec = layout
        world = jax.devices()
        devices = np.array([world[i] for i in positions], dtype=object).reshape(shape)
        sharding = NamedSharding(Mesh(devices, names), P(*spec))
        _state["meshes"][key] = sharding
    return sharding


def sharding_constraint(x, layout: tuple):
    """`x` split over the devices as `layout` says: a constraint for XLA's partitioner inside a compiled
    program, a placement of the array otherwise."""
    sharding = _named_sharding(layout)
    if isinstance(x, jax.core.Tracer):
        return lax.with_sharding_constraint(x, sharding)
    x = jnp.asarray(x)
    if x.sharding == sharding:
        return x
    try:
        return jax.device_put(x, sharding)
    except AssertionError:  # JAX's check that a value placed over several processes is the same on each
        raise DifferingValueError(
            "the value is not the same on every process, but a tensor placed over the devices of several processes "
            "is one global value"
        ) from None


def sharding_of(x):
    """The sharding of an array split or copied over several devices, else None."""
    sharding = getattr(x, "sharding", None)
    return sharding if isinstance(sharding, NamedSharding) and len(sharding.device_set) > 1 else None


def place(x, sharding):
    """`x` placed with `sharding`."""
    return jax.device_put(jnp.asarray(x), sharding)


# ---------------------------------------------------------------- data parallelism inside one process
def shard_batch(x):
    """`x` with its first axis spread over this process's devices, or `x` itself when that cannot be done.

    Arrays of other shapes (no first axis, or one the device count does not divide) stay as they are;
    each op then runs where its inputs are, and results are the same either way.
    """
    n = jax.local_device_count()
    if n == 1 or jax.process_count() != 1 or _virtual["mesh"] is not None:
        return x
    if not isinstance(x, jax.Array) or isinstance(x, jax.core.Tracer):
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


# ---------------------------------------------------------------- arrays over every process's devices
def spans_processes(x) -> bool:
    """Whether `x` is a global array over the devices of several processes (not this process's alone)."""
    if not isinstance(x, jax.Array) or isinstance(x, jax.core.Tracer):
        return False
    return not x.is_fully_addressable


def needs_lifting(x) -> bool:
    """Whether `x` is a concrete array split across the job's processes, some of it on this process's devices: a
    program cannot hold it as a constant, it must be one of its inputs (`program_constant`)."""
    if not isinstance(x, jax.Array) or isinstance(x, jax.core.Tracer) or x.is_fully_addressable:
        return False
    return not x.is_fully_replicated and x.sharding.has_addressable_devices


def program_constant(x):
    """`x`, checked to be an array a program of this process may hold as a constant. JAX lowers a closed-over array
    by reading its value in this process: that works for a value every device holds whole (it reads this process's
    copy) and fails, wherever a primitive's rule reads it (a branch of `lax.cond`, a loop body), for one split
    across processes or lying only on another process's devices ("Closing over jax.Array that spans non-addressable
    devices"). A split one is made an input of the program instead (`needs_lifting`).

    Raises:
        ValueError: `x` is split across processes, or lies only on other processes' devices.
    """
    if not _state["initialized"] or not isinstance(x, jax.Array) or isinstance(x, jax.core.Tracer):
        return x
    if x.is_fully_addressable or (x.is_fully_replicated and x.sharding.has_addressable_devices):
        return x
    where = "split across the job's processes" if x.sharding.has_addressable_devices else "on other processes' devices"
    raise ValueError(
        f"a constant {x.dtype}{list(x.shape)} of the program lies {where} ({x.sharding}): a program cannot hold it "
        "as a constant. Pass it to the Cell or function as an argument, or keep it in a Parameter."
    )


def replicate_on_world(x, layout: tuple):
    """`x` (this process's value, the same on every process) copied onto every device of the job; `layout`
    names the mesh (one mesh for every array a program reads) and a partition that splits nothing.

    Raises:
        DifferingValueError: the processes hold different values.
    """
    try:
        return jax.device_put(np.asarray(x), _named_sharding(layout))
    except AssertionError:  # JAX's check that a value placed over several processes is the same on each
        raise DifferingValueError("the value is not the same on every process") from None


def from_process_parts(x, layout: tuple):
    """The global array laid out as `layout` whose part on this process's devices is `x` (this process's slice
    along every dimension the layout splits across processes; whole along the others)."""
    return jax.make_array_from_process_local_data(_named_sharding(layout), np.asarray(x))


def to_host(x) -> np.ndarray:
    """The whole value of `x` on this host: a global array split across processes is gathered first."""
    try:
        if spans_processes(x) and not x.is_fully_replicated:
            return np.asarray(multihost_utils.process_allgather(x, tiled=True))
        return np.asarray(x)
    except Exception as err:
        late = late_errors.at_read(err)  # a GPU's failure reported at this read (an allocation, a host callback)
        if late is None:
            raise
        raise late from None


def settle(result) -> None:
    """In a job of several processes, wait until `result` (the outputs of one program) is computed on every device
    of this process; nothing in a single process.

    XLA's CPU client starts a program on each local device from a thread pool. PyNative dispatches the next program
    as soon as the call returns, so a program's launch on one device could overtake the previous program's launch
    on another device of the same process: the first device then waits inside the new program's collective while
    the second still owes the old one's (seen as one process in an all-gather and the other in an all-reduce, a
    device's launch blocked on its in-flight semaphore). Waiting for every output keeps the programs in order.
    """
    if not _state["initialized"]:
        return
    for leaf in result if isinstance(result, (tuple, list)) else (result,):
        if isinstance(leaf, jax.Array) and not isinstance(leaf, jax.core.Tracer) and not leaf.is_fully_addressable:
            leaf.block_until_ready()


def process_block(x) -> tuple[np.ndarray, list[list[int]] | None] | None:
    """What this process holds of a global array over several processes' devices, read without a collective.

    Returns:
        None for an array of this process alone; else (the block this process's devices hold, its [start, stop)
        per dimension), with None for the position when the block is the whole array.

    Raises:
        ValueError: this process's shards do not make one rectangular block (they are saved as one).
    """
    if not spans_processes(x):
        return None
    shards = {}
    for shard in x.addressable_shards:
        index = tuple(
            (0 if s.start is None else s.start, n if s.stop is None else s.stop)
            for s, n in zip(shard.index, x.shape, strict=True)
        )
        shards.setdefault(index, shard.data)
    box = [(min(i[d][0] for i in shards), max(i[d][1] for i in shards)) for d in range(x.ndim)]
    block = np.empty(tuple(b - a for a, b in box), dtype=x.dtype)
    covered = 0
    for index, data in shards.items():
        block[tuple(slice(a - b0, b - b0) for (a, b), (b0, _) in zip(index, box, strict=True))] = np.asarray(data)
        covered += int(np.prod([b - a for a, b in index], dtype=np.int64))
    if covered != block.size:
        raise ValueError(
            f"this process holds parts {sorted(shards)} of an array of shape {x.shape}, which are not one block"
        )
    if all(a == 0 and b == n for (a, b), n in zip(box, x.shape, strict=True)):
        return block, None
    return block, [[a, b] for a, b in box]


def private_copies(xs: list) -> list:
    """Copies of the arrays `xs` sharing no buffer with them (before their buffers are donated), each laid out as
    it was. One batched transfer: a program whose donated state another program wrote copies several arrays at
    each call, and a transfer's fixed cost (~0.1 ms) is most of a small array's copy."""
    if any(map(spans_processes, xs)):
        return jax.device_put(xs, [x.sharding for x in xs], may_alias=False)
    return jax.device_put(xs, may_alias=False)
