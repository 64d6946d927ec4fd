"""The dataset sweep's cases (tests/dataset/sweep_cases.py) against MindSpore 2.10's results.

Goldens: tests/dataset/make_sweep_goldens_mindspore.py (run under MindSpore's environment) writes goldens/sweep.json.
Covers map's default input column, Decode(to_pil=True), PIL images kept by RandomGrayscale / FiveCrop / TenCrop,
Solarize's (t, t) threshold, OneHot's smoothed float64, Affine's fractional translate and centre, RandomAffine's
translate ranges, Resize of image stacks, bucket_batch_by_length without pad_info, per_batch_map's row count, an
endless repeat's dataset size and string columns' output_types.
"""

import json
import os
import types

import numpy as np
import pytest

import kiln as ms
import kiln.dataset as ds
import kiln.dataset.transforms as T
import kiln.dataset.vision as v
from tests.dataset import sweep_cases

with open(os.path.join(os.path.dirname(__file__), "goldens", "sweep.json")) as f:
    GOLD = json.load(f)
M = types.SimpleNamespace(ds=ds, v=v, T=T, ms=ms)


def _compare(got, want, path: str, tol) -> None:
    assert got.keys() == want.keys(), f"{path}: {got} vs {want}"
    if "error" in want:
        assert got["error"] == want["error"], path
    elif "dtype" in want:
        assert (got["dtype"], got["shape"]) == (want["dtype"], want["shape"]), path
        a, b = np.asarray(got["data"]), np.asarray(want["data"])
        if a.dtype.kind in "fiub" and b.dtype.kind in "fiub":
            diff = np.abs(a.astype(np.float64) - b.astype(np.float64))
            if tol is None:
                np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6, err_msg=path)
            else:
                assert diff.max(initial=0) <= tol[0] and (diff > 1e-6).mean() <= tol[1], path
        else:
            assert a.tolist() == b.tolist(), path
    elif "pil" in want:
        assert (got["pil"], got["size"]) == (want["pil"], want["size"]), path
        _compare(got["array"], want["array"], path, tol)
    elif "seq" in want:
        assert got["seq"] == want["seq"] and len(got["items"]) == len(want["items"]), path
        for i, (g, w) in enumerate(zip(got["items"], want["items"])):
            _compare(g, w, f"{path}[{i}]", tol)
    elif "dict" in want:
        assert got["dict"].keys() == want["dict"].keys(), path
        for k in want["dict"]:
            _compare(got["dict"][k], want["dict"][k], f"{path}.{k}", tol)
    else:
        assert got == want, path


@pytest.mark.parametrize("name", sorted(sweep_cases.ALL))
def test_sweep_case(name):
    got = sweep_cases.run(sweep_cases.ALL[name], M)
    _compare(got, GOLD[name], name, sweep_cases.TOLERANCE.get(name))
