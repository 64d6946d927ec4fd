"""Mixed precision inside a Cell (`to_float`, the fp16/bf16 flags, amp levels), run on MindSpore 2.10 and Kiln
(`run(ms, mode)`): each case gives its outputs' dtypes and values, or the exception type.
make_amp_goldens_mindspore.py writes amp_goldens_mindspore.json from MindSpore, one process per mode.

What the goldens show (MindSpore 2.10, CPU): PyNative casts the floating-point inputs of every op run inside a
Cell with a low-precision flag (Parameters, float32 constants, float64 Tensors) to the innermost flagged Cell's
dtype, except Cast and the views; an input or Parameter returned as it is keeps its dtype, and the gradients of
float32 Parameters and inputs are float32. GRAPH_MODE casts the Cell's inputs, its Tensor constants (an attribute,
a global) where its code reads them, and Parameters only where its own code hands them to an operator, a Primitive
instance or a tuple/list display (not to a functional op such as `ops.matmul` or a plain function, graphs of their
own), so a float16 input meets a float32 Parameter there and MatMul refuses it (TypeError); a value computed inside,
a user's cast to float32 included, is never cast. Kiln follows each mode's rule in that mode.
"""

import numpy as np

X = np.array([[0.3, -1.2, 2.5, 0.7], [1.1, 0.45, -0.8, 1.9]], np.float32)
W = np.array([[0.5, -0.25, 1.5], [0.75, 1.25, -0.5], [-1.0, 0.3, 0.6], [0.2, -0.7, 0.9]], np.float32)
V = np.float32(1 + 2**-12)  # rounds to 1 in float16: tells whether a value went through float16


def _plus(x, p):  # a plain function: MindSpore's GRAPH_MODE makes it a graph of its own, not flagged
    return x + p, p + p


def _dtypes_values(out):
    out = out if isinstance(out, (tuple, list)) else (out,)
    values = [(o.float() if str(o.dtype) == "BFloat16" else o).asnumpy().astype(np.float64).tolist() for o in out]
    return {"dtypes": [str(o.dtype) for o in out], "values": values}


