"""The op record: one row of the table that drives forward and gradient checks.

Each module `tests/ops/records_*.py` defines `RECORDS: list[OpRecord]`;
`tests/ops/test_op_table.py` collects them all into one table.
"""

from __future__ import annotations

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
    extra: dict = field(default_factory=dict)
