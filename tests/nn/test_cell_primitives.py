"""nn cells hold MindSpore's primitive attributes (`dense.matmul`, `conv.conv2d`, `relu.relu`, ...) as Kiln Primitives
of the same class, as cell_primitives_mindspore.json lists them (make_cell_primitives_mindspore.py, MindSpore 2.10).

Zoo code reaches into them (`self.dense.matmul.shard(((1, 8), (1, 8)))`); tests/parallel/test_cell_primitive_shard.py
checks that a strategy set on them takes effect. The attributes Kiln's cells lack are listed below with the reason; the
list must equal what is missing, so that a cell losing one fails, and a cell gaining one shrinks the list.
"""

from __future__ import annotations

import copy
import json
import os
import pickle
import warnings

import numpy as np
import pytest

import kiln as ms
from kiln import nn
from kiln.nn.layer._held import touched
from kiln.ops.primitive import Primitive

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "cell_primitives_mindspore.json")) as f:
    GOLDEN = json.load(f)["cells"]

# MindSpore composes these layers from primitives; Kiln computes them in one op or a functional composition, which
# holds no primitive for a strategy to act on.
COMPOSED = "MindSpore composes the layer from these primitives; Kiln computes it another way"
# MindSpore's layer runs this primitive; Kiln's calls the functional op and does not hold it yet.
NOT_YET = "not held yet: the layer calls the functional op (a later change)"
NOT_LOSSBASE = "Kiln's loss is not built on LossBase.__init__, which holds get_loss's primitives (a later change)"
GLOBAL_BN = "MindSpore's cross-device (global) batch-norm statistics; Kiln's layer runs bn_train / bn_infer"
RNN_REVERSE = "MindSpore reverses the sequence for the backward direction with these; Kiln's loop reads it backwards"

# MindSpore's BatchNorm1d/2d hold these for their cross-device statistics
_BN_GLOBAL_EXTRAS = (
    (
        "assign_sub_mean",
        "assign_sub_var",
        "cast",
        "dtype",
        "mul_mean",
        "mul_var",
        "reduce_mean",
        "reshape",
        "shape",
        "sqrt",
        "square",
        "sub_mean",
        "sub_var",
    ),
    GLOBAL_BN,
)

