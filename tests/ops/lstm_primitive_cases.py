"""Cases of the operations-level LSTM primitive (P.LSTM) run by MindSpore 2.10's CPU build and by Kiln: each case
is (input_size, hidden_size, num_layers, has_bias, bidirectional); `run` returns the primitive's output, h_n and c_n
and the gradients of a weighted sum of them with respect to x, h0, c0 and the flat weight. Shared by
make_lstm_primitive_goldens_mindspore.py and test_lstm_primitive.py, so both draw the same inputs."""

import numpy as np

T, B = 5, 2
CASES = {
    "one_layer": (3, 4, 1, True, False),
    "one_layer_no_bias": (3, 4, 1, False, False),
    "bidirectional": (3, 4, 1, True, True),
    "two_layers": (4, 4, 2, True, False),
}


def weight_size(input_size, hidden_size, num_layers, has_bias, bidirectional):
    """MindSpore's flat weight size: per layer and direction, both matrices and two gate biases."""
    d = 2 if bidirectional else 1
    size = 0
    for layer in range(num_layers):
        ins = input_size if layer == 0 else hidden_size * d
        size += d * (4 * hidden_size * (ins + hidden_size) + (8 * hidden_size if has_bias else 0))
    return size


def inputs(name):
    """float32 x (T, B, I), h0, c0 (L * D, B, H), w (size, 1, 1) and the output weights r0, r1, r2."""
    i, h, layers, bias, bidirectional = CASES[name]
    d = 2 if bidirectional else 1
    rng = np.random.default_rng(21)
    f = lambda *shape: rng.standard_normal(shape).astype(np.float32)  # noqa: E731
    w = f(weight_size(*CASES[name]), 1, 1) * np.float32(0.4)
    x, h0, c0 = f(T, B, i), f(layers * d, B, h), f(layers * d, B, h)
    return x, h0, c0, w, f(T, B, d * h), f(layers * d, B, h), f(layers * d, B, h)


def run(ms, name, mode):
    """(output, h_n, c_n, dx, dh0, dc0, dw) as NumPy arrays, under `ms` (mindspore or kiln) in `mode`."""
    ms.set_context(mode=mode)
    x, h0, c0, w, r0, r1, r2 = (ms.Tensor(a) for a in inputs(name))
    op = ms.ops.operations.LSTM(*CASES[name], 0.0)

    class Net(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.op = op

        def construct(self, x, h0, c0, w):
            return self.op(x, h0, c0, w)[:3]

    class Loss(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.net = Net()

        def construct(self, x, h0, c0, w):
            out, hn, cn = self.net(x, h0, c0, w)
            return (out * r0).sum() + (hn * r1).sum() + (cn * r2).sum()

    values = Net()(x, h0, c0, w)
    grads = ms.ops.GradOperation(get_all=True)(Loss())(x, h0, c0, w)
    return [v.asnumpy() for v in (*values, *grads)]