def run(ms, mode: str) -> dict:
    """The cases' results on framework `ms` (mindspore or kiln) in `mode` ("pynative" or "graph")."""
    nn, ops, Tensor, Parameter = ms.nn, ms.ops, ms.Tensor, ms.Parameter
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    out = {}

    def case(name, fn):
        try:
            out[name] = fn()
        except Exception as e:  # noqa: BLE001
            out[name] = type(e).__name__

    class Ops(nn.Cell):  # a functional op on a Parameter, a float32 constant, a Python float, a cast kept
        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor(W), name="w")
            self.b = Tensor(np.array([0.1, 0.2, 0.3], np.float32))

        def construct(self, x):
            y = ops.matmul(x, self.w)
            return y, y + self.b, x * 2.0, ops.exp(ops.cast(x, ms.float32))

    class Operators(nn.Cell):  # the same through operators and a Primitive: MindSpore's GRAPH_MODE casts these
        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor(W), name="w")
            self.b = Tensor(np.array([0.1, 0.2, 0.3], np.float32))
            self.mm = ops.MatMul()

        def construct(self, x):
            y = self.mm(x, self.w)
            return y, y + self.b, x * 2.0

    class Returns(nn.Cell):  # what leaves the Cell untouched by an op keeps its dtype
        def __init__(self):
            super().__init__()
            self.p = Parameter(Tensor(np.full((3,), V, np.float32)), name="p")

        def construct(self, x):
            c = ops.cast(x, ms.float32)
            return x, self.p, c, ops.reshape(x, (3, 1)), c + 0.0, ops.exp(c)

    class Inner(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor(np.array([0.5, -1.5, 2.0], np.float32)), name="iw")

        def construct(self, x):
            return x * self.w, ops.exp(x)

    class Outer(nn.Cell):
        def __init__(self):
            super().__init__()
            self.inner = Inner()
            self.w = Parameter(Tensor(np.array([1.25, 0.75, -0.5], np.float32)), name="ow")

        def construct(self, x):
            a, b = self.inner(x * self.w)
            return a, b, a + b, ops.exp(a)

    class Kinds(nn.Cell):  # integer inputs stay, float64 ones are cast too
        def construct(self, x, i, d):
            return i + 1, d * 1.0, x + i, ops.cast(d, ms.float64) + 0

    @ms.jit
    def jitted(x, y):
        return x * y + 1.0

    class CallsJit(nn.Cell):  # a jit function is compiled apart: PyNative does not cast inside it
        def construct(self, x):
            return jitted(x, x), ops.exp(x)

    class Grad(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor(np.array([0.3, -0.6, 0.9], np.float32)), name="w")

        def construct(self, x):
            return (ops.exp(x * self.w) * 1.5 + ops.sin(x)).sum()

    class Amp(nn.Cell):  # a user Cell with a functional MatMul, a Dense and a BatchNorm, under the amp levels
        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor(W[:, :2]), name="uw")
            self.dense = nn.Dense(4, 2, weight_init=Tensor(W[:, :2].T.copy()), bias_init="zeros")
            self.bn = nn.BatchNorm1d(2)

        def construct(self, x):
            m = ops.matmul(x, self.w)
            d = self.dense(x)
            return m, d, self.bn(d), ops.exp(x), m + d

    class Float32Inside(nn.Cell):  # a user's cast to float32 before the ops that need it (zoo networks do this)
        def __init__(self):
            super().__init__()
            self.p = Parameter(Tensor(np.array([0.5, V, -2.0], np.float32)), name="fp")
            self.c = Tensor(np.array([0.25, -1.5, V], np.float32))

        def construct(self, x):
            c = ops.cast(x, ms.float32)
            m = ops.matmul(ops.reshape(c, (1, 3)), ops.reshape(self.p, (3, 1)))
            return c * 2.0, c + x, c + self.p, c + self.c, ops.softmax(c, -1), c.sum(), ops.exp(c), m

    class ParameterUses(nn.Cell):  # a Parameter handed to an operator, a functional op, a function, a list
        def __init__(self):
            super().__init__()
            self.p = Parameter(Tensor(np.array([0.5, V, -2.0], np.float32)), name="up")
            self.c = Tensor(np.array([0.25, -1.5, V], np.float32))

        def construct(self, x):
            a, b = _plus(x, self.p)
            return self.p + self.p, ops.mul(x, self.p), ops.exp(self.p), self.p.sum(), [self.p][0], self.c, a, b

    class PassThrough(nn.Cell):  # library Cells returning a float32 value computed inside without an op on it
        def __init__(self):
            super().__init__()
            self.drop = nn.Dropout(p=0.0)
            self.identity = nn.Identity()

        def construct(self, x):
            c = ops.cast(x, ms.float32) / 3.0
            return self.drop(c), self.identity(c), c

    x = Tensor(X)
    x3 = Tensor(np.array([V, -0.5, 1.75], np.float32))
    case("float32 inside", lambda: _dtypes_values(Float32Inside().to_float(ms.float16)(x3)))
    case("parameter uses", lambda: _dtypes_values(ParameterUses().to_float(ms.float16)(x3)))
    case("library cells passing through", lambda: _dtypes_values(PassThrough().to_float(ms.float16)(x3)))
    half = ms.float16
    case("ops", lambda: _dtypes_values(Ops().to_float(half)(x)))
    case("operators", lambda: _dtypes_values(Operators().to_float(half)(x)))
    case("operators fp16 flag", lambda: _dtypes_values(Operators().add_flags_recursive(fp16=True)(x)))
    case("float32 Cell on float16", lambda: _dtypes_values(Operators().to_float(ms.float32)(x.astype(half))))
    case("returns", lambda: _dtypes_values(Returns().to_float(half)(x3)))

    def nested_override():
        net = Outer().to_float(half)
        net.inner.to_float(ms.float32)
        return _dtypes_values(net(x3))

    def parent_flag_only():
        net = Outer()
        net.add_flags(fp16=True)
        return _dtypes_values(net(x3))

    def child_flag_only():
        net = Outer()
        net.inner.to_float(half)
        return _dtypes_values(net(x3))

    case("nested float32 in float16", nested_override)
    case("flag on the parent only", parent_flag_only)
    case("flag on the child only", child_flag_only)
    i3 = Tensor(np.array([1, -2, 3], np.int32))
    d3 = Tensor(np.array([V, 0.25, -3.5], np.float64))
    case("integer and float64 inputs", lambda: _dtypes_values(Kinds().to_float(half)(x3, i3, d3)))

    case("jit function inside", lambda: _dtypes_values((*CallsJit().to_float(half)(x3), jitted(x3, x3))))

    def grads():
        net = Grad().to_float(half)
        gx, gw = ms.grad(net, grad_position=0, weights=net.trainable_params())(x3)
        return {**_dtypes_values((net(x3), gx, gw[0])), "parameter": str(net.w.dtype)}

    case("gradients", grads)
    # (level O1 and white lists are left out: MindSpore recompiles the construct from source there, which cannot
    # see this function's names)
    for level in ("O2", "O3"):
        case(f"amp {level}", lambda level=level: _dtypes_values(ms.amp.auto_mixed_precision(Amp(), level)(x)))
    case(
        "custom black list",
        lambda: _dtypes_values(ms.amp.custom_mixed_precision(Amp(), black_list=[nn.BatchNorm1d])(x)),
    )
    return out