LACKING = {
    "AdaptiveAvgPool1d": (("dtype", "expand", "squeeze"), COMPOSED),
    "AdaptiveAvgPool2d": (("adaptive_avgpool2d",), NOT_YET),
    "AdaptiveAvgPool3d": (("adaptive_avg_pool3d",), NOT_YET),
    "AdaptiveMaxPool1d": (("dtype", "expand", "squeeze"), COMPOSED),
    "AdaptiveMaxPool3d": (("adaptive_max_pool3d",), NOT_YET),
    "AvgPool1d": (("avg_pool", "expand", "reduce_mean", "slice", "squeeze"), NOT_YET),
    "BatchNorm1d": _BN_GLOBAL_EXTRAS,
    "BatchNorm2d": _BN_GLOBAL_EXTRAS,
    "BatchNorm3d": (("reshape", "shape"), "its child bn2d holds bn_train / bn_infer; the 5-D view is a Tensor reshape"),
    "BiDense": (("bias_add", "matmul"), NOT_YET),
    "CTCLoss": (("cast", "mul", "reduce_mean", "reduce_sum"), NOT_LOSSBASE),
    "ChannelShuffle": (("reshape", "shape", "transpose"), COMPOSED),
    "ClipByNorm": (("clip_by_norm",), NOT_YET),
    "Conv1dTranspose": (("bias_add", "conv2d_transpose", "expand_dims", "shape", "squeeze"), NOT_YET),
    "Conv3dTranspose": (("bias_add", "conv3d_transpose", "shape"), NOT_YET),
    "CosineEmbeddingLoss": (("cast", "maximum", "mul", "reduce_mean", "reduce_sum"), NOT_LOSSBASE),
    "DiGamma": (
        ("abs", "cos", "dtype", "equal", "floor", "less", "log1p", "logicaland", "select", "shape", "sin"),
        COMPOSED,
    ),  # fmt: skip
    "DiceLoss": (("cast", "mul", "reduce_mean", "reduce_sum", "reshape"), NOT_LOSSBASE),
    "Dropout2d": (("dropout2d",), NOT_YET),
    "Dropout3d": (("dropout3d",), NOT_YET),
    "ELU": (("elu",), "Kiln's P.Elu has no `alpha` attribute yet, so it cannot stand for ELU(alpha)"),
    "EmbeddingLookup": (
        ("gather_revert", "reshape", "reshape_first", "shape", "unique"),
        "MindSpore's parallel lookup of unique ids then their reverse map; Kiln's strategies on gatherv2 leave the "
        "layout to XLA's partitioner",
    ),  # fmt: skip
    "FocalLoss": (("dtype", "expand_dims", "gather_d", "squeeze", "tile"), COMPOSED),
    "GLU": (("sigmoid", "spilt"), COMPOSED),
    "GRU": (("reverse", "reverse_sequence"), RNN_REVERSE),
    "GaussianNLLLoss": (("cast", "mul", "reduce_mean", "reduce_sum"), NOT_LOSSBASE),
    "HingeEmbeddingLoss": (("cast", "mul", "reduce_mean", "reduce_sum"), NOT_LOSSBASE),
    "IGamma": (
        (
            "cast",
            "dtype",
            "equal",
            "exp",
            "greater",
            "less",
            "log",
            "logicaland",
            "logicalnot",
            "logicalor",
            "neg",
            "select",
            "shape",
            "zeroslike",
        ),
        COMPOSED,
    ),  # fmt: skip
    "InstanceNorm1d": (("instance_bn", "shape"), NOT_YET),
    "InstanceNorm2d": (("instance_bn", "shape"), NOT_YET),
    "InstanceNorm3d": (("instance_bn", "shape"), NOT_YET),
    "KLDivLoss": (("cast", "mul", "reduce_mean", "reduce_sum"), NOT_LOSSBASE),
    "L1LossExt": (("cast", "mul", "reduce_mean", "reduce_sum"), NOT_LOSSBASE),
    "L1Regularizer": (("abs", "reduce_sum"), COMPOSED),
    "LBeta": (("const", "dtype", "less", "log", "log1p", "select", "shape"), COMPOSED),
    "LGamma": (
        (
            "abs",
            "dtype",
            "equal",
            "floor",
            "greater",
            "isfinite",
            "less",
            "lessequal",
            "log",
            "log1p",
            "ones_like",
            "select",
            "shape",
            "sin",
        ),
        COMPOSED,
    ),  # fmt: skip
    "LRN": (("lrn_op",), NOT_YET),
    "LSTM": (("reverse", "reverse_sequence"), RNN_REVERSE),
    "Linear": (("dense",), "Kiln's Linear is its Dense (matmul, bias_add); Kiln has no P.Dense class"),
    "LogSigmoid": (("add", "exp", "log", "mul", "rec"), COMPOSED),
    "LogSoftmaxExt": (("log_softmax",), NOT_YET),
    "MAELoss": (("abs",), COMPOSED),
    "MSSSIM": (("concat", "pow", "prod", "reduce_mean", "stack"), COMPOSED),
    "MarginRankingLoss": (("cast", "mul", "reduce_mean", "reduce_sum"), NOT_LOSSBASE),
    "MatDet": (("cholesky", "det_triangle", "dtype", "square"), COMPOSED),
    "MatInverse": (("choleskytrsm", "dtype"), COMPOSED),
    "MatMul": (("expand_op", "reduce_sum_op", "shape_op", "squeeze_left_op", "squeeze_right_op"), COMPOSED),
    "MatrixDiag": (("dtype", "matrix_diag"), COMPOSED),
    "MatrixDiagPart": (("dtype", "matrix_diag_part"), COMPOSED),
    "MatrixSetDiag": (("dtype", "matrix_set_diag"), COMPOSED),
    "MaxPool1d": (("expand", "max_pool", "reduce_mean", "squeeze"), NOT_YET),
    "Moments": (("cast", "reduce_mean", "square_diff", "squeeze"), COMPOSED),
    "MultiClassDiceLoss": (("cast", "mul", "reduce_mean", "reduce_sum", "reshape"), NOT_LOSSBASE),
    "MultiFieldEmbeddingLookup": (
        (
            "abs",
            "add",
            "bias_add",
            "cast",
            "count_op",
            "div_no_nan",
            "equal",
            "expand",
            "gather_revert",
            "inf_add",
            "inf_mask_mul",
            "max_mask_mul",
            "max_no_equal",
            "merge_op",
            "mul",
            "reshape",
            "reshape_first",
            "shape",
            "unique",
        ),
        NOT_YET,
    ),  # fmt: skip
    "MultiLabelSoftMarginLoss": (("cast", "mul", "reduce_mean", "reduce_sum"), NOT_LOSSBASE),
    "MultiMarginLoss": (("cast", "mul", "multi_margin_loss", "reduce_mean", "reduce_sum"), NOT_LOSSBASE),
    "MultilabelMarginLoss": (("cast", "mul", "multilabel_margin_loss", "reduce_mean", "reduce_sum"), NOT_LOSSBASE),
    "Norm": (("reduce_sum", "sqrt", "squeeze"), COMPOSED),
    "OneHot": (("onehot",), NOT_YET),
    "PoissonNLLLoss": (("cast", "maximum", "mul", "reduce_mean", "reduce_sum"), NOT_LOSSBASE),
    "RMSELoss": (("dtype",), COMPOSED),
    "RNN": (("reverse", "reverse_sequence"), RNN_REVERSE),
    "RReLU": (("sign",), COMPOSED),
    "ReduceLogSumExp": (("exp", "log", "max", "sum"), COMPOSED),
    "ReplicationPad1d": (("padv3",), NOT_YET),
    "ReplicationPad2d": (("padv3",), NOT_YET),
    "ReplicationPad3d": (("padv3",), NOT_YET),
    "Roll": (("shape_op",), COMPOSED),
    "SSIM": (("concat", "reduce_mean"), COMPOSED),
    "SmoothL1Loss": (("smooth_l1_loss",), NOT_YET),
    "SoftMarginLoss": (("cast", "mul", "reduce_mean", "reduce_sum"), NOT_LOSSBASE),
    "SyncBatchNorm": (
        (
            "assign_sub_mean",
            "assign_sub_var",
            "cast",
            "dtype",
            "mul_mean",
            "mul_var",
            "reduce_mean",
            "reshape",
            "shape",
            "sqrt",
            "square",
            "sub_mean",
            "sub_var",
        ),
        GLOBAL_BN,
    ),  # fmt: skip
    "Tril": (("cast", "dtype", "mul"), COMPOSED),
    "TripletMarginLoss": (("cast", "mul", "reduce_mean", "reduce_sum"), NOT_LOSSBASE),
    "TripletMarginWithDistanceLoss": (("maximum", "minimum"), COMPOSED),
    "Triu": (("cast", "dtype", "mul"), COMPOSED),
}
# MindSpore cells Kiln does not have at all (tests/nn/test_layer_namespace.py lists the layer names)
ABSENT = {"Conv2dThor", "DenseThor", "EmbeddingLookupThor", "EmbeddingThor", "SampledSoftmaxLoss"}

