"""Amp levels O1/O2/O3 and custom_mixed_precision on MindSpore 2.10 and Kiln (`run(mode)`): per face of a
primitive, per Cell, the outputs' dtypes and values and the input gradients. make_amp_o1_goldens_mindspore.py writes
amp_o1_goldens_mindspore.json from MindSpore, one process per mode.

What the goldens show (MindSpore 2.10, CPU): O1 rewrites the network's source so that every call of a Primitive
class of its white list (ReLU, MatMul, BatchMatMul, Conv2D, Conv3D, Conv2DTranspose, PReLU, Ger) casts its inputs to
float16 and its output back to float32, whichever face makes the call: the instance, the functional op (ops.relu,
ops.mm, ops.bmm, ops.conv2d, ops.prelu, ops.ger), mint's relu, nn.ReLU, inside a user's Cell; the gradients are
rounded alike. Faces MindSpore routes through other classes are not cast: ops.matmul, mint.matmul, `@`,
Tensor.matmul (MatMulExt), mint.bmm (BatchMatMulExt). A Cell the user set to_float(float32) is left alone. Unlisted
ops (Sigmoid, Add, softmax) run in float32. MindSpore's CPU has no float16 gradient of Conv2DTranspose, no bfloat16
convolution or ReLU kernel (O1 with bfloat16 raises there), no mint.mm or mint conv2d kernel: those cases record
the error class.
"""

import importlib
import os

import numpy as np

# MindSpore's O1 rewrites a construct's source into a module of its own that sees the class's module globals (not a
# function's local names), so the cases are module-level classes of the framework this variable names
ms = importlib.import_module(os.environ.get("AMP_CASES_FRAMEWORK", "kiln"))
nn, ops, mint, P = ms.nn, ms.ops, ms.mint, ms.ops.operations

_RS = np.random.RandomState(11)
X = _RS.randn(2, 3).astype(np.float32)
W = _RS.randn(3, 3).astype(np.float32)
X3 = _RS.randn(2, 3, 3).astype(np.float32)
X4 = _RS.randn(2, 2, 5, 5).astype(np.float32)
K4 = (_RS.randn(3, 2, 3, 3) * 0.3).astype(np.float32)
X5 = _RS.randn(1, 2, 3, 4, 4).astype(np.float32)
K5 = (_RS.randn(3, 2, 3, 3, 3) * 0.3).astype(np.float32)
KT = (_RS.randn(2, 3, 3, 3) * 0.3).astype(np.float32)
V = _RS.randn(4).astype(np.float32)
ALPHA = np.array([0.3, -0.2], np.float32)
DENSE = _RS.randn(3, 3).astype(np.float32)
DENSE_BIAS = _RS.randn(3).astype(np.float32)
LABELS = np.array([0, 2], np.int32)


# name -> the input arrays of that face's case (its Cell class is FACES[name])
INPUTS = {
    "nn.ReLU": (X,), "P.ReLU": (X,), "ops.relu": (X,), "mint.relu": (X,), "mint.nn.ReLU": (X,), "Tensor.relu": (X,),
    "P.MatMul": (X, W), "ops.mm": (X, W), "ops.matmul": (X, W), "mint.matmul": (X, W), "mint.mm": (X, W),
    "@": (X, W), "Tensor.matmul": (X, W), "P.BatchMatMul": (X3, X3), "ops.bmm": (X3, X3), "mint.bmm": (X3, X3),
    "P.Conv2D": (X4, K4), "ops.conv2d": (X4, K4), "mint.conv2d": (X4, K4), "P.Conv3D": (X5, K5),
    "ops.conv3d": (X5, K5), "P.Conv2DTranspose": (X4[:, :, :3, :3], KT), "ops.conv_transpose2d": (X4[:, :, :3, :3], KT),
    "P.PReLU": (X4, ALPHA), "ops.prelu": (X4, ALPHA), "P.Ger": (V, V), "ops.ger": (V, V), "P.Sigmoid": (X,),
    "P.Add": (X, W[:2]), "ops.softmax": (X,),
}  # fmt: skip


