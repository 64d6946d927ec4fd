"""`kiln.nn.layer` lists MindSpore 2.10's `mindspore.nn.layer` names (goldens: make_layer_names_mindspore.py)."""

import json
import os

import numpy as np

import kiln
from kiln import Tensor, nn

HERE = os.path.dirname(os.path.abspath(__file__))

# MindSpore's names that kiln.nn.layer does not list, and why
NOT_IN_LAYER = {
    **dict.fromkeys(
        [
            "AvgPool1dExt",
            "AvgPool2dExt",
            "AvgPool3dExt",
            "Dropout2dExt",
            "DropoutExt",
            "EmbeddingExt",
            "LayerNormExt",
            "LogSoftmaxExt",
            "MaxPool2dExt",
            "PReLUExt",
        ],
        "mint.nn's classes, reached as kiln.nn.<name> (mint sits above nn)",
    ),  # fmt: skip
    **dict.fromkeys(["Conv2dThor", "DenseThor", "EmbeddingLookupThor", "EmbeddingThor"], "THOR layers: not in Kiln"),
    "CosineSimilarity": "the layer (mindspore.nn.layer.math) is not in Kiln; kiln.nn.CosineSimilarity is the metric",
    "Unfold": "not in Kiln yet",
}


def test_layer_package_lists_mindspores_layer_names():
    with open(os.path.join(HERE, "layer_names_mindspore.json")) as f:
        names = json.load(f)["names"]
    assert set(NOT_IN_LAYER) <= set(names)
    missing = [n for n in names if n not in NOT_IN_LAYER and n not in nn.layer.__all__]
    assert missing == []
    for name in nn.layer.__all__:
        # the very objects kiln.nn has
        assert getattr(nn.layer, name) is getattr(nn, name), name


def test_zoo_ssd_builds_its_heads_in_a_layer_cell_list():
    # the zoo's SSD (official/cv/SSD/src/ssd.py, MultiBox) keeps its heads in nn.layer.CellList
    heads = nn.layer.CellList([nn.Dense(3, 2), nn.Dense(3, 4)])
    kiln.set_context(mode=kiln.PYNATIVE_MODE)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    for head in heads:
        want = x @ head.weight.asnumpy().T + head.bias.asnumpy()
        np.testing.assert_allclose(head(Tensor(x)).asnumpy(), want, rtol=1e-6)
    assert len(list(heads.trainable_params())) == 4
