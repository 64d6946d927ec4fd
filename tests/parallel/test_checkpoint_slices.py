"""Per-rank checkpoint files holding slices (kiln/train/checkpoint/distributed.py): the `kiln_process_slices` entry a
rank's save records says where each slice lies, and `load_distributed_checkpoint` puts the whole value back together
from the files, or says which part is missing. (The 2-process jobs that write such files: test_model_parallel.py.)"""

from __future__ import annotations

import json

import numpy as np
import pytest

import kiln as ms
from kiln import Tensor, nn


def _rank_files(tmp_path, whole: np.ndarray) -> list[str]:
    """Two files as two ranks save a (4, 6) weight split by columns, and a bias both hold whole."""
    files = []
    for rank, cols in enumerate(((0, 3), (3, 6))):
        place = {"weight": {"shape": list(whole.shape), "index": [[0, 4], list(cols)]}}
        path = str(tmp_path / f"rank_{rank}.ckpt")
        values = {"weight": Tensor(whole[:, cols[0] : cols[1]]), "bias": Tensor(np.arange(4.0, dtype=np.float32))}
        ms.save_checkpoint(values, path, append_dict={"kiln_process_slices": json.dumps(place)})
        files.append(path)
    return files


def test_rank_files_merge_into_the_whole_parameters_and_load(tmp_path):
    whole = np.arange(24, dtype=np.float32).reshape(4, 6)
    files = _rank_files(tmp_path, whole)
    merged = ms.load_distributed_checkpoint(None, files, return_param_dict=True)
    assert sorted(merged) == ["bias", "weight"]
    np.testing.assert_array_equal(merged["weight"].asnumpy(), whole)
    ms.save_checkpoint(merged, str(tmp_path / "merged.ckpt"))
    assert "kiln_process_slices" not in ms.load_checkpoint(str(tmp_path / "merged.ckpt"))
    net = nn.Dense(6, 4)
    ms.load_distributed_checkpoint(net, files)
    np.testing.assert_array_equal(net.weight.asnumpy(), whole)
    np.testing.assert_array_equal(net.bias.asnumpy(), np.arange(4.0))


def test_a_missing_rank_file_is_named_as_a_gap(tmp_path):
    files = _rank_files(tmp_path, np.ones((4, 6), np.float32))
    with pytest.raises(ValueError, match="cover 12 of the 24 elements of 'weight': pass every rank's file"):
        ms.load_distributed_checkpoint(None, files[:1], return_param_dict=True)
