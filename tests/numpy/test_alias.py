"""`import mindspore.numpy` (under `kiln run`'s alias) gives `kiln.numpy`, in both import spellings."""

from __future__ import annotations

import importlib

import kiln.numpy as knp
from kiln.cli import mindspore_alias


def test_mindspore_numpy_is_kiln_numpy():
    with mindspore_alias():
        mnp = importlib.import_module("mindspore.numpy")
        ms = importlib.import_module("mindspore")
        assert mnp is knp
        assert ms.numpy is knp  # `from mindspore import numpy as np`
        assert mnp.float32 is ms.float32
