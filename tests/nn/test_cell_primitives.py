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
from kiln import nn, ops
from kiln.nn.layer._held import touched
from kiln.ops.primitive import Primitive

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "cell_primitives_mindspore.json")) as f:
    GOLDEN = json.load(f)["cells"]

# MindSpore composes these layers from primitives; Kiln computes them in one op or a functional composition, which
# holds no primitive for a strategy to act on.
COMPOSED = "MindSpore composes the layer from these primitives; Kiln computes it another way"
GLOBAL_BN = "MindSpore's cross-device (global) batch-norm statistics; Kiln's layer runs bn_train / bn_infer"
RNN_REVERSE = "MindSpore reverses the sequence for the backward direction with these; Kiln's loop reads it backwards"

LACKING_LOOKUP = (
    "MindSpore's parallel lookup of unique ids then their reverse map; Kiln's strategies on gatherv2 leave the layout "
    "to XLA's partitioner"
)
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
    "AdaptiveMaxPool1d": (("dtype", "expand", "squeeze"), COMPOSED),
    "BatchNorm1d": _BN_GLOBAL_EXTRAS,
    "BatchNorm2d": _BN_GLOBAL_EXTRAS,
    "BatchNorm3d": (("reshape", "shape"), "its child bn2d holds bn_train / bn_infer; the 5-D view is a Tensor reshape"),
    "ChannelShuffle": (("reshape", "shape", "transpose"), COMPOSED),
    "DiGamma": (
        ("abs", "cos", "dtype", "equal", "floor", "less", "log1p", "logicaland", "select", "shape", "sin"),
        COMPOSED,
    ),  # fmt: skip
    "EmbeddingLookup": (("gather_revert", "reshape", "reshape_first", "shape", "unique"), LACKING_LOOKUP),
    "FocalLoss": (("dtype", "expand_dims", "gather_d", "squeeze", "tile"), COMPOSED),
    "GLU": (("sigmoid", "spilt"), COMPOSED),
    "GRU": (("reverse", "reverse_sequence"), RNN_REVERSE),
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
    "LSTM": (("reverse", "reverse_sequence"), RNN_REVERSE),
    "Linear": (("dense",), "Kiln's Linear is its Dense (matmul, bias_add); Kiln has no P.Dense class"),
    "LogSigmoid": (("add", "exp", "log", "mul", "rec"), COMPOSED),
    "MAELoss": (("abs",), COMPOSED),
    "MSSSIM": (("concat", "pow", "prod", "reduce_mean", "stack"), COMPOSED),
    "MatDet": (("cholesky", "det_triangle", "dtype", "square"), COMPOSED),
    "MatInverse": (("choleskytrsm", "dtype"), COMPOSED),
    "MatMul": (("expand_op", "reduce_sum_op", "shape_op", "squeeze_left_op", "squeeze_right_op"), COMPOSED),
    "MatrixDiag": (("dtype", "matrix_diag"), COMPOSED),
    "MatrixDiagPart": (("dtype", "matrix_diag_part"), COMPOSED),
    "MatrixSetDiag": (("dtype", "matrix_set_diag"), COMPOSED),
    "Moments": (("cast", "reduce_mean", "square_diff", "squeeze"), COMPOSED),
    "MultiFieldEmbeddingLookup": (
        ("gather_revert", "reshape", "reshape_first", "shape", "unique"),
        "its EmbeddingLookup's: " + LACKING_LOOKUP,
    ),  # fmt: skip
    "Norm": (("reduce_sum", "sqrt", "squeeze"), COMPOSED),
    "RMSELoss": (("dtype",), COMPOSED),
    "RNN": (("reverse", "reverse_sequence"), RNN_REVERSE),
    "RReLU": (("sign",), COMPOSED),
    "ReduceLogSumExp": (("exp", "log", "max", "sum"), COMPOSED),
    "Roll": (("shape_op",), COMPOSED),
    "SSIM": (("concat", "reduce_mean"), COMPOSED),
    "SyncBatchNorm": _BN_GLOBAL_EXTRAS,
    "Tril": (("cast", "dtype", "mul"), COMPOSED),
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
    # the figure: cells holding all of MindSpore's primitive attributes (3 of 119 in session 22, 38 in session 23; the
    # losses built on LossBase, ELU, Dropout2d/3d and Conv1d/3dTranspose since: 57; 75 of 114 in session 25)
    holding_all = [n for n in HOLDING if n not in LACKING]
    assert len(holding_all) >= 75, len(holding_all)


def test_absent_cells_are_absent():
    assert not any(hasattr(nn, n) for n in ABSENT)


def test_a_fused_loss_warns_once_that_a_strategy_on_its_reduction_is_unused():
    loss = nn.MSELoss()
    with pytest.warns(UserWarning, match="MSELoss.reduce_mean is not run"):
        loss.reduce_mean.shard(((1,),))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nn.MSELoss().reduce_mean.shard(((1,),))  # once per attribute