class Base(nn.Cell):
    """The Primitive instances the cases call (MindSpore's O1 casts around a call of a listed Primitive instance)."""

    def __init__(self):
        super().__init__()
        self.relu, self.relu_cell, self.mint_relu = P.ReLU(), nn.ReLU(), mint.nn.ReLU()
        self.matmul, self.bmm, self.prelu, self.ger, self.sigmoid, self.add = (
            P.MatMul(),
            P.BatchMatMul(),
            P.PReLU(),
            P.Ger(),
            P.Sigmoid(),
            P.Add(),
        )
        self.conv2d, self.conv3d, self.deconv = P.Conv2D(3, 3), P.Conv3D(3, 3), P.Conv2DTranspose(3, 3)


# fmt: off
class NnReLU(Base):
    def construct(self, a): return self.relu_cell(a)
class PReLUInst(Base):
    def construct(self, a): return self.relu(a)
class OpsRelu(Base):
    def construct(self, a): return ops.relu(a)
class MintRelu(Base):
    def construct(self, a): return mint.nn.functional.relu(a)
class MintNnReLU(Base):
    def construct(self, a): return self.mint_relu(a)
class TensorRelu(Base):
    def construct(self, a): return a.relu()
class PMatMul(Base):
    def construct(self, a, b): return self.matmul(a, b)
class OpsMm(Base):
    def construct(self, a, b): return ops.mm(a, b)
class OpsMatmul(Base):
    def construct(self, a, b): return ops.matmul(a, b)
class MintMatmul(Base):
    def construct(self, a, b): return mint.matmul(a, b)
class MintMm(Base):
    def construct(self, a, b): return mint.mm(a, b)
class MatmulOperator(Base):
    def construct(self, a, b): return a @ b
class TensorMatmul(Base):
    def construct(self, a, b): return a.matmul(b)
class PBatchMatMul(Base):
    def construct(self, a, b): return self.bmm(a, b)
class OpsBmm(Base):
    def construct(self, a, b): return ops.bmm(a, b)
class MintBmm(Base):
    def construct(self, a, b): return mint.bmm(a, b)
class PConv2D(Base):
    def construct(self, a, b): return self.conv2d(a, b)
class OpsConv2d(Base):
    def construct(self, a, b): return ops.conv2d(a, b)
class MintConv2d(Base):
    def construct(self, a, b): return mint.nn.functional.conv2d(a, b)
class PConv3D(Base):
    def construct(self, a, b): return self.conv3d(a, b)
class OpsConv3d(Base):
    def construct(self, a, b): return ops.conv3d(a, b)
class PConv2DTranspose(Base):
    def construct(self, a, b): return self.deconv(a, b, (2, 3, 5, 5))
class OpsConvTranspose2d(Base):
    def construct(self, a, b): return ops.conv_transpose2d(a, b)
class PPReLU(Base):
    def construct(self, a, b): return self.prelu(a, b)
class OpsPrelu(Base):
    def construct(self, a, b): return ops.prelu(a, b)
class PGer(Base):
    def construct(self, a, b): return self.ger(a, b)
class OpsGer(Base):
    def construct(self, a, b): return ops.ger(a, b)
class PSigmoid(Base):
    def construct(self, a): return self.sigmoid(a)
class PAdd(Base):
    def construct(self, a, b): return self.add(a, b)
class OpsSoftmax(Base):
    def construct(self, a): return ops.softmax(a)
# fmt: on


class Inner(nn.Cell):
    """A user's Cell (not on any list) calling a MatMul instance: O1 casts the call inside it."""

    def __init__(self):
        super().__init__()
        self.matmul = P.MatMul()

    def construct(self, a, b):
        return self.matmul(a, b)


