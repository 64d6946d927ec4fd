"""Four steps of the zoo's BGCF graph recommender (research/gnn/bgcf/src: user and item embedding Parameters gathered
by node ids, MeanConv and AttenConv aggregators of sampled neighbours run in float16 by to_float (ReduceMean, Concat,
MatMul, Tanh; the attention's BatchMatMul scores, Softmax and BatchMatMul), the float16 BGCFLoss (Split, Pow,
ReduceSum distances, Tile, the BPR term -log(sigmoid) of positive minus negative ratings, L2Loss), LossWrapper, the
zoo's TrainOneStepCell (a Fill sensitivity, GradOperation, add_flags(defer_inline=True)) and TrainBGCF's Adam)
trained as its train.py trains it, step by step.

A MindSpore script: run it with MindSpore (the golden) or with `kiln run`. Usage: train_bgcf.py MODE...; for each MODE
it prints `MODE losses: ...` and `MODE state: ...` (the sum of each parameter, then the absolute sum of each Adam
moment). The zoo's config is 64-wide embeddings, batches of 5,000 pairs, 40 sampled neighbours and 20 from the
generated graph, 10 negatives; here 8-wide embeddings, 24 users and 30 items, batches of 4 pairs, 5 and 3 neighbours,
its 10 negatives (LossWrapper hard-codes 10), neighbour dropout 0 (its Dropout draws from MindSpore's generator), the
zoo's dist_reg, lr and epsilon, l2 0 (see L2). The sampled graph is drawn by NumPy. NumPy-seeded weights (the zoo's
XavierUniform draws from MindSpore's generator).
"""

import os
import sys

import mindspore as ms
import numpy as np
from mindspore import Tensor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from src.bgcf import BGCF  # noqa: E402
from src.callback import TrainBGCF  # noqa: E402

USERS, ITEMS, DIM, BATCH, NEG, RAW, GNEW, STEPS = 24, 30, 8, 4, 10, 5, 3, 4
# the zoo's l2 is 0.03: MindSpore 2.10's CPU L2Loss on float16 is a float16 running sum (4,884 where the sum is 5,110
# on 3,328 values), so the driver leaves the L2 term out (Kiln sums in float32 and rounds once)
L2 = 0.0


def sample_batch(rng: np.random.RandomState) -> list:
    """One batch of the zoo's dataset.py shapes: node ids of users and items (item ids already converted)."""
    u_id = rng.randint(0, USERS, BATCH)
    pos_item_id = rng.randint(0, ITEMS, BATCH)
    neg_item_id = rng.randint(0, ITEMS, (BATCH, NEG))
    pos_users = rng.randint(0, USERS, BATCH)
    pos_items = rng.randint(0, ITEMS, BATCH)
    u_group_nodes = np.concatenate([u_id, pos_users])
    u_neighs = rng.randint(0, ITEMS, (2 * BATCH, RAW))
    u_gnew_neighs = rng.randint(0, ITEMS, (2 * BATCH, GNEW))
    i_group_nodes = np.concatenate([pos_item_id, pos_items])
    i_neighs = rng.randint(0, USERS, (2 * BATCH, RAW))
    i_gnew_neighs = rng.randint(0, USERS, (2 * BATCH, GNEW))
    neg_group_nodes = neg_item_id.reshape(-1)
    neg_neighs = rng.randint(0, USERS, (BATCH * NEG, RAW))
    neg_gnew_neighs = rng.randint(0, USERS, (BATCH * NEG, GNEW))
    arrays = [u_id, pos_item_id, neg_item_id, pos_users, pos_items, u_group_nodes, u_neighs, u_gnew_neighs,
              i_group_nodes, i_neighs, i_gnew_neighs, neg_group_nodes, neg_neighs, neg_gnew_neighs]  # fmt: skip
    return [Tensor(a.astype(np.int32)) for a in arrays]


def main(mode: str) -> None:
    ms.set_context(mode=getattr(ms, mode))
    net = BGCF([DIM, USERS, ITEMS], DIM, "tanh", [0.0, 0.0, 0.0], USERS, ITEMS, DIM)
    rng = np.random.RandomState(5)
    for p in net.trainable_params():
        bound = np.sqrt(6 / (p.shape[0] + p.shape[1]))  # XavierUniform's
        p.set_data(Tensor(rng.uniform(-bound, bound, p.shape).astype(np.float32)))
    train = TrainBGCF(net, NEG, L2, 1e-3, 1e-8, 0.003)
    train.set_train(True)
    rng = np.random.RandomState(11)
    losses = [float(train(*sample_batch(rng)).asnumpy()) for _ in range(STEPS)]
    opt = train.loss_train_net.optimizer
    state = [float(p.asnumpy().astype(np.float64).sum()) for p in opt.parameters]
    state += [float(np.abs(m.asnumpy().astype(np.float64)).sum()) for m in (*opt.moment1, *opt.moment2)]
    print(f"{mode} losses:", " ".join(repr(v) for v in losses))
    print(f"{mode} state:", " ".join(repr(v) for v in state))


if __name__ == "__main__":
    for mode_name in sys.argv[1:] or ["PYNATIVE_MODE"]:
        main(mode_name)
