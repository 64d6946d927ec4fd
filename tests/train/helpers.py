"""A small linear classifier, its loss, an in-memory dataset and a NumPy reference of its training."""

import numpy as np

import kiln as ms
from kiln import Tensor, nn

N_IN, N_OUT = 4, 3


class Linear(nn.Cell):
    """Softmax regression: one nn.Dense with a seeded weight."""

    def __init__(self, seed=0):
        super().__init__()
        rng = np.random.default_rng(seed)
        weight = Tensor((rng.standard_normal((N_OUT, N_IN)) * 0.1).astype(np.float32))
        self.fc = nn.Dense(N_IN, N_OUT, weight_init=weight, bias_init="zeros")

    def construct(self, x):
        return self.fc(x)

    def wb(self):
        """(w, b) as NumPy with w of shape (in, out), the reference's layout."""
        return self.fc.weight.asnumpy().T.copy(), self.fc.bias.asnumpy().copy()


def CrossEntropy():  # noqa: N802  (stands for a Cell class in the tests)
    """Mean softmax cross-entropy with integer labels."""
    return nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")


def make_data(n=48, seed=1):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, N_IN)).astype(np.float32)
    y = ((x[:, 0] > 0).astype(np.int32) + (x[:, 1] > 0.8).astype(np.int32)).astype(np.int32)
    return x, y


class ArrayDataset:
    """The two methods Model needs; each `for` over the iterator is one epoch, in order."""

    def __init__(self, x, y, batch_size=12, columns=2):
        self.x, self.y, self.batch_size, self.columns = x, y, batch_size, columns
        self.iterators = 0

    def get_dataset_size(self):
        return len(self.x) // self.batch_size

    def create_tuple_iterator(self, num_epochs=-1, **kwargs):
        self.iterators += 1
        ds = self

        class Epochs:
            def __iter__(self):
                for i in range(ds.get_dataset_size()):
                    s = slice(i * ds.batch_size, (i + 1) * ds.batch_size)
                    row = [ds.x[s], ds.y[s]] + [ds.y[s]] * (ds.columns - 2)
                    yield [Tensor(v) for v in row[: ds.columns]]

        return Epochs()


def reference_training(w, b, x, y, lr, momentum, epochs, batch_size):
    """Softmax regression trained with MindSpore's Momentum rule, in float64 NumPy. Returns (w, b, losses)."""
    order = list(range(len(x) // batch_size)) * epochs
    return reference_steps(w, b, x, y, lr, momentum, order, batch_size)


def reference_steps(w, b, x, y, lr, momentum, batch_order, batch_size):
    """`reference_training` over an explicit sequence of batch indices."""
    w, b = w.astype(np.float64), b.astype(np.float64)
    mw, mb = np.zeros_like(w), np.zeros_like(b)
    losses = []
    for i in batch_order:
        xb = x[i * batch_size : (i + 1) * batch_size].astype(np.float64)
        yb = y[i * batch_size : (i + 1) * batch_size]
        logits = xb @ w + b
        logits -= logits.max(1, keepdims=True)
        p = np.exp(logits) / np.exp(logits).sum(1, keepdims=True)
        losses.append(-np.log(p[np.arange(len(yb)), yb]).mean())
        d = p.copy()
        d[np.arange(len(yb)), yb] -= 1
        d /= len(yb)
        gw, gb = xb.T @ d, d.sum(0)
        mw, mb = momentum * mw + gw, momentum * mb + gb
        w, b = w - lr * mw, b - lr * mb
    return w, b, losses


def set_mode(mode):
    """Switch the execution mode; GRAPH_MODE needs the compiler's Cell runner."""
    ms.set_context(mode=mode)
    if mode == ms.GRAPH_MODE:
        from kiln._compiler.api import install_cell_runner

        install_cell_runner()
