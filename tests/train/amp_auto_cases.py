"""Amp level 'auto' on MindSpore 2.10 and Kiln (`run(ms, mode)`): each case gives its outputs' dtypes and values.
make_amp_auto_goldens_mindspore.py writes amp_auto_goldens_mindspore.json from MindSpore, one process per mode.

What the goldens show (MindSpore 2.10, CPU, both modes alike): 'auto' is an op-level strategy, not O1. Inside the
network's construct a convolution or matrix product runs in float16 and returns float16 (nn.Conv3d's output is
float16); BatchNorm, Exp and Softmax lift float16 inputs to float32; BiasAdd and Concat promote to the widest float
input (nn.Dense, MatMul then BiasAdd, returns float32; a Conv2d with a bias too); other ops (ReLU, ReduceMean,
`*`, `+`) run on their inputs' dtype; a `to_float(float32)` Cell inside keeps float32. A function is accepted too.
Model(amp_level='auto') casts the network's output to float32 for the loss and has no loss scale.
"""

import numpy as np

_RS = np.random.RandomState(7)
CONV3 = (_RS.randn(4, 2, 3, 3, 3) * 0.3).astype(np.float32)
CONV2 = (_RS.randn(3, 2, 3, 3) * 0.3).astype(np.float32)
CONV2_BIAS = _RS.randn(3).astype(np.float32)
DENSE = _RS.randn(3, 4).astype(np.float32)
DENSE_BIAS = _RS.randn(3).astype(np.float32)
W = _RS.randn(3, 3).astype(np.float32)
X5 = _RS.randn(2, 2, 3, 4, 4).astype(np.float32)
X4 = _RS.randn(2, 2, 5, 5).astype(np.float32)
LABELS = np.array([0, 2], np.int32)


def _dtypes_values(out):
    out = out if isinstance(out, (tuple, list)) else (out,)
    return {"dtypes": [str(o.dtype) for o in out], "values": [o.asnumpy().astype(np.float64).tolist() for o in out]}


def run(ms, mode: str) -> dict:
    """The cases' results on framework `ms` (mindspore or kiln) in `mode` ("pynative" or "graph")."""
    nn, ops, amp, Tensor, Parameter = ms.nn, ms.ops, ms.amp, ms.Tensor, ms.Parameter
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)

    class Net(nn.Cell):  # a listed op of each kind, ops not listed, a library Dense with a bias
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv3d(2, 4, 3, pad_mode="pad", padding=1, weight_init=Tensor(CONV3))
            self.bn = nn.BatchNorm3d(4)
            self.relu = nn.ReLU()
            self.mean = ops.ReduceMean(keep_dims=True)
            self.fc = nn.Dense(4, 3, weight_init=Tensor(DENSE), bias_init=Tensor(DENSE_BIAS))
            self.matmul = ops.MatMul()
            self.w = Parameter(Tensor(W), name="w")

        def construct(self, x):
            a = self.conv(x)
            b = self.bn(a)
            c = self.relu(b)
            d = self.mean(c, (2, 3, 4))
            f = self.fc(d.view(d.shape[0], -1))
            g = self.matmul(f, self.w)
            return a, b, c, d, f, g, ops.exp(g), g * 1.1 + 1.0, ops.softmax(g), ops.concat((f, g))

    class BiasedConv(nn.Cell):  # a Conv2d with a bias, and a to_float(float32) Dense inside the 'auto' network
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(2, 3, 3, has_bias=True, weight_init=Tensor(CONV2), bias_init=Tensor(CONV2_BIAS))
            self.fc = nn.Dense(4, 3, weight_init=Tensor(DENSE), bias_init=Tensor(DENSE_BIAS)).to_float(ms.float32)

        def construct(self, x):
            y = self.conv(x)
            return y, self.fc(y[:, :, 0, :4])

    out = {}
    net = amp.auto_mixed_precision(Net(), "auto")
    out["net"] = _dtypes_values(net(Tensor(X5)))
    net = Net().set_train()
    out["net training"] = _dtypes_values(amp.auto_mixed_precision(net, "auto")(Tensor(X5)))
    out["biased conv"] = _dtypes_values(amp.auto_mixed_precision(BiasedConv(), "auto")(Tensor(X4)))

    def fn(x, w):
        y = ops.matmul(x, w)
        return y, ops.exp(y)

    out["function"] = _dtypes_values(amp.auto_mixed_precision(fn, "auto")(Tensor(W), Tensor(DENSE)))

    # Model(amp_level='auto') training steps: the losses and the weights after them
    net = Net()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="sum")
    head = nn.SequentialCell([_Head(ms, net)])
    opt = nn.SGD(head.trainable_params(), learning_rate=0.05, momentum=0.9)
    step = ms.amp.build_train_network(head, opt, loss, level="auto")
    losses = [float(step(Tensor(X5), Tensor(LABELS)).asnumpy()) for _ in range(3)]
    out["train"] = {
        "losses": losses,
        "conv": net.conv.weight.asnumpy().astype(np.float64).ravel().tolist(),
        "fc": net.fc.weight.asnumpy().astype(np.float64).ravel().tolist(),
        "w": net.w.asnumpy().astype(np.float64).ravel().tolist(),
    }
    return out


def _Head(ms, net):  # noqa: N802  (builds a Cell class from the framework given)
    class Head(ms.nn.Cell):  # Net's last output as the logits
        def __init__(self):
            super().__init__()
            self.net = net

        def construct(self, x):
            return self.net(x)[5]

    return Head()
