"""Array primitives (kiln/_prims/array.py) against NumPy, across the jax versions Kiln supports."""

import numpy as np
import pytest

from kiln._backend import jnp
from kiln._prims import array


def _numpy_scatter(x, index, src, dim, reduce):
    out = x.copy()
    grids = list(np.meshgrid(*[np.arange(s) for s in index.shape], indexing="ij"))
    grids[dim] = index
    if reduce == "none":
        out[tuple(grids)] = src
    else:
        (np.add if reduce == "add" else np.multiply).at(out, tuple(grids), src)
    return out


@pytest.mark.parametrize("grids_as", ["list", "tuple"])
@pytest.mark.parametrize(("dim", "reduce"), [(0, "none"), (1, "none"), (0, "add"), (1, "multiply")])
def test_scatter_elements_equals_numpy_whatever_meshgrid_returns(dim, reduce, grids_as, monkeypatch, rng):
    """jax 0.11 returns meshgrid's grids as a tuple (0.10: a list); the scatter must not assign into it."""
    meshgrid = jnp.meshgrid
    as_type = list if grids_as == "list" else tuple
    monkeypatch.setattr(array.jnp, "meshgrid", lambda *a, **k: as_type(meshgrid(*a, **k)))
    x = rng.standard_normal((3, 4)).astype(np.float32)
    index = np.stack([rng.permutation(4)[:3] for _ in range(3)]) if dim == 1 else rng.integers(0, 3, (2, 4))
    src = rng.standard_normal(index.shape).astype(np.float32)
    got = array.ScatterElements.impl(jnp.asarray(x), jnp.asarray(index), jnp.asarray(src), dim=dim, reduce=reduce)
    np.testing.assert_allclose(np.asarray(got), _numpy_scatter(x, index, src, dim, reduce), rtol=1e-6)
