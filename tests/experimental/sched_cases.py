"""Scheduler cases shared by test_lr_scheduler.py and make_sched_goldens_mindspore.py: each scheduler steps five
times inside a Cell's construct; `run(ms, nn, optim)` returns {case: [lr after each call]}."""


def decay(epoch):
    return 0.9**epoch


def every_two(epoch):
    return epoch // 2


CASES = {
    "step": ("StepLR", (2, 0.1)),
    "linear": ("LinearLR", (0.5, 1.0, 3)),
    "exponential": ("ExponentialLR", (0.5,)),
    "polynomial": ("PolynomialLR", (3, 2.0)),
    "multistep": ("MultiStepLR", ([1, 3, 3], 0.5)),
    "constant": ("ConstantLR", (0.5, 2)),
    "cosine": ("CosineAnnealingLR", (2, 0.01)),
    "lambda": ("LambdaLR", (decay,)),
    "lambda_int": ("LambdaLR", (every_two,)),
    "cyclic": ("CyclicLR", (0.01, 0.1, 3)),
    "cyclic_tri2": ("CyclicLR", (0.01, 0.1, 2, None, "triangular2")),
    "cyclic_exp": ("CyclicLR", (0.01, 0.1, 2, 1, "exp_range", 0.9)),
}
METRICS = [1, 1.5, 1.8, 0.4, 0.5]


def run(ms, nn, optim):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(2, 2)

        def construct(self, x):
            return self.fc(x)

    out = {}
    for name, (cls, args) in CASES.items():
        opt = optim.Adam(Net().trainable_params(), 0.1)
        sched = getattr(optim.lr_scheduler, cls)(opt, *args)

        class Step(nn.Cell):
            def construct(self):
                sched.step()  # noqa: B023
                return sched.get_last_lr()  # noqa: B023

        step = Step()
        out[name] = [float(step()[0].asnumpy()) for _ in range(5)]
    opt = optim.Adam(Net().trainable_params(), 0.1)
    plateau = optim.lr_scheduler.ReduceLROnPlateau(opt, "min", patience=0)

    class Plateau(nn.Cell):
        def construct(self, metric):
            plateau.step(metric)
            return plateau.get_last_lr()

    net = Plateau()
    out["plateau"] = [float(net(m)[0].asnumpy()) for m in METRICS]
    return out
