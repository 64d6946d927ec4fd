"""Kiln's layers (MindSpore's `mindspore.nn.layer`): convolution, pooling, normalisation, activations, ...

Every layer is reached here as well as from `kiln.nn` and `kiln.nn.layer.<family>`, as in MindSpore, whose zoo
reaches layers through the package (SSD's `nn.layer.CellList`, GCN's `nn.layer.activation.get_activation`).
"""

from kiln.nn.cell import CellDict, CellList, SequentialCell
from kiln.nn.layer import (
    activation,
    basic,
    combined,
    conv,
    dense,
    embedding,
    image,
    math,
    normalization,
    padding,
    pooling,
    rnn,
    sparse,
    time_distributed,
    transformer,
)
from kiln.nn.layer.activation import *  # noqa: F403
from kiln.nn.layer.basic import *  # noqa: F403
from kiln.nn.layer.combined import *  # noqa: F403
from kiln.nn.layer.conv import *  # noqa: F403
from kiln.nn.layer.dense import *  # noqa: F403
from kiln.nn.layer.embedding import *  # noqa: F403
from kiln.nn.layer.image import *  # noqa: F403
from kiln.nn.layer.math import *  # noqa: F403
from kiln.nn.layer.normalization import *  # noqa: F403
from kiln.nn.layer.padding import *  # noqa: F403
from kiln.nn.layer.pooling import *  # noqa: F403
from kiln.nn.layer.rnn import *  # noqa: F403
from kiln.nn.layer.sparse import *  # noqa: F403
from kiln.nn.layer.time_distributed import *  # noqa: F403
from kiln.nn.layer.transformer import *  # noqa: F403

# MindSpore's nn.layer lists its containers (nn/layer/container.py; Kiln's live in nn/cell.py) and every family's
# names; `get_activation` is outside its __all__ but imported from the package by zoo networks.
__all__ = ["CellDict", "CellList", "SequentialCell", "get_activation"]
for _m in (
    activation, basic, combined, conv, dense, embedding, image, math, normalization, padding, pooling, rnn, sparse,
    time_distributed, transformer,
):  # fmt: skip
    __all__ += [n for n in _m.__all__ if n not in __all__]
del _m
get_activation = activation.get_activation
