"""Cases of test_adafactor_shapes.py and make_adafactor_shapes_goldens_mindspore.py: nn.AdaFactor (scale_parameter,
weight decay) on a vector, a batch of matrices and matrices of more than 1,000 elements, three float32 steps.
`run` takes the framework's module, so the same code drives MindSpore (the goldens) and Kiln (the test)."""

import numpy as np

SHAPES = [(40,), (3, 4, 5), (64, 64), (8, 1000)]


def run(ms, shape, mode):
    """The parameter after three AdaFactor steps on seeded normal values, in `mode` ("pynative" or "graph")."""
    ms.set_context(mode=ms.PYNATIVE_MODE if mode == "pynative" else ms.GRAPH_MODE)
    try:
        rng = np.random.default_rng(1)
        p = ms.Parameter(ms.Tensor(rng.standard_normal(shape).astype(np.float32)), name="w")
        opt = ms.nn.AdaFactor([p], learning_rate=0.1, relative_step=False, scale_parameter=True, warmup_init=False,
                              weight_decay=0.01)  # fmt: skip
        for _ in range(3):
            opt((ms.Tensor(rng.standard_normal(shape).astype(np.float32)),))
        return p.asnumpy().reshape(-1)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