def test_replacing_a_fused_losss_idle_primitive_warns_once():
    """The replacement is not run (the loss reduces inside its own op): said once, never silently ignored."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        loss = nn.SoftMarginLoss()  # building the layer holds its primitives without a warning
    with pytest.warns(UserWarning, match="SoftMarginLoss.reduce_mean is not run .*ReduceSum assigned to it"):
        loss.reduce_mean = ops.ReduceSum()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nn.SoftMarginLoss().reduce_mean = ops.ReduceSum()  # once per layer class and attribute
        loss.reduce_mean = loss.reduce_mean  # the same object again is no replacement


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
    primitive (a swap after a GRAPH_MODE program compiled: tests/_compiler/test_replaced_attributes.py)."""
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


def test_a_sharded_network_pickles_and_copies_with_its_strategies():
    """`shard` gives a primitive a class made at run time: a pickled or deep-copied network keeps it sharded, with the
    same strategies, and runs as the original (tests/parallel/test_cell_primitive_shard.py: split over 4 devices)."""
    net = nn.SequentialCell(nn.Dense(3, 2), nn.ReLU())
    net[0].matmul.shard(((1, 1), (1, 1)))
    net[1].relu.shard(((1, 1),))
    x = ms.Tensor(np.array([[1.0, -2.0, 0.5]], np.float32))
    for again in (pickle.loads(pickle.dumps(net)), copy.deepcopy(net)):
        assert type(again[0].matmul) is type(net[0].matmul) and type(again[1].relu) is type(net[1].relu)
        assert again[0].matmul.in_strategy == ((1, 1), (1, 1)) and again[1].relu.in_strategy == ((1, 1),)
        assert touched(again[0]) and touched(again[1])
        # within rounding: a kernel's quick -O0 build and its optimised one may differ in the last bit (FMA)
        np.testing.assert_allclose(again(x).asnumpy(), net(x).asnumpy(), rtol=1e-6, atol=0)


# MindSpore builds these on LossBase; Kiln's compute in one op, so they hold get_loss's primitives (and their own) idle
_LOSSES_ON_LOSSBASE = (
    "CTCLoss", "CosineEmbeddingLoss", "DiceLoss", "GaussianNLLLoss", "HingeEmbeddingLoss", "KLDivLoss",
    "MarginRankingLoss", "MultiClassDiceLoss", "MultiLabelSoftMarginLoss", "MultiMarginLoss", "MultilabelMarginLoss",
    "PoissonNLLLoss", "SoftMarginLoss", "TripletMarginLoss",
)  # fmt: skip


@pytest.mark.parametrize("name", _LOSSES_ON_LOSSBASE)
def test_losses_built_on_loss_base_warn_once_that_a_strategy_is_unused(name):
    loss = _build(name)
    assert isinstance(loss, nn.LossBase)  # as MindSpore's
    assert (loss.reduction, loss.average, loss.reduce) == ("mean", True, True)
    with pytest.warns(UserWarning, match=f"{name}.reduce_mean is not run"):
        loss.reduce_mean.shard(((1,),))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _build(name).reduce_mean.shard(((1,),))  # once per attribute


def test_elu_and_channel_dropouts_run_their_held_primitives_once_touched():
    """ELU holds `elu` (P.Elu with its alpha), Dropout2d/3d hold `dropout2d`/`dropout3d` (keep_prob 1 - p): sharded,
    the layer runs the held primitive and gives what the fused op gives (the same draws after the same seed);
    replaced, it runs the user's."""
    x = ms.Tensor(np.array([-2.0, -0.5, 0.0, 1.5], np.float32))
    elu = nn.ELU(0.5)
    fused = elu(x).asnumpy()
    np.testing.assert_allclose(fused, np.where(x.asnumpy() > 0, x.asnumpy(), 0.5 * np.expm1(x.asnumpy())), rtol=1e-6)
    elu.elu.shard(((1,),))
    assert touched(elu) and elu.elu.alpha == 0.5
    np.testing.assert_array_equal(elu(x).asnumpy(), fused)
    elu.elu = ms.ops.Abs()
    np.testing.assert_array_equal(elu(x).asnumpy(), np.abs(x.asnumpy()))
    for cls, attr, shape in ((nn.Dropout2d, "dropout2d", (2, 8, 3, 3)), (nn.Dropout3d, "dropout3d", (2, 8, 2, 2, 2))):
        layer = cls(0.25)
        layer.set_train()
        assert getattr(layer, attr).keep_prob == 0.75
        ones = ms.Tensor(np.ones(shape, np.float32))
        ms.set_seed(5)
        fused = layer(ones).asnumpy()
        getattr(layer, attr).shard(((1,) * len(shape),))
        assert touched(layer)
        ms.set_seed(5)
        np.testing.assert_array_equal(layer(ones).asnumpy(), fused)
        assert set(np.unique(fused).tolist()) <= {0.0, np.float32(1 / 0.75).item()}


