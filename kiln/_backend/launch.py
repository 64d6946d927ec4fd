"""A compiled program launched without jax.jit's dispatch: the XLA executable and its output handlers.

jax.jit's C++ call computes each call's signature, looks it up and prepares every input before it runs the
executable. A caller that has already checked that its arrays are the ones the program was compiled for (their
avals, on the one device) can run the executable itself and skip that work (about 0.1x of a small call).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import jax

try:  # JAX's dispatch is internal to it: another JAX keeps its own call
    from jax._src import dispatch, xla_bridge
    from jax._src.array import ArrayImpl
    from jax._src.interpreters.pxla import ExecuteReplicated
except ImportError:
    dispatch = xla_bridge = ExecuteReplicated = ArrayImpl = None

__all__ = ["Launch", "array_type", "launch_of"]


def array_type() -> type:
    """The type of a concrete device array (a launch takes only these; no array is made to find it: making one
    compiles a program)."""
    return ArrayImpl if ArrayImpl is not None else type(jax.device_put(0))


class Launch:
    """What running a compiled program directly needs.

    Attributes:
        execute: `execute(arrays)` runs the executable on the device arrays, returns its results.
        handlers: the output handlers: `execute(arrays).consume_with_handlers(handlers)` is the list of outputs.
        avals: the abstract value (shape, dtype, weak type) each input array must have.
    """

    __slots__ = ("execute", "handlers", "avals")

    def __init__(self, execute: Callable, handlers: list, avals: tuple) -> None:
        self.execute, self.handlers, self.avals = execute, handlers, avals


def launch_of(program, arrays: Sequence) -> Launch | None:
    """The `Launch` of `program` (a jax.jit already called on `arrays`, or a compiled executable) for inputs like
    `arrays`, or None when a launch could skip something its call does: more than one device (on any platform),
    effects or host callbacks, hoisted constants, unused inputs, NaN checks (jax_debug_nans), mutable arrays.

    Args:
        program: a `jax.jit` function (its executable for these inputs is the one its calls compiled) or a
            `jax.stages.Compiled`.
        arrays: the concrete input arrays of a call that ran it.

    Returns:
        The launch, or None.
    """
    if ExecuteReplicated is None:
        return None
    try:  # JAX's internals: another JAX whose fields differ keeps its own call
        if (
            jax.process_count() != 1
            or dispatch.needs_check_special()
            # one device in all: jax.jit's call would place (or compile for) another default device, e.g. after
            # set_context(device_target=...) on a machine with a GPU; a launch has no such choice to make
            or sum(len(backend.local_devices()) for backend in xla_bridge.backends().values()) != 1
        ):
            return None
        at = array_type()
        if any(type(a) is not at for a in arrays):
            return None
        compiled = program if isinstance(program, jax.stages.Compiled) else program.lower(*arrays).compile()
        executable = compiled._executable
        params = compiled._params
        call = executable.unsafe_call
        return _launch(executable, params, call, arrays)
    except Exception:  # noqa: BLE001  (not a program of this kind: its own call stays the way in)
        return None


def _launch(executable, params, call, arrays: Sequence) -> Launch | None:
    """`launch_of`'s answer for one compiled executable: None when its call does more than run it."""
    if (
        type(call) is not ExecuteReplicated
        or call.has_unordered_effects
        or call.ordered_effects
        or call.has_host_callbacks
        or call.mut is not None
        or call.pgle_profiler is not None
        or params.const_args
        or set(call.kept_var_idx) != set(range(len(arrays)))
    ):
        return None
    avals = tuple(a.aval for a in arrays)
    if tuple(executable.in_avals) != avals:
        return None
    return Launch(call.xla_executable.execute_sharded, list(call.out_handler.handlers), avals)
