"""Four Adam steps of the zoo's GAT (research/gnn/gat/src: GNNFeatureTransform's reshape/MatMul/BiasAdd, attention
heads whose LeakyReLU logits take the adjacency's -1e9 bias mask before the softmax, heads in nn.layer.CellList
joined by Concat or AddN, ELU, the masked softmax loss with L2Loss over the weights) through the zoo's TrainGAT
(its TrainOneStepCell: the loss, then GradOperation of the loss net with a Fill sensitivity; the accuracy after the
step), as its train.py wires them, including `gat_net.add_flags_recursive(fp16=True)` (MindSpore's mixed precision:
each Cell's floating-point inputs are cast to float16) unless the mode is given as MODE:fp32.

A MindSpore script: run it with MindSpore (the golden) or with `kiln run`. Usage: train_gat.py MODE...; for each
MODE it prints `MODE losses: ...`, `MODE accuracies: ...` and `MODE state: ...` (the sum of each trainable
parameter and the absolute sum of each Adam moment after the last step). The graph has 12 nodes of 10 features
(NumPy-seeded), 3 classes, one hidden layer of 2 heads of width 4; dropout is off (the zoo's 0.6 draws random
masks); the weights are NumPy-seeded (the zoo's XavierUniform draws from MindSpore's generator). The zoo's
AttentionHead and GAT share default-argument LeakyReLU and ELU Cells across every network built in a process, so
the float16 flag, once set, stays on them: give the :fp32 modes first.
"""

import os
import sys

import mindspore as ms
import numpy as np
from mindspore import Tensor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from src.gat import GAT  # noqa: E402
from src.utils import TrainGAT  # noqa: E402

NODES, FEATURES, CLASSES, STEPS = 12, 10, 3, 4
HID_UNITS, N_HEADS = [4], [2, 1]


def graph() -> tuple:
    """The zoo's inputs for one graph: features (1, N, F), the bias mask (1, N, N), one-hot labels and the train
    mask (as its dataset.py builds them: -1e9 where two nodes are not neighbours, self-loops added)."""
    rng = np.random.RandomState(3)
    feature = rng.standard_normal((1, NODES, FEATURES)).astype(np.float32)
    adj = (rng.uniform(size=(NODES, NODES)) < 0.3).astype(np.float64)
    adj = np.maximum(adj, adj.T) * (1 - np.eye(NODES))
    biases = (-1e9 * (1.0 - (adj + np.eye(NODES))))[np.newaxis].astype(np.float32)
    labels = rng.randint(0, CLASSES, NODES)
    y_train = np.eye(CLASSES, dtype=np.float32)[labels][np.newaxis]
    train_mask = np.zeros((1, NODES), bool)
    train_mask[0, :8] = True
    return feature, biases, y_train, train_mask


def main(mode: str) -> None:
    mode, _, precision = mode.partition(":")
    ms.set_context(mode=getattr(ms, mode))
    feature, biases, y_train, train_mask = graph()
    gat_net = GAT(FEATURES, CLASSES, NODES, HID_UNITS, N_HEADS, attn_drop=0.0, ftr_drop=0.0)
    rng = np.random.RandomState(7)
    for p in gat_net.get_parameters():
        p.set_data(Tensor((rng.standard_normal(p.shape) * 0.4).astype(np.float32)))
    if precision != "fp32":
        gat_net.add_flags_recursive(fp16=True)
    train_net = TrainGAT(gat_net, CLASSES, y_train, train_mask, learning_rate=0.05, l2_coeff=0.0005)
    train_net.set_train(True)
    feature, biases = Tensor(feature), Tensor(biases)
    losses, accuracies = [], []
    for _ in range(STEPS):
        loss, accuracy = train_net(feature, biases)
        losses.append(float(loss.asnumpy()))
        accuracies.append(float(accuracy.asnumpy()))
    optimizer = train_net.loss_train_net.optimizer
    # The attention logits' biases are left out: f_1's adds a constant to a row, f_2's to every logit, and the
    # softmax is blind to both, so Adam steps them on rounding noise (MindSpore's own two modes differ by 2x there).
    kept = [
        i
        for i, p in enumerate(optimizer.parameters)
        if not p.name.endswith(("f_1_transform.bias", "f_2_transform.bias"))
    ]
    state = [float(optimizer.parameters[i].asnumpy().astype(np.float64).sum()) for i in kept]
    for moments in (optimizer.moment1, optimizer.moment2):
        state += [float(np.abs(moments[i].asnumpy().astype(np.float64)).sum()) for i in kept]
    name = mode if not precision else f"{mode}:{precision}"
    print(f"{name} losses:", " ".join(repr(v) for v in losses))
    print(f"{name} accuracies:", " ".join(repr(v) for v in accuracies))
    print(f"{name} state:", " ".join(repr(v) for v in state))


if __name__ == "__main__":
    for mode_name in sys.argv[1:] or ["PYNATIVE_MODE"]:
        main(mode_name)