# Each optimizer of nn, built on a Dense(4, 3)'s Parameters, stepped three times inside a train cell made float16 as
# a whole (`to_float` reaches the optimizer's own ops): name -> (class, keyword arguments)
OPTIMIZERS = {
    "RMSProp": ("RMSProp", dict(learning_rate=0.01)),
    "RMSProp centered": ("RMSProp", dict(learning_rate=0.01, momentum=0.9, centered=True)),
    "Adagrad": ("Adagrad", dict(learning_rate=0.05)),
    "Adadelta": ("Adadelta", dict(learning_rate=1.0)),
    "ProximalAdagrad": ("ProximalAdagrad", dict(learning_rate=0.05, l1=0.01, l2=0.02)),
    "AdaMax": ("AdaMax", dict(learning_rate=0.01)),
    "FTRL": ("FTRL", dict(learning_rate=0.05)),
    "Rprop": ("Rprop", dict(learning_rate=0.01)),
    "ASGD": ("ASGD", dict(learning_rate=0.01)),
    "AdaFactor": ("AdaFactor", dict()),
    "Lamb": ("Lamb", dict(learning_rate=0.01)),
    "Adam amsgrad": ("Adam", dict(learning_rate=0.01, use_amsgrad=True)),
    "Adam": ("Adam", dict(learning_rate=0.01)),
    "AdamWeightDecay": ("AdamWeightDecay", dict(learning_rate=0.01, weight_decay=0.1)),
    "SGD": ("SGD", dict(learning_rate=0.01, momentum=0.9)),
}


def optimizer_data():
    """The Dense's weight and bias and the input of `run_optimizers`' train cell."""
    rng = np.random.RandomState(0)
    w0, b0 = rng.randn(3, 4).astype(np.float32), rng.randn(3).astype(np.float32)
    # eighths, and a loss linear in the output: the gradients are exact in float16 and the same in both frameworks,
    # so the states show only how the optimizer computes (in float32, or in float16)
    x0 = (rng.randint(-8, 9, (5, 4)) / 8).astype(np.float32)
    return w0, b0, x0