@pytest.mark.parametrize("mode", ["same", "valid", "pad"])
@pytest.mark.parametrize("stride", [1, 3])
def test_conv1d_and_conv3d_transpose_run_their_held_primitive_once_sharded(mode, stride):
    """Conv1dTranspose holds MindSpore's 2-D `conv2d_transpose` over (N, C, 1, L) with expand_dims/squeeze,
    Conv3dTranspose its `conv3d_transpose` (output_padding inside); sharded, each runs them and gives the fused op's
    output (shape and values), bias included."""
    rng = np.random.default_rng(7)
    padding = 1 if mode == "pad" else 0
    for cls, shape, attr in (
        (nn.Conv1dTranspose, (2, 4, 7), "conv2d_transpose"),
        (nn.Conv3dTranspose, (1, 4, 3, 4, 3), "conv3d_transpose"),
    ):
        extra = {"output_padding": 1} if cls is nn.Conv3dTranspose and mode == "pad" and stride > 1 else {}
        layer = cls(4, 6, 3, stride=stride, pad_mode=mode, padding=padding, dilation=2, has_bias=True, **extra)
        layer.bias.set_data(ms.Tensor(rng.standard_normal(6).astype(np.float32)))
        x = ms.Tensor(rng.standard_normal(shape).astype(np.float32))
        fused = layer(x).asnumpy()
        rank = 4 if cls is nn.Conv1dTranspose else 5
        getattr(layer, attr).shard(((1,) * rank, (1,) * rank))
        assert touched(layer)
        held = layer(x).asnumpy()
        assert held.shape == fused.shape
        np.testing.assert_allclose(held, fused, rtol=1e-6, atol=1e-6)


def _rand(*shape):
    return ms.Tensor(np.random.default_rng(sum(shape)).standard_normal(shape).astype(np.float32))