class Net(nn.Cell):
    """Layers of each kind: white-list Cells (Conv2d, Dense), a black-list Cell (BatchNorm2d), listed primitives
    through a Cell, an instance, a function and a user's Cell, unlisted ops, a loss, and a to_float(float32) Cell
    whose MatMul stays float32."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 3, 3, has_bias=True, weight_init=ms.Tensor(K4), bias_init=ms.Tensor(DENSE_BIAS))
        self.bn = nn.BatchNorm2d(3)
        self.relu = nn.ReLU()
        self.fc = nn.Dense(3, 3, weight_init=ms.Tensor(DENSE), bias_init=ms.Tensor(DENSE_BIAS))
        self.inner = Inner()
        self.kept = Inner().to_float(ms.float32)
        self.sigmoid = P.Sigmoid()
        self.softmax = nn.Softmax()
        self.loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        self.w = ms.Parameter(ms.Tensor(W), name="w")

    def construct(self, x, labels):
        a = self.conv(x)
        b = self.relu(self.bn(a))
        c = b.mean(axis=(2, 3))
        d = ops.relu(self.fc(c))
        e = self.inner(d, self.w)
        f = self.kept(d, self.w)
        g = self.softmax(self.sigmoid(e))
        return a, b, d, e, f, g, self.loss(e, labels)


class Head(nn.Cell):
    """Net's matrix product as the logits of a training step. (MindSpore's rewrite leaves a sub-network alone when its
    call is part of a larger expression, `self.net(x, labels)[3]`: its O1 then casts nothing, not even the Dense.)"""

    def __init__(self):
        super().__init__()
        self.net = Net()
        self.labels = ms.Tensor(LABELS)

    def construct(self, x):
        y = self.net(x, self.labels)
        return y[3]


# name -> the Cell class calling that face
FACES = dict(zip(INPUTS, (NnReLU, PReLUInst, OpsRelu, MintRelu, MintNnReLU, TensorRelu, PMatMul, OpsMm, OpsMatmul,
                          MintMatmul, MintMm, MatmulOperator, TensorMatmul, PBatchMatMul, OpsBmm, MintBmm, PConv2D,
                          OpsConv2d, MintConv2d, PConv3D, OpsConv3d, PConv2DTranspose, OpsConvTranspose2d, PPReLU,
                          OpsPrelu, PGer, OpsGer, PSigmoid, PAdd, OpsSoftmax), strict=True))  # fmt: skip


def _values(out):
    out = out if isinstance(out, (tuple, list)) else (out,)
    return {"dtypes": [str(o.dtype) for o in out], "values": [o.asnumpy().astype(np.float64).tolist() for o in out]}


def run(mode: str, level: str = "O1") -> dict:
    """The cases' results on the framework `ms` in `mode` ("pynative" or "graph") at amp `level`."""
    amp, Tensor = ms.amp, ms.Tensor
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    out = {}

    for name, cls in FACES.items():
        out[name] = _case(amp.auto_mixed_precision(cls(), level), [Tensor(a) for a in INPUTS[name]])
    for name in ("P.ReLU", "P.MatMul", "ops.matmul"):  # (MindSpore's CPU has no bfloat16 convolution)
        net = amp.auto_mixed_precision(FACES[name](), level, ms.bfloat16)
        out[name + " bfloat16"] = _case(net, [Tensor(a) for a in INPUTS[name]])
    net_args = [Tensor(X4), Tensor(LABELS)]
    for name, make in (
        ("net", lambda: amp.auto_mixed_precision(Net(), level)),
        ("net O2", lambda: amp.auto_mixed_precision(Net(), "O2")),
        ("net O3", lambda: amp.auto_mixed_precision(Net(), "O3")),
        ("custom white", lambda: amp.custom_mixed_precision(Net(), white_list=[P.Sigmoid, nn.Conv2d])),
        ("custom black", lambda: amp.custom_mixed_precision(Net(), black_list=[nn.BatchNorm2d, nn.Dense])),
    ):
        out[name] = _case(make, net_args, grad_position=0)
    # three SGD steps of build_train_network(level=O1): the losses and the Dense's weights after them
    head = Head()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = amp.build_train_network(head, nn.SGD(head.trainable_params(), 0.05), loss, level=level)
    losses = [float(step(*net_args).asnumpy()) for _ in range(3)]
    out["train"] = {"losses": losses, "fc": head.net.fc.weight.asnumpy().astype(np.float64).ravel().tolist()}
    return out


def _case(net, args, grad_position=None) -> dict:
    """`net`'s outputs and its gradients with respect to `args` (or those at `grad_position`); a framework's
    error is recorded by class (MindSpore's CPU lacks some float16 kernels), not fatal."""
    try:
        net = net() if not isinstance(net, nn.Cell) else net
        res = _values(net(*args))
    except Exception as err:  # noqa: BLE001
        return {"error": type(err).__name__}
    try:
        pos = tuple(range(len(args))) if grad_position is None else grad_position
        res["grads"] = _values(ms.grad(net, grad_position=pos)(*args))["values"]
    except Exception as err:  # noqa: BLE001
        res["grads_error"] = type(err).__name__
    return res
