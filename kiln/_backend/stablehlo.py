"""Serialised StableHLO programs (JAX's export format): write a traced program, read it back as a callable.

`kiln.common.export` owns the file container and the user-facing checks; this module holds what needs JAX.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import jax
import numpy as np


def shape_struct(shape: Sequence[int], dtype) -> jax.ShapeDtypeStruct:
    """An abstract array of `shape` and `dtype` to trace a program at."""
    return jax.ShapeDtypeStruct(tuple(shape), np.dtype(dtype))


def export_program(program: Callable, structs: Sequence) -> tuple[dict, bytes]:
    """Trace `program` at `structs` and serialise it, for CPU and CUDA where the lowering allows.

    Returns:
        The facts a reader needs (avals, platforms, calling convention...) and the StableHLO bytecode.

    Raises:
        NotImplementedError: the program is sharded or has side effects (callbacks, prints).
    """
    try:
        exported = jax.export.export(jax.jit(program), platforms=("cpu", "cuda"))(*structs)
    except Exception:  # noqa: BLE001  (a lowering missing for CUDA: export for this machine's platform)
        exported = jax.export.export(jax.jit(program))(*structs)
    if any(s is not None for s in (*exported.in_shardings_hlo, *exported.out_shardings_hlo)):
        raise NotImplementedError("export: sharded (multi-device) programs are not exported by Kiln.")
    if exported.ordered_effects or exported.unordered_effects:
        raise NotImplementedError("export: the network has side effects (callbacks, prints) that cannot be exported.")
    facts = {
        "fun_name": exported.fun_name,
        "inputs": [[list(a.shape), np.dtype(a.dtype).name] for a in exported.in_avals],
        "outputs": [[list(a.shape), np.dtype(a.dtype).name] for a in exported.out_avals],
        "nr_devices": exported.nr_devices,
        "platforms": list(exported.platforms),
        "calling_convention_version": exported.calling_convention_version,
        "module_kept_var_idx": list(exported.module_kept_var_idx),
        "uses_global_constants": exported.uses_global_constants,
    }
    return facts, exported.mlir_module_serialized


def load_program(facts: dict, module: bytes) -> Callable:
    """The program `export_program` serialised, as a function of arrays returning a tuple of arrays."""
    in_avals = tuple(jax.core.ShapedArray(tuple(s), np.dtype(d)) for s, d in facts["inputs"])
    out_avals = tuple(jax.core.ShapedArray(tuple(s), np.dtype(d)) for s, d in facts["outputs"])
    tree = jax.tree_util.tree_structure
    exported = jax.export.Exported(
        fun_name=facts["fun_name"],
        in_tree=tree((tuple(range(len(in_avals))), {})),
        in_avals=in_avals,
        out_tree=tree(tuple(range(len(out_avals)))),
        out_avals=out_avals,
        _has_named_shardings=False,
        _in_named_shardings=(None,) * len(in_avals),
        _out_named_shardings=(None,) * len(out_avals),
        in_shardings_hlo=(None,) * len(in_avals),
        out_shardings_hlo=(None,) * len(out_avals),
        nr_devices=facts["nr_devices"],
        platforms=tuple(facts["platforms"]),
        ordered_effects=(),
        unordered_effects=(),
        disabled_safety_checks=(),
        mlir_module_serialized=module,
        calling_convention_version=facts["calling_convention_version"],
        module_kept_var_idx=tuple(facts["module_kept_var_idx"]),
        uses_global_constants=facts["uses_global_constants"],
        _get_vjp=None,
    )
    return exported.call
