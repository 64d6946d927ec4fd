"""Four steps of the zoo's STGCN traffic forecaster (research/cv/stgcn/src/model): two STConvBlocks (gated temporal
convolutions: Pad-less causal Conv2d, Split, GLU with Sigmoid; ChebConv's Chebyshev recurrence of MatMuls, Stack,
BiasAdd; LayerNorm over the last two axes through Transposes; Dropout) and the OutputBlock (its float16 Dense layers
by to_float), LossCellWithNetwork's MSELoss and AdamWeightDecay on an exponential_decay_lr list through
Model(net, optimizer=...).train, as its train.py wires them (the AdamW configs).

Usage: train_stgcn.py MODE...; prints `MODE losses: ...` and `MODE state: ...` (each trainable parameter's sum, then
each moment's absolute sum). The zoo's config is PeMSD7-M's 228 roads, 12 steps of history, blocks [64, 16, 64],
batches of 8; here a random 6-node graph, 12 steps, blocks [[1], [4, 2, 4], [4, 2, 4], [6, 6], [1]], Ks 3, Kt 3,
batches of 3, its lr, gamma and weight decay, dropout off (drop_rate 1: the zoo's Dropout(p=1 - drop_rate)).
The ChebConv matrix is the zoo's wid_sym_normd_lap_mat computed with NumPy. NumPy-seeded weights.
"""

import os
import sys

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn
from mindspore.train.callback import Callback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from src.model import metric, models  # noqa: E402

NODES, HIS, KS, KT, BATCH, STEPS = 6, 12, 3, 3, 3, 4
BLOCKS = [[1], [4, 2, 4], [4, 2, 4], [6, 6], [1]]


class LossRecorder(Callback):
    """Keep each step's loss."""

    def __init__(self, losses: list):
        super().__init__()
        self.losses = losses

    def step_end(self, run_context):
        self.losses.append(float(run_context.original_args().net_outputs.asnumpy()))


def cheb_matrix(adj: np.ndarray) -> np.ndarray:
    """utility.calculate_laplacian_matrix's wid_sym_normd_lap_mat: 2 L / lambda_max - I of the normalised Laplacian."""
    deg = adj.sum(1)
    d = np.diag(deg**-0.5)
    lap = d @ (np.diag(deg) - adj) @ d
    return 2 * lap / np.linalg.eigvalsh(lap).max() - np.eye(len(adj))


def main(mode: str) -> None:
    ms.set_context(mode=getattr(ms, mode))
    rng = np.random.RandomState(4)
    adj = rng.uniform(0.2, 1.0, (NODES, NODES)) * (rng.uniform(0, 1, (NODES, NODES)) < 0.5)
    adj = np.triu(adj, 1) + np.triu(adj, 1).T + np.diag(np.full(NODES, 0.1))
    conv_matrix = Tensor(cheb_matrix(adj), ms.float32)
    net = models.STGCN_Conv(KT, KS, BLOCKS, HIS, NODES, "glu", "chebconv", conv_matrix, 1.0)
    for p in net.trainable_params():
        if "ln" in p.name:
            continue
        fan_in = int(np.prod(p.shape[1:])) if len(p.shape) > 1 else p.shape[0]
        bound = 1 / np.sqrt(fan_in)
        p.set_data(Tensor(rng.uniform(-bound, bound, p.shape).astype(np.float32)))
    learning_rate = nn.exponential_decay_lr(learning_rate=0.003, decay_rate=0.7, total_step=STEPS, step_per_epoch=2,
                                            decay_epoch=1)  # fmt: skip
    optimizer = nn.AdamWeightDecay(net.trainable_params(), learning_rate=learning_rate, weight_decay=0.0005)
    model = ms.Model(metric.LossCellWithNetwork(net), optimizer=optimizer)
    series = rng.standard_normal((BATCH * STEPS + HIS + 1, NODES)).astype(np.float32)
    inputs = np.stack([series[i : i + HIS][None] for i in range(BATCH * STEPS)])
    labels = np.stack([series[i + HIS] for i in range(BATCH * STEPS)])
    dataset = ms.dataset.NumpySlicesDataset({"inputs": inputs, "labels": labels}, shuffle=False).batch(BATCH)
    losses = []
    model.train(1, dataset, callbacks=[LossRecorder(losses)], dataset_sink_mode=False)
    state = [float(p.asnumpy().astype(np.float64).sum()) for p in optimizer.parameters]
    state += [float(np.abs(m.asnumpy().astype(np.float64)).sum()) for m in (*optimizer.moments1, *optimizer.moments2)]
    print(f"{mode} losses:", " ".join(repr(v) for v in losses))
    print(f"{mode} state:", " ".join(repr(v) for v in state))


if __name__ == "__main__":
    for mode_name in sys.argv[1:] or ["PYNATIVE_MODE"]:
        main(mode_name)
