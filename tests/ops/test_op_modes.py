"""Every op record in graph mode: each record's call compiled with `kiln.jit` gives the same results as in PyNative
(tests/ops/test_op_table.py checks PyNative against the records' NumPy/SciPy references)."""

from __future__ import annotations

import numpy as np
import pytest

import kiln
from kiln import Tensor
from kiln._compiler.cache import memory as cache
from tests.ops.records import all_records
from tests.ops.test_op_table import _as_tuple, _seed, _to_numpy, make_inputs

# Ops whose output shape depends on input values (or that read values on the host) run in PyNative only.
PYNATIVE_ONLY: set[str] = set()


@pytest.mark.parametrize("record", all_records(), ids=lambda r: r.name)
def test_graph_mode_matches_pynative(record):
    if record.name in PYNATIVE_ONLY:
        pytest.skip("value-dependent output shape: PyNative only")
    dtype = record.dtypes[0]
    arrays = make_inputs(record, dtype, record.shapes, _seed(record.name, "graph"))
    eager = _as_tuple(record.kiln(*(Tensor(a) for a in arrays)))
    before = cache.STATS["compiles"]
    compiled = _as_tuple(kiln.jit(record.kiln)(*(Tensor(a) for a in arrays)))
    assert cache.STATS["compiles"] > before, f"{record.name}: kiln.jit compiled nothing"
    assert len(compiled) == len(eager)
    for k, (g, e) in enumerate(zip(compiled, eager)):
        g_np, e_np = _to_numpy(g), _to_numpy(e)
        assert g_np.dtype == e_np.dtype, f"{record.name} output {k}: graph dtype {g_np.dtype}, PyNative {e_np.dtype}"
        np.testing.assert_allclose(g_np, e_np, rtol=1e-5, atol=1e-6, err_msg=f"{record.name} output {k}")
