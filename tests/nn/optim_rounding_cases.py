"""Cases of test_optim_rounding.py and make_optim_rounding_goldens_mindspore.py: every optimizer and optimizer
primitive run for three steps on float32 values whose products round (p = 1, g = 7, lr = 0.1 among normal values).
`run` takes the framework's modules, so the same code drives MindSpore (the goldens) and Kiln (the test)."""

import numpy as np

STEPS = 3
SHAPE = (16, 32)

# name -> (optimizer class, keyword arguments); LARS wraps a Momentum(0.1, 0.9)
NN_CASES = {
    "SGD": ("SGD", dict(learning_rate=0.1)),
    "SGD_mom_damp_wd": ("SGD", dict(learning_rate=0.1, momentum=0.9, dampening=0.1, weight_decay=0.01)),
    "SGD_nesterov": ("SGD", dict(learning_rate=0.1, momentum=0.9, nesterov=True)),
    "Momentum": ("Momentum", dict(learning_rate=0.1, momentum=0.9)),
    "Momentum_nesterov": ("Momentum", dict(learning_rate=0.1, momentum=0.9, use_nesterov=True)),
    "Momentum_wd": ("Momentum", dict(learning_rate=0.1, momentum=0.9, weight_decay=0.01)),
    "Adam": ("Adam", dict(learning_rate=0.1)),
    "Adam_nesterov": ("Adam", dict(learning_rate=0.1, use_nesterov=True)),
    "Adam_amsgrad": ("Adam", dict(learning_rate=0.1, use_amsgrad=True)),
    "Adam_wd": ("Adam", dict(learning_rate=0.1, weight_decay=0.01)),
    "AdamWeightDecay": ("AdamWeightDecay", dict(learning_rate=0.1, weight_decay=0.01)),
    "AdamOffload": ("AdamOffload", dict(learning_rate=0.1)),
    "AdamOffload_nesterov": ("AdamOffload", dict(learning_rate=0.1, use_nesterov=True)),
    "LazyAdam": ("LazyAdam", dict(learning_rate=0.1)),
    "AdaMax": ("AdaMax", dict(learning_rate=0.1)),
    "Adagrad": ("Adagrad", dict(learning_rate=0.1)),
    "Adadelta": ("Adadelta", dict(learning_rate=0.1)),
    "ProximalAdagrad": ("ProximalAdagrad", dict(learning_rate=0.1, l1=0.01, l2=0.01)),
    "ASGD": ("ASGD", dict(learning_rate=0.1)),
    "Rprop": ("Rprop", dict(learning_rate=0.1)),
    "RMSProp": ("RMSProp", dict(learning_rate=0.1)),
    "RMSProp_mom": ("RMSProp", dict(learning_rate=0.1, momentum=0.9)),
    "RMSProp_centered": ("RMSProp", dict(learning_rate=0.1, momentum=0.9, centered=True)),
    "FTRL": ("FTRL", dict(learning_rate=0.1)),
    "FTRL_l1_l2_power": ("FTRL", dict(learning_rate=0.1, l1=0.01, l2=0.01, lr_power=-0.7)),
    "AdaFactor": ("AdaFactor", dict(learning_rate=0.1, relative_step=False, scale_parameter=False, warmup_init=False)),
    "AdaFactor_relative_scaled": ("AdaFactor", dict()),
    "AdaFactor_warmup_wd_no_moment": ("AdaFactor", dict(warmup_init=True, weight_decay=0.01, beta1=0.0)),
}


def _f(x):
    return np.float32(x)


def _full(p, v=0.0):
    return np.full_like(p, v)