# ids (3, 5), their weights (some 0: left out of a 'MAX' merge) and fields (field 3 of sample 0 empty)
_FIELD_INPUTS = (
    ms.Tensor(np.array([[0, 3, 6, 1, 2], [5, 5, 4, 0, 1], [2, 6, 3, 3, 0]], np.int32)),
    ms.Tensor(
        np.array([[1.0, 0.5, 0.0, -2.0, 1.5], [0.0, 0.0, 1.0, 2.0, -1.0], [0.5, 1.5, 1.0, -0.5, 2.5]], np.float32)
    ),
    ms.Tensor(np.array([[0, 1, 1, 2, 0], [3, 3, 0, 1, 2], [2, 2, 1, 0, 3]], np.int32)),
)
# layer, its held attribute, a strategy's rank per input of that primitive, the inputs
_HELD_CASES = {
    "AdaptiveAvgPool2d": (lambda: nn.AdaptiveAvgPool2d((2, None)), "adaptive_avgpool2d", (4,), (_rand(2, 3, 5, 4),)),
    "AdaptiveAvgPool3d": (lambda: nn.AdaptiveAvgPool3d(2), "adaptive_avg_pool3d", (5,), (_rand(1, 2, 5, 4, 3),)),
    "AdaptiveMaxPool3d": (lambda: nn.AdaptiveMaxPool3d(2), "adaptive_max_pool3d", (5,), (_rand(1, 2, 5, 4, 3),)),
    "AdaptiveMaxPool3d indices": (
        lambda: nn.AdaptiveMaxPool3d((2, 1, 3), return_indices=True),
        "adaptive_max_pool3d",
        (5,),
        (_rand(1, 2, 5, 4, 3),),
    ),  # fmt: skip
    "BiDense": (lambda: nn.BiDense(4, 3, 5), "matmul", (2, 2), (_rand(2, 6, 4), _rand(2, 6, 3))),
    "BiDense bias_add": (lambda: nn.BiDense(4, 3, 5), "bias_add", (2, 1), (_rand(7, 4), _rand(7, 3))),
    "ClipByNorm": (lambda: nn.ClipByNorm(1), "clip_by_norm", (2, 1), (_rand(3, 4), ms.Tensor(np.float32(0.8)))),
    "ClipByNorm all axes": (lambda: nn.ClipByNorm(), "clip_by_norm", (3, 1), (_rand(2, 3, 4), ms.Tensor([1.5]))),
    "InstanceNorm1d": (lambda: nn.InstanceNorm1d(3), "instance_bn", (3, 1, 1, 1, 1), (_rand(2, 3, 7),)),
    "InstanceNorm2d": (lambda: nn.InstanceNorm2d(3), "instance_bn", (4, 1, 1, 1, 1), (_rand(2, 3, 4, 5),)),
    "InstanceNorm3d": (lambda: nn.InstanceNorm3d(3), "instance_bn", (5, 1, 1, 1, 1), (_rand(2, 3, 2, 4, 3),)),
    "LRN": (lambda: nn.LRN(2, 1.5, 0.3, 0.75), "lrn_op", (4,), (_rand(2, 6, 3, 3),)),
    **{
        f"MultiFieldEmbeddingLookup {op}": (
            lambda op=op: nn.MultiFieldEmbeddingLookup(7, 3, 4, target="DEVICE", operator=op),
            "merge_op",
            (2, 1) if op == "MAX" else (3, 2),
            _FIELD_INPUTS,
        )
        for op in ("SUM", "MAX", "MEAN")
    },  # fmt: skip
    "MultiFieldEmbeddingLookup CPU": (
        lambda: nn.MultiFieldEmbeddingLookup(7, 3, 4, operator="MEAN"),
        "embeddinglookup",
        (2, 2),
        _FIELD_INPUTS,
    ),  # fmt: skip
    "LogSoftmaxExt": (lambda: nn.LogSoftmaxExt(1), "log_softmax", (3,), (_rand(2, 5, 3),)),
    "LogSoftmaxExt default dim": (lambda: nn.LogSoftmaxExt(), "log_softmax", (2,), (_rand(4, 6),)),
    "MaxPool1d": (lambda: nn.MaxPool1d(3, 2), "max_pool", (4,), (_rand(2, 3, 9),)),
    "MaxPool1d same": (lambda: nn.MaxPool1d(3, 2, "same"), "max_pool", (4,), (_rand(3, 8),)),
    "AvgPool1d": (lambda: nn.AvgPool1d(3, 2), "avg_pool", (4,), (_rand(2, 3, 9),)),
    "AvgPool1d whole": (lambda: nn.AvgPool1d(4, 3), "reduce_mean", (3,), (_rand(2, 3, 5),)),
    "AvgPool1d unbatched": (lambda: nn.AvgPool1d(2), "avg_pool", (4,), (_rand(3, 6),)),
    "OneHot": (
        lambda: nn.OneHot(0, 5, 2.0, -1.0),
        "onehot",
        (1,),
        (ms.Tensor(np.array([0, 3, 4, 1], np.int32)),),
    ),  # fmt: skip
    "ReplicationPad1d": (lambda: nn.ReplicationPad1d((1, 2)), "padv3", (3,), (_rand(2, 3, 4),)),
    "ReplicationPad2d": (lambda: nn.ReplicationPad2d((1, 2, 0, 3)), "padv3", (4,), (_rand(3, 4, 5),)),
    "ReplicationPad3d": (lambda: nn.ReplicationPad3d(1), "padv3", (5,), (_rand(1, 2, 3, 2, 4),)),
    "SmoothL1Loss": (lambda: nn.SmoothL1Loss(0.5, "mean"), "smooth_l1_loss", (2, 2), (_rand(4, 3), _rand(4, 3) * 0.3)),
}


class _Tripled(nn.Cell):
    """A user's replacement of a held primitive: the same primitive, its (first) output times 3."""

    def __init__(self, prim):
        super().__init__()
        self.prim = prim

    def construct(self, *args, **kwargs):
        out = self.prim(*args, **kwargs)
        return (out[0] * 3, out[1]) if isinstance(out, tuple) else out * 3


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
@pytest.mark.parametrize("case", sorted(_HELD_CASES))
def test_a_sharded_held_primitive_runs_and_gives_the_fused_result(case, mode):
    """Each layer's held primitive, sharded, is what the layer runs (MindSpore's sequence around it), with the fused
    op's result, in both modes; replaced, the layer returns what the replacement returns."""
    make, attr, ranks, inputs = _HELD_CASES[case]
    ms.set_context(mode=mode)
    try:
        layer = make()
        fused = layer(*inputs)
        getattr(layer, attr).shard(tuple((1,) * r for r in ranks))
        assert touched(layer)
        held = layer(*inputs)
        for f, h in zip(fused if isinstance(fused, tuple) else (fused,), held if isinstance(held, tuple) else (held,),
                        strict=True):  # fmt: skip
            assert f.shape == h.shape and f.dtype == h.dtype
            np.testing.assert_allclose(h.asnumpy(), f.asnumpy(), rtol=1e-6, atol=1e-6)
        layer = make()
        setattr(layer, attr, _Tripled(getattr(layer, attr)))
        got = layer(*inputs)
        got, fused = (got[0], fused[0]) if isinstance(got, tuple) else (got, fused)
        assert not np.allclose(got.asnumpy(), fused.asnumpy())
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
