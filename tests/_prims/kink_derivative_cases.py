"""Derivatives of clipping, maximum/minimum, piecewise activations, L1Loss and the 1-norm at their kinks (an input
exactly on a bound, two equal inputs or a NaN of maximum/minimum, a prediction equal to its target, a zero in a
1-norm), written once for both frameworks: `run(ms)` takes the
`mindspore` module (for the goldens) or `kiln`, and returns {"MODE case": gradients as nested lists} for PyNative
and GRAPH_MODE."""

import numpy as np

# each input sits on, inside and outside the kinks of the op it is used with
X = np.array([0.0, 1.0, 0.5, -1.0, 2.0, 0.0, 1.0, -0.25], np.float32)
X6 = np.array([0.0, 6.0, 3.0, -1.0, 7.0, 6.0, -0.0, 5.5], np.float32)
X3 = np.array([-3.0, 3.0, 0.0, -4.0, 4.0, -3.0, 1.5, 3.0], np.float32)
# Y ties X at 0, 2, 4 and 5 (0.0 against -0.0), holds a NaN at 6; XN holds a NaN at 3
Y = np.array([0.0, 0.5, 0.5, 1.0, 2.0, -0.0, np.nan, -1.0], np.float32)
XN = np.array([0.0, 1.0, 0.5, np.nan, 2.0, 0.0, 1.0, -0.25], np.float32)
WEIGHTS = np.arange(1, 9, dtype=np.float32)


def run(ms) -> dict:
    """Each case's input gradients in both modes."""
    ops, nn, Tensor = ms.ops, ms.nn, ms.Tensor
    lo, hi = Tensor(np.zeros(8, np.float32)), Tensor(np.ones(8, np.float32))

    class Weighted(nn.Cell):
        """(fn(*inputs) * weights).sum()."""

        def __init__(self, fn):
            super().__init__()
            self.fn, self.w = fn, Tensor(WEIGHTS)

        def construct(self, *inputs):
            return (self.fn(*inputs) * self.w).sum()

    # named functions: MindSpore's GRAPH_MODE parses a lambda only when it stands on a line of its own
    def clamp_scalars(x):
        return ops.clamp(x, 0.0, 1.0)

    def clamp_tensors(x, a, b):
        return ops.clamp(x, a, b)

    def clamp_min_tensor(x, a):
        return ops.clamp(x, a, None)

    def clamp_max_only(x):
        return ops.clamp(x, None, 1.0)

    def tensor_clip(x):
        return x.clip(0.0, 1.0)

    def leaky_relu(x):
        return ops.leaky_relu(x, 0.2)

    def l1_loss_at_target(x):  # the input equals the target where X is 1.0
        return nn.L1Loss(reduction="none")(x, Tensor(np.ones(8, np.float32)))

    def norm_1(x):  # a 1-norm over rows holding zeros, per row and of the flat vector
        return ops.norm(x.reshape(2, 4), 1, dim=1).sum() + ops.norm(x, 1) * ops.ones(8, ms.float32)

    def maximum_leaky(x):  # LeakyReLU written as max(x, 0.2 x), as the zoo's DKT does
        return ops.maximum(x, 0.2 * x)

    def maximum_scalar_tensor(x):  # a 0-d y broadcast against x: its gradient sums over x's shape
        return ops.maximum(x, Tensor(np.float32(0.5)))

    def clip_by_value(x, a, b):
        return ops.clip_by_value(x, a, b)

    def clip_by_global_norm(clip):  # the inputs' global norm is 5: at, above and below the clip
        def fn(a, b):
            y = ops.clip_by_global_norm((a, b), clip)
            return y[0] * 3.0 + y[1] * 8.0

        return fn

    def hardtanh(x):
        return ops.hardtanh(x, -0.5, 1.0)

    cases = {
        "maximum": (ops.maximum, X, Y),
        "minimum": (ops.minimum, X, Y),
        "maximum NaN in x": (ops.maximum, XN, Y),
        "minimum NaN in x": (ops.minimum, XN, Y),
        "maximum x 0.2x": (maximum_leaky, X),
        "fmax": (ops.fmax, X, Y),
        "fmax NaN in x": (ops.fmax, XN, Y),
        "maximum 0-d tensor": (maximum_scalar_tensor, X),
        "clip_by_value tensors": (clip_by_value, X, lo, hi),
        "nn.Hardtanh": (nn.Hardtanh(-1.0, 1.0), X),
        "clip_by_global_norm at the clip": (clip_by_global_norm(5.0), np.float32([3.0]), np.float32([4.0])),
        "clip_by_global_norm above the clip": (clip_by_global_norm(4.0), np.float32([3.0]), np.float32([4.0])),
        "clip_by_global_norm below the clip": (clip_by_global_norm(6.0), np.float32([3.0]), np.float32([4.0])),
        "hardtanh": (hardtanh, X),
        "clamp scalars": (clamp_scalars, X),
        "clamp tensors": (clamp_tensors, X, lo, hi),
        "clamp min tensor": (clamp_min_tensor, X, lo),
        "clamp max only": (clamp_max_only, X),
        "Tensor.clip": (tensor_clip, X),
        "relu6": (ops.relu6, X6),
        "nn.ReLU6": (nn.ReLU6(), X6),
        "hardswish": (ops.hardswish, X3),
        "nn.HSwish": (nn.HSwish(), X3),
        "leaky_relu": (leaky_relu, X),
        "nn.LeakyReLU": (nn.LeakyReLU(0.2), X),
        "nn.LeakyReLU alpha 1.5": (nn.LeakyReLU(1.5), X),
        "L1Loss at the target": (l1_loss_at_target, X),
        "norm p=1": (norm_1, X),
    }
    out = {}
    for mode in ("PYNATIVE_MODE", "GRAPH_MODE"):
        ms.set_context(mode=getattr(ms, mode))
        for name, (fn, *inputs) in cases.items():
            inputs = [a if isinstance(a, Tensor) else Tensor(a) for a in inputs]
            grads = ops.GradOperation(get_all=True)(Weighted(fn))(*inputs)
            out[f"{mode} {name}"] = [g.asnumpy().tolist() for g in grads]
    ms.set_context(mode=ms.PYNATIVE_MODE)
    return out
