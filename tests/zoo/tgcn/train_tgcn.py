"""Four steps of the zoo's T-GCN traffic forecaster (research/cv/tgcn/src): the normalised Laplacian built at
construction with mindspore.numpy (Eye, Pow -0.5, isinf-masked item assignment, diag), TGCNCell's GRU gates from two
graph convolutions (nn.MatMul run in float16 by to_float, as train.py sets it: Laplacian times the concatenated
input and hidden state, then the weights), Sigmoid, Split, Tanh, a Python loop over time, SupervisedForecastTask's
Dense head, TGCNLoss (mnp.sum of squares) and Adam with weight decay through Model(net, loss_fn, optimizer).train, as
its train.py wires them.

Usage: train_tgcn.py MODE...; prints `MODE losses: ...` and `MODE state: ...` (each trainable parameter's sum, then
each Adam moment's absolute sum). The zoo's config is SZ-taxi's 156 roads, hidden 100, sequences of 4, batches of
64; here a random 10-node graph, hidden 6, sequences of 4, batches of 5, its lr and weight decay. NumPy-seeded
weights (the zoo's XavierUniform draws from MindSpore's generator).
"""

import os
import sys

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn
from mindspore import dtype as mstype
from mindspore.train.callback import Callback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from src.model.loss import TGCNLoss  # noqa: E402
from src.task import SupervisedForecastTask  # noqa: E402

NODES, HIDDEN, SEQ, PRE, BATCH, STEPS = 10, 6, 4, 1, 5, 4


class LossRecorder(Callback):
    """Keep each step's loss."""

    def __init__(self, losses: list):
        super().__init__()
        self.losses = losses

    def step_end(self, run_context):
        self.losses.append(float(run_context.original_args().net_outputs.asnumpy()))


def main(mode: str) -> None:
    ms.set_context(mode=getattr(ms, mode))
    rng = np.random.RandomState(2)
    adj = (rng.uniform(0, 1, (NODES, NODES)) < 0.3).astype(np.float32)
    adj = np.maximum(adj, adj.T) * rng.uniform(0.5, 1.5, (NODES, NODES)).astype(np.float32)
    adj = np.triu(adj) + np.triu(adj, 1).T
    net = SupervisedForecastTask(adj, HIDDEN, PRE)
    for p in net.trainable_params():
        if len(p.shape) == 2:
            bound = np.sqrt(6 / (p.shape[0] + p.shape[1]))
            p.set_data(Tensor(rng.uniform(-bound, bound, p.shape).astype(np.float32)))
        elif "fcn" in p.name:
            p.set_data(Tensor(rng.uniform(-0.3, 0.3, p.shape).astype(np.float32)))
    net.tgcn.tgcn_cell.graph_conv1.matmul.to_float(mstype.float16)
    net.tgcn.tgcn_cell.graph_conv2.matmul.to_float(mstype.float16)
    loss_fn = TGCNLoss()
    optimizer = nn.Adam(net.trainable_params(), 0.001, weight_decay=1.5e-3)
    model = ms.Model(net, loss_fn, optimizer)
    series = rng.uniform(0, 1, (BATCH * STEPS + SEQ + PRE, NODES)).astype(np.float32)
    inputs = np.stack([series[i : i + SEQ] for i in range(BATCH * STEPS)])
    targets = np.stack([series[i + SEQ : i + SEQ + PRE] for i in range(BATCH * STEPS)])
    dataset = ms.dataset.NumpySlicesDataset({"inputs": inputs, "labels": targets}, shuffle=False).batch(BATCH)
    losses = []
    model.train(1, dataset, callbacks=[LossRecorder(losses)], dataset_sink_mode=False)
    state = [float(p.asnumpy().astype(np.float64).sum()) for p in optimizer.parameters]
    state += [float(np.abs(m.asnumpy().astype(np.float64)).sum()) for m in (*optimizer.moment1, *optimizer.moment2)]
    print(f"{mode} losses:", " ".join(repr(v) for v in losses))
    print(f"{mode} state:", " ".join(repr(v) for v in state))


if __name__ == "__main__":
    for mode_name in sys.argv[1:] or ["PYNATIVE_MODE"]:
        main(mode_name)