# name -> (primitive name, primitive kwargs, initial states after the variable, inputs before the gradient, after it)
OP_CASES = {
    "ApplyMomentum": ("ApplyMomentum", {}, [0.0], [0.1], [0.9]),
    "ApplyGradientDescent": ("ApplyGradientDescent", {}, [], [0.1], []),
    "ApplyAdagrad": ("ApplyAdagrad", {}, [0.1], [0.1], []),
    "ApplyAdagradV2": ("ApplyAdagradV2", {"epsilon": 1e-6}, [0.1], [0.1], []),
    "ApplyAdadelta": ("ApplyAdadelta", {}, [0.1, 0.1], [0.1, 0.9, 1e-6], []),
    "ApplyAdaMax": ("ApplyAdaMax", {}, [0.0, 0.0], [0.9, 0.1, 0.9, 0.999, 1e-8], []),
    "ApplyRMSProp": ("ApplyRMSProp", {}, [1.0, 0.0], [0.1], ["0.9", "0.9", "1e-10"]),
    "ApplyCenteredRMSProp": ("ApplyCenteredRMSProp", {}, [0.0, 1.0, 0.0], [], [0.1, "0.9", "0.9", "1e-10"]),
    "ApplyProximalAdagrad": ("ApplyProximalAdagrad", {}, [0.1], [0.1, 0.01, 0.01], []),
    "ApplyAdamWithAmsgrad": ("ApplyAdamWithAmsgrad", {}, [0.0, 0.0, 0.0], [0.9, 0.999, 0.1], []),
    "AdamWeightDecayOp": ("AdamWeightDecay", {}, [0.0, 0.0], [0.1, 0.9, 0.999, 1e-6, 0.01], []),
}


def data():
    """The initial parameter and the gradient of each step."""
    rng = np.random.default_rng(0)
    n = SHAPE[0] * SHAPE[1]
    p = rng.standard_normal(n).astype(np.float32)
    gs = [rng.standard_normal(n).astype(np.float32) for _ in range(STEPS)]
    p[0], gs[0][0] = 1.0, 7.0  # 1 - 0.1 * 7: 0.30000001 with the product rounded, 0.29999998 fused
    return p.reshape(SHAPE), [g.reshape(SHAPE) for g in gs]


def run(ms, name, mode):
    """Final parameter of case `name` under the framework `ms` (mindspore or kiln) in `mode`: "pynative", "graph"
    (the optimizer or primitive called as a Cell in GRAPH_MODE) or "train" (a TrainOneStepCell in GRAPH_MODE)."""
    nn, Parameter, Tensor = ms.nn, ms.Parameter, ms.Tensor
    ms.set_context(mode=ms.PYNATIVE_MODE if mode == "pynative" else ms.GRAPH_MODE)
    p, gs = data()

    class Linear(nn.Cell):  # d/dw sum(w * g) = g exactly
        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor(p), name="w")

        def construct(self, g):
            return (self.w * g).sum()

    class Update(nn.Cell):
        def __init__(self, prim, states, pre, post):
            super().__init__()
            self.prim = prim
            self.s0 = Parameter(Tensor(p), name="s0")
            for i, v in enumerate(states):
                setattr(self, f"s{i + 1}", Parameter(Tensor(_full(p, v)), name=f"s{i + 1}"))
            self.n = 1 + len(states)
            self.pre, self.post = pre, post

        def construct(self, g):
            a = self.pre + (g,) + self.post
            if self.n == 1:
                return self.prim(self.s0, *a)
            if self.n == 2:
                return self.prim(self.s0, self.s1, *a)
            if self.n == 3:
                return self.prim(self.s0, self.s1, self.s2, *a)
            return self.prim(self.s0, self.s1, self.s2, self.s3, *a)

    try:
        if name in NN_CASES:
            cls, kwargs = NN_CASES[name]
            net = Linear()
            opt = getattr(nn, cls)(net.trainable_params(), **kwargs)
            if mode == "train":
                step = nn.TrainOneStepCell(net, opt)
                for g in gs:
                    step(Tensor(g))
            else:
                for g in gs:
                    opt((Tensor(g),))
            return net.w.asnumpy()
        prim_name, kwargs, states, pre, post = OP_CASES[name]

        def arg(v):  # a number given as a string stays a Python float (an attribute-like input)
            return float(v) if isinstance(v, str) else Tensor(_f(v))

        cell = Update(getattr(ms.ops, prim_name)(**kwargs), states, tuple(map(arg, pre)), tuple(map(arg, post)))
        for g in gs:
            cell(Tensor(g))
        return cell.s0.asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
