"""The op table: `OpRecord`, one row per op call, and `all_records()`, every row of the family modules.

Each module of this package (array, math, special, linalg, nn, standalone_primitives) defines
`RECORDS: list[OpRecord]`; `tests/ops/test_op_table.py` checks each record's value and gradient against its reference
and `tests/ops/test_op_modes.py` runs each in every execution mode. Random and in-place state ops have no
deterministic reference and are covered by tests/ops/test_random.py and test_state.py instead.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class OpRecord:
    """How to call one op in Kiln and in a reference, and what inputs to try.

    Args:
        name: test id (the op's public name, plus a variant suffix if needed).
        kiln: callable taking Kiln Tensors (positional) and returning Tensor(s).
        ref: callable taking NumPy arrays (same order) and returning array(s): NumPy, or
            jax.numpy converted with np.asarray (import jax only in tests).
        shapes: input shape tuples; several entries in `cases` exercise broadcasting.
        cases: extra lists of input shapes (each a full argument list) to try.
        dtypes: input dtypes (NumPy) to check the forward pass with.
        grad: check gradients of float inputs against central finite differences.
        domain: (low, high) of the random inputs; use it to keep away from poles and kinks.
        int_inputs: positions holding integer data (indices, labels): drawn in [0, int_high).
        int_high: exclusive upper bound for integer inputs.
        rtol, atol: forward tolerances (float32); gradients use looser ones.
        vmap: the op batches: `kiln.vmap` over a leading axis of every input equals the op per example.
    """

    name: str
    kiln: Callable
    ref: Callable
    shapes: tuple
    cases: tuple = ()
    dtypes: tuple = (np.float32,)
    grad: bool = True
    domain: tuple = (-2.0, 2.0)
    int_inputs: tuple = ()
    int_high: int = 3
    rtol: float = 1e-5
    atol: float = 1e-5
    vmap: bool = False
    extra: dict = field(default_factory=dict)


def all_records() -> list[OpRecord]:
    """Every RECORDS list of the family modules, in module-name order.

    KILN_OP_RECORDS=math,array narrows it to those families while developing.

    Returns:
        The records; a RuntimeError if two share a name (test ids must be unique).
    """
    only = {m.strip() for m in os.environ.get("KILN_OP_RECORDS", "").split(",") if m.strip()}
    records: list[OpRecord] = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if only and info.name not in only:
            continue
        records.extend(importlib.import_module(f"{__name__}.{info.name}").RECORDS)
    names = [r.name for r in records]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise RuntimeError(f"op records share a name: {duplicates}")
    return records