# The layers zoo code shards and the common ones: each holds every primitive MindSpore's has (BatchNorm's
# cross-device extras aside)
COMMON = (
    "Dense", "Conv1d", "Conv2d", "Conv3d", "Conv2dTranspose", "BatchNorm1d", "BatchNorm2d", "MaxPool2d", "AvgPool2d",
    "MaxPool3d", "AvgPool3d", "Dropout", "ReLU", "ReLU6", "Softmax", "LogSoftmax", "Tanh", "Sigmoid", "Embedding",
    "LayerNorm", "PReLU", "HSwish", "HSigmoid", "FastGelu", "LossBase", "MSELoss", "L1Loss", "BCELoss",
    "SoftmaxCrossEntropyWithLogits",
)  # fmt: skip


def _build(name: str):
    args = tuple(tuple(a) if isinstance(a, list) else a for a in GOLDEN[name]["args"])
    return getattr(nn, name)(*args)


def _missing(name: str) -> tuple:
    cell = _build(name)
    out = []
    for attr, cls_name in GOLDEN[name]["primitives"].items():
        value = getattr(cell, attr, None)
        if not isinstance(value, Primitive) or type(value).__name__ != cls_name:
            out.append(attr)
    return tuple(out)


HOLDING = sorted(n for n, rec in GOLDEN.items() if rec["primitives"] and n not in ABSENT)


