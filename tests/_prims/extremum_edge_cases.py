"""Derivatives of the ops that take a maximum or minimum inside (a lower bound before a log or a division, a ReLU
inside a recurrent scan, a max over a pooling window, a distance or a norm), at their ties and edges, written once for
both frameworks: `run(ms)` takes the `mindspore` module (for the goldens) or `kiln`, and returns
{"MODE case": gradients as nested lists} for PyNative and GRAPH_MODE."""

import numpy as np

# probabilities on and past BCE's lower bound 1e-12 (0, 1e-12 itself, 1e-13), at 1 and just below it, inside
P = np.array([0.0, 1.0, 1e-12, 1 - 1e-7, 0.5, 1e-13, 0.3, 0.0], np.float32)
LABELS = np.array([1.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.5, 0.0], np.float32)
WEIGHTS = np.arange(1, 9, dtype=np.float32)
# rows: sum of squares exactly 0.25 (the tie with epsilon 0.25), zero, a 3-4-5 row, norm 0.1 (below the bound)
ROWS = np.array([[0.5, 0.0], [0.0, 0.0], [3.0, 4.0], [0.1, 0.0]], np.float32)
ROW_WEIGHTS = np.array([[1.0, 2.0]], np.float32)
# Cdist p=inf: x1's first row is 1 from x2's first two rows in both coordinates (a tie), 2 from the third in one
X1 = np.array([[0.0, 0.0], [0.5, 2.0]], np.float32)
X2 = np.array([[1.0, 1.0], [1.0, -1.0], [2.0, 0.0]], np.float32)
# max pooling windows holding ties (the zeros, the threes) and a single maximum
POOL = np.array([[[[1, 1, 0, 2], [1, 1, 2, 2], [0, 0, 3, 3], [0, 0, 3, 3]]]], np.float32)
# dilated, with-argmax and adaptive max pooling windows holding ties of 1s, of 2s and of 0s
POOL5 = np.array([[[[1, 1, 1, 1, 0], [1, 1, 1, 1, 0], [0, 2, 0, 2, 0], [2, 0, 2, 0, 0], [0, 0, 0, 0, 0]]]], np.float32)
# a ReLU RNN whose first unit's pre-activation is exactly 0 at every step (x0 - x1 = 0, no bias, no recurrence)
RNN_X = np.array([[[1.0, 1.0], [2.0, 2.0], [-1.0, -1.0]]], np.float32)
RNN_W_IH = np.array([[1.0, -1.0], [1.0, 0.5]], np.float32)
RNN_W_HH = np.array([[0.0, 0.0], [0.0, 0.5]], np.float32)