def run_optimizers(ms, mode: str) -> dict:
    """Each of OPTIMIZERS after three steps inside a float16 train cell (and three Apply* Primitives a float16 Cell
    calls): every Parameter of the cell (the network's and the optimizer's state, by name) as its dtype and values,
    or the exception type."""
    nn, ops, Tensor = ms.nn, ms.ops, ms.Tensor
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    w0, b0, x0 = optimizer_data()

    class Train(nn.Cell):
        def __init__(self, kind, kwargs):
            super().__init__()
            self.net = nn.Dense(4, 3, weight_init=Tensor(w0), bias_init=Tensor(b0))
            self.x = Tensor(x0)
            self.weights = ms.ParameterTuple(self.net.trainable_params())
            self.grad = ops.GradOperation(get_by_list=True)
            self.opt = getattr(nn, kind)(self.weights, **kwargs)

        def loss(self, x):
            return self.net(x).sum() * 0.25

        def construct(self):
            grads = self.grad(self.loss, self.weights)(self.x)
            self.opt(grads)
            return grads[0]

    class Primitives(nn.Cell):  # the Apply* Primitives called by a user's float16 Cell
        def __init__(self):
            super().__init__()
            self.v = ms.Parameter(Tensor(w0[0]), name="v")
            self.a = ms.Parameter(Tensor(np.abs(w0[2]) + 0.1), name="a")
            self.b = ms.Parameter(Tensor(np.abs(w0[1])), name="b")
            self.adagrad, self.proximal, self.adadelta = (
                ops.ApplyAdagrad(),
                ops.ApplyProximalAdagrad(),
                ops.ApplyAdadelta(),
            )

        def construct(self, g):
            lr = Tensor(0.05, ms.float32)
            self.adagrad(self.v, self.a, lr, g)
            self.proximal(self.v, self.a, lr, Tensor(0.01, ms.float32), Tensor(0.02, ms.float32), g)
            self.adadelta(self.v, self.a, self.b, lr, Tensor(0.9, ms.float32), Tensor(1e-6, ms.float32), g)
            return g

    def make(name):
        if name == "ops.Apply*":
            cell = Primitives()
            return lambda: cell(Tensor(x0[0])), cell
        cell = Train(*OPTIMIZERS[name])
        return cell, cell

    out = {}
    for name in (*OPTIMIZERS, "ops.Apply*"):
        try:
            step, train = make(name)
            train.to_float(ms.float16)
            for _ in range(3):
                step()
            out[name] = {
                p.name: {"dtype": str(p.dtype), "values": p.asnumpy().astype(np.float64).ravel().tolist()}
                for p in train.get_parameters()
                if p.dtype in (ms.float16, ms.float32)
            }
        except Exception as e:  # noqa: BLE001
            out[name] = type(e).__name__
    return out


def run_library(ms, mode: str) -> dict:
    """Library Cells inside a user's float16 Cell: each output's dtype and values, or the exception type. (MindSpore's
    GRAPH_MODE parses their construct under its GRAPH rule; Kiln runs them as Python with PyNative's per-op casts.)"""
    nn, ops, Tensor = ms.nn, ms.ops, ms.Tensor
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    rng = np.random.RandomState(1)
    x = Tensor((rng.randn(4, 16) * 3).astype(np.float32))
    y = Tensor((rng.randn(4, 16) * 3).astype(np.float32))
    img = Tensor(rng.randn(2, 3, 6, 6).astype(np.float32))
    labels = Tensor(np.array([1, 5, 0, 15], np.int32))

    class Wrap(nn.Cell):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def construct(self, *args):
            return self.inner(*args)

    w = lambda *s: Tensor(rng.randn(*s).astype(np.float32))  # noqa: E731
    cases = {
        "Dense": (lambda: nn.Dense(16, 8, weight_init=w(8, 16), bias_init=w(8)), (x,)),
        "LayerNorm": (lambda: nn.LayerNorm((16,)), (x,)),
        "BatchNorm1d": (lambda: nn.BatchNorm1d(16), (x,)),
        "GroupNorm": (lambda: nn.GroupNorm(1, 3), (img,)),
        "Softmax": (lambda: nn.Softmax(), (x,)),
        "LogSoftmax": (lambda: nn.LogSoftmax(), (x,)),
        "Conv2d": (lambda: nn.Conv2d(3, 4, 3, weight_init=w(4, 3, 3, 3)), (img,)),
        "MSELoss": (lambda: nn.MSELoss(), (x, y)),
        "L1Loss": (lambda: nn.L1Loss(), (x, y)),
        "SmoothL1Loss": (lambda: nn.SmoothL1Loss(), (x, y)),
        "SoftmaxCrossEntropyWithLogits": (
            lambda: nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
            (x, labels),
        ),
        "BCEWithLogitsLoss": (lambda: nn.BCEWithLogitsLoss(), (x, ops.sigmoid(y))),
        "CrossEntropyLoss": (lambda: nn.CrossEntropyLoss(), (x, labels)),
        "ClipByNorm": (lambda: nn.ClipByNorm(), (x, Tensor(np.array([2.0], np.float32)))),
        "Norm": (lambda: nn.Norm(axis=1), (x,)),
        "GELU": (lambda: nn.GELU(), (x,)),
        "Sigmoid": (lambda: nn.Sigmoid(), (x,)),
        "Embedding": (lambda: nn.Embedding(16, 4, embedding_table=w(16, 4)), (labels,)),
    }
    out = {}
    for name, (make, args) in cases.items():
        try:
            cell = Wrap(make())
            cell.set_train()
            cell.to_float(ms.float16)
            out[name] = _dtypes_values(cell(*args))
        except Exception as e:  # noqa: BLE001
            out[name] = type(e).__name__
    return out