@pytest.mark.parametrize("name", HOLDING)
def test_cell_holds_mindspores_primitives(name):
    want = LACKING.get(name, ((), ""))[0]
    assert _missing(name) == want, f"{name}: lacks {_missing(name)}; the list says {want}"


def test_common_layers_lack_nothing_but_global_batch_norm():
    for name in COMMON:
        assert name in GOLDEN and GOLDEN[name]["primitives"], name
        assert name not in LACKING or LACKING[name][1] == GLOBAL_BN, name
    # the figure: cells holding all of MindSpore's primitive attributes (3 of 119 before this change)
    holding_all = [n for n in HOLDING if n not in LACKING]
    assert len(holding_all) >= 37, len(holding_all)


def test_absent_cells_are_absent():
    assert not any(hasattr(nn, n) for n in ABSENT)


def test_a_fused_loss_warns_once_that_a_strategy_on_its_reduction_is_unused():
    loss = nn.MSELoss()
    with pytest.warns(UserWarning, match="MSELoss.reduce_mean is not run"):
        loss.reduce_mean.shard(((1,),))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nn.MSELoss().reduce_mean.shard(((1,),))  # once per attribute


class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(3, 2, weight_init="ones", bias_init="zeros")
        self.act = nn.ReLU()

    def construct(self, x):
        return self.act(self.dense(x))


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_a_swapped_primitive_runs(mode):
    """`relu.relu = ...` and `dense.matmul = P.MatMul(...)` before the first call: the cell calls the user's
    primitive (a GRAPH_MODE program compiled before a swap is not rebuilt, as a compiled graph keeps its attributes)."""
    ms.set_context(mode=mode)
    try:
        x = ms.Tensor(np.array([[1.0, -2.0, 0.5]], np.float32))
        np.testing.assert_allclose(_Net()(x).asnumpy(), [[0.0, 0.0]])
        net = _Net()
        net.act.relu = ms.ops.Abs()  # the user's choice replaces the ReLU
        np.testing.assert_allclose(net(x).asnumpy(), [[0.5, 0.5]])
        net = _Net()
        net.dense.matmul = ms.ops.MatMul(transpose_b=False)  # the weight (2, 3) untransposed: x (1, 3) does not fit
        with pytest.raises((ValueError, TypeError, RuntimeError)):
            net(x)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_layers_holding_primitives_pickle_and_copy():
    """Held primitives keep their plain classes: the layers pickle as before, and a deep copy's strategy is its own."""
    net = nn.SequentialCell(
        nn.Dense(3, 2), nn.ReLU(), nn.Tanh(), nn.Conv2d(2, 2, 1), nn.Embedding(3, 2), nn.MSELoss(), nn.MaxPool2d()
    )
    again = pickle.loads(pickle.dumps(net))
    assert type(again[0].matmul).__name__ == "MatMul" and type(again[5].mul).__name__ == "Mul"
    copied = copy.deepcopy(net)
    copied[0].matmul.shard(((1, 1), (1, 1)))
    assert touched(copied[0]) and not touched(net[0])