def run(ms) -> dict:
    """Each case's input gradients in both modes."""
    ops, nn, Tensor = ms.ops, ms.nn, ms.Tensor

    class Weighted(nn.Cell):
        """(fn(*inputs) * weights).sum(); fn is a function or a Cell."""

        def __init__(self, fn, weights):
            super().__init__()
            self.fn, self.w = fn, Tensor(weights)

        def construct(self, *inputs):
            return (self.fn(*inputs) * self.w).sum()

    # named functions: MindSpore's GRAPH_MODE parses a lambda only when it stands on a line of its own
    def bce(p, y):
        return ops.binary_cross_entropy(p, y, reduction="none")

    def bce_weighted_mean(p, y):
        return ops.binary_cross_entropy(p, y, Tensor(WEIGHTS), reduction="mean")

    def l2_normalize_quarter(x):
        return ops.L2Normalize(axis=1, epsilon=0.25)(x)

    def l2_normalize(x):
        return ops.L2Normalize(axis=1)(x)

    def cdist_inf(a, b):
        return ops.cdist(a, b, float("inf"))

    def norm_inf(x):
        return ops.norm(x, float("inf"))

    def norm_minus_inf(x):
        return ops.norm(x, float("-inf"))

    def max_pool_overlapping(x):
        return ops.max_pool2d(x, 3, 1, 1)

    def max_pool2d_dilated(x):
        return ops.max_pool2d(x, 2, 1, 0, 2)

    def max_pool2d_indices(x):
        return ops.max_pool2d(x, 2, 2, 0, 1, False, True)[0]

    max_pool_argmax = ops.MaxPoolWithArgmaxV2(kernel_size=2, strides=2)

    def max_pool_with_argmax(x):
        return max_pool_argmax(x)[0]

    rnn = nn.RNN(2, 2, nonlinearity="relu", batch_first=True)
    for param in rnn.get_parameters():
        name = param.name
        value = RNN_W_IH if "weight_ih" in name else RNN_W_HH if "weight_hh" in name else np.zeros(2, np.float32)
        param.set_data(Tensor(value))

    def rnn_relu(x):
        return rnn(x)[0]

    clip = nn.ClipByNorm()

    def clip_by_norm(value):
        def fn(x):
            return clip(x, Tensor(np.float32(value)))

        return fn

    vector = np.array([1.0, -3.0, 3.0, 0.5, -0.5], np.float32)  # |x| ties at its maximum and at its minimum
    cases = {
        "binary_cross_entropy": (bce, WEIGHTS, P, LABELS),
        "binary_cross_entropy weight mean": (bce_weighted_mean, np.float32(1.0), P, LABELS),
        "nn.BCELoss": (nn.BCELoss(reduction="none"), WEIGHTS, P, LABELS),
        "L2Normalize epsilon 0.25": (l2_normalize_quarter, ROW_WEIGHTS, ROWS),
        "L2Normalize": (l2_normalize, ROW_WEIGHTS, ROWS),
        "ClipByNorm at the clip": (clip_by_norm(5.0), ROW_WEIGHTS, ROWS[2:3]),
        "ClipByNorm above the clip": (clip_by_norm(4.0), ROW_WEIGHTS, ROWS[2:3]),
        "ClipByNorm below the clip": (clip_by_norm(6.0), ROW_WEIGHTS, ROWS[2:3]),
        "cdist p=inf": (cdist_inf, np.float32([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), X1, X2),
        "norm inf": (norm_inf, np.float32(1.0), vector),
        "norm -inf": (norm_minus_inf, np.float32(1.0), vector),
        "norm inf of zeros": (norm_inf, np.float32(1.0), np.zeros(3, np.float32)),
        "binary_cross_entropy NaN": (bce, WEIGHTS[:3], np.float32([np.nan, 0.5, 0.0]), np.float32([1.0, np.nan, 1.0])),
        "L2Normalize NaN": (l2_normalize, ROW_WEIGHTS, np.float32([[np.nan, 1.0], [2.0, 1.0]])),
        "ClipByNorm NaN": (clip_by_norm(5.0), ROW_WEIGHTS, np.float32([[np.nan, 4.0]])),
        "relu": (ops.relu, np.float32([1.0, 2.0, 3.0, 4.0]), np.float32([0.0, -0.0, 1.0, -1.0])),
        "nn.RNN relu": (rnn_relu, np.float32([[1.0, 2.0]]), RNN_X),
        "nn.MaxPool2d": (nn.MaxPool2d(2, 2), np.float32(1.0), POOL),
        "max_pool2d overlapping": (max_pool_overlapping, np.float32(1.0), POOL),
        "max_pool2d dilated": (max_pool2d_dilated, np.float32(1.0), POOL5),
        "max_pool2d return_indices": (max_pool2d_indices, np.float32(1.0), POOL5),
        "MaxPoolWithArgmaxV2": (max_pool_with_argmax, np.float32(1.0), POOL5),
        "nn.AdaptiveMaxPool2d": (nn.AdaptiveMaxPool2d(2), np.float32(1.0), POOL5),
    }
    out = {}
    for mode in ("PYNATIVE_MODE", "GRAPH_MODE"):
        ms.set_context(mode=getattr(ms, mode))
        for name, (fn, weights, *inputs) in cases.items():
            grads = ops.GradOperation(get_all=True)(Weighted(fn, weights))(*[Tensor(a) for a in inputs])
            out[f"{mode} {name}"] = [g.asnumpy().tolist() for g in grads]
    ms.set_context(mode=ms.PYNATIVE_MODE)
    return out
