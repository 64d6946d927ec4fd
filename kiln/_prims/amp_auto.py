"""What amp level 'auto' does to each op (`PrimitiveDef.amp_auto`) and which ops level O1 casts
(`PrimitiveDef.amp_o1`): MindSpore 2.10's op lists by Kiln's primitive.

MindSpore's `auto_mixed_precision(net, 'auto')` runs the network's construct under an op-level strategy
(mindspore/train/amp.py: AMP_AUTO_WHITE_LIST, AMP_AUTO_BLACK_LIST and the promote list of its docstring): a listed
op casts its floating-point inputs, an op not listed runs on its inputs as given. Names MindSpore lists that are
another face of a Kiln primitive map to it (Conv2DExt/Convolution -> Conv2D, MatMulExt -> MatMul, ...); MindSpore's
Conv1d is its Conv2D, so Kiln's Conv1D is low too. The lists' ops Kiln has no primitive for are left out.

O1 (mindspore/train/amp.py: AMP_WHITE_LIST's Primitive classes) rewrites every call of a listed Primitive in the
network, through any face that reaches that class (the instance, the functional op, nn.ReLU, mint's relu): Kiln casts
the declaration's calls. MindSpore's Ger is Kiln's outer product (no primitive of its own), and its
Conv2DBackpropInput is Kiln's Conv2DTranspose. The faces MindSpore routes through other classes (MatMulExt,
BatchMatMulExt: ops.matmul, `@`, mint.matmul, mint.bmm) are not cast there; those faces say so at their call
(`apply(..., amp_listed=False)`).
"""

from __future__ import annotations

from kiln._core.primitive import REGISTRY

# MindSpore's AMP_AUTO_WHITE_LIST: run in the low-precision dtype (the output stays in it)
LOW = ("Conv1D", "Conv2D", "Conv3D", "Conv1DTranspose", "Conv2DTranspose", "Conv3DTranspose", "MatMul",
       "BatchMatMul", "PReLU", "Einsum", "Dense")  # fmt: skip
# MindSpore's AMP_AUTO_BLACK_LIST: half-precision inputs cast to float32
FULL = ("Pow", "ACos", "Asin", "Cosh", "Erfinv", "Exp", "Expm1", "Log", "Log10", "Log1p", "Log2", "Reciprocal",
        "Rsqrt", "Sinh", "Tan", "Softplus", "LayerNorm", "BatchNorm", "GroupNorm", "Norm", "KLDivLoss",
        "SmoothL1Loss", "BCEWithLogitsLoss", "Cdist", "ReduceProd", "Softmax", "LogSoftmax", "CumProd", "CumSum",
        "NLLLoss")  # fmt: skip
# MindSpore's promote list: the inputs cast to the widest floating-point dtype among them
PROMOTE = ("Dot", "GridSampler2D", "GridSampler3D", "BiasAdd", "AddN", "Concat")
# MindSpore's AMP_WHITE_LIST Primitive classes: amp level O1 runs them in the low-precision dtype, output float32
O1 = ("Conv2D", "Conv3D", "Conv2DTranspose", "Conv3DTranspose", "MatMul", "BatchMatMul", "PReLU", "ReLU")

for _kind, _names in (("low", LOW), ("full", FULL), ("promote", PROMOTE)):
    for _name in _names:
        REGISTRY[_name].amp_auto = _kind
for _name in O1:
    REGISTRY[_name].amp_o1 = True