def batchnorm_data():
    """BatchNorm2d(8)'s input and its gamma, beta, moving mean and moving variance for `run_batchnorm`: each
    parameter 0.45 of a float16 ulp away from a float16 value, so an output shows whether it went through float16."""
    rng = np.random.RandomState(3)
    x = (rng.randn(2, 8, 5, 5) * 1.5 + 0.25).astype(np.float32)
    k = np.arange(8) + 0.45
    gamma = (1 + k * 2**-10).astype(np.float32)  # float16 spacing 2**-10 in [1, 2)
    beta = (0.5 + k * 2**-11).astype(np.float32)  # and 2**-11 in [0.5, 1)
    mean = (0.25 + k * 2**-12).astype(np.float32)
    variance = (1.5 + k * 2**-10).astype(np.float32)
    return x, gamma, beta, mean, variance


def run_batchnorm(ms, mode: str) -> dict:
    """A BatchNorm2d inside a user's float16 Cell, and the BatchNorm Primitive called by one, in training and in
    inference: the output and the moving statistics after the call, as dtypes and values, or the exception type."""
    nn, Tensor = ms.nn, ms.Tensor
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    x, gamma, beta, mean, variance = batchnorm_data()

    class Wrap(nn.Cell):
        def __init__(self):
            super().__init__()
            self.bn = nn.BatchNorm2d(8)
            for p, v in ((self.bn.gamma, gamma), (self.bn.beta, beta), (self.bn.moving_mean, mean)):
                p.set_data(Tensor(v))
            self.bn.moving_variance.set_data(Tensor(variance))

        def construct(self, x):
            return self.bn(x)

    class Calls(nn.Cell):  # the Primitive called by the user's own code (GRAPH_MODE casts the Parameters it takes)
        def __init__(self, train):
            super().__init__()
            self.bn = ms.ops.BatchNorm(is_training=train)
            self.gamma, self.beta = ms.Parameter(Tensor(gamma), name="g"), ms.Parameter(Tensor(beta), name="b")
            self.mean = ms.Parameter(Tensor(mean), name="m", requires_grad=False)
            self.variance = ms.Parameter(Tensor(variance), name="v", requires_grad=False)

        def construct(self, x):
            return self.bn(x, self.gamma, self.beta, self.mean, self.variance)[0]

    out = {}
    for name, train in (("training", True), ("inference", False)):
        for how, make in (("", Wrap), (" primitive", lambda train=train: Calls(train))):
            try:
                cell = make()
                cell.to_float(ms.float16)
                cell.set_train(train)
                y = cell(Tensor(x))
                stats = (cell.bn.moving_mean, cell.bn.moving_variance) if how == "" else (cell.mean, cell.variance)
                out[name + how] = _dtypes_values((y, *stats))
            except Exception as e:  # noqa: BLE001
                out[name + how] = type(e).__name__
    return out
