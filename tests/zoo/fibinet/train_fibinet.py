"""Four steps of the zoo's FiBiNET click-through-rate network (research/recommend/fibinet/src/fibinet.py): wide and deep
nn.EmbeddingLookup tables weighted by the field values, the SENET layer (ReduceMean over the embedding, a ReLU
SequentialCell of bias-free Dense, Mul by the expanded weights), BilinearInteraction (list-indexed field pairs
`inputs[:, comb, :]`, a Dense over the flattened pairs for 'all', per-field Dense of an ops.Split for 'each', a CellList
zipped with the pairs for 'interaction'), float16 DenseLayers (Cast, MatMul, BiasAdd, ReLU), NetWithLossClass
(SigmoidCrossEntropyWithLogits, the embedding table's L2 term) and TrainStepWrap: the loss net run forward, then two
GradOperations with Fill sensitivities of 1024 through IthOutputCell, FTRL on the wide weights and Adam on the deep
ones, both with loss_scale 1024.

A MindSpore script: run it with MindSpore (the golden) or with `kiln run`. Usage: train_fibinet.py MODE...; for each
MODE and bilinear type it prints `MODE TYPE losses: ...` (each step's wide then deep loss) and `MODE TYPE state: ...`
(the sum of each parameter, then the absolute sum of each Adam moment and FTRL accumulator). The zoo's config is 13
dense and 26 categorical fields, a vocabulary of 200,000, embeddings of 10, deep layers of 400, batch 1000; here 2 dense
and 4 categorical fields, a vocabulary of 40, embeddings of 4, deep layers of 16, batch 8, NumPy-seeded weights.
MindSpore 2.10 dropped EmbeddingLookup's `vocab_cache_size` (TypeError, in Kiln too): the driver's subclass takes the
zoo's 0.
"""

import os
import sys
from types import SimpleNamespace

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from src.fibinet import FiBiNetModel, NetWithLossClass, TrainStepWrap  # noqa: E402

DENSE, SLOTS, VOCAB, EMB, BATCH, STEPS = 2, 4, 40, 4, 8, 4


class EmbeddingLookup(nn.EmbeddingLookup):
    """MindSpore 2.10's EmbeddingLookup has no `vocab_cache_size` (the zoo passes 0, no cache): refused in both."""

    def __init__(self, *args, vocab_cache_size=0, **kwargs):
        assert vocab_cache_size == 0
        super().__init__(*args, **kwargs)


nn.EmbeddingLookup = EmbeddingLookup  # the zoo's module reads `nn.EmbeddingLookup` when it builds the tables


def config(bilinear_type: str) -> SimpleNamespace:
    return SimpleNamespace(field_size=DENSE + SLOTS, dense_dim=DENSE, slot_dim=SLOTS, vocab_size=VOCAB, emb_dim=EMB,
                           vocab_cache_size=0, deep_layer_dim=[16, 16, 16], deep_layer_act="relu", keep_prob=0.5,
                           dropout_flag=False, field_slice=False, sparse=False, deep_table_slice_mode="column_slice",
                           seed=1024, weight_bias_init=["normal", "normal"], emb_init="normal",
                           init_args=[-0.01, 0.01], l2_coef=8e-5, reduction_ratio=3, bilinear_type=bilinear_type,
                           batch_size=BATCH)  # fmt: skip


def main(mode: str, bilinear_type: str) -> None:
    ms.set_context(mode=getattr(ms, mode))
    net = FiBiNetModel(config(bilinear_type))
    rng = np.random.RandomState(61)
    for p in sorted(net.trainable_params(), key=lambda q: q.name):
        scale = 0.5 if "embedding" in p.name else (1 / np.sqrt(p.shape[0]) if len(p.shape) > 1 else 0.1)
        p.set_data(Tensor((scale * rng.standard_normal(p.shape)).astype(np.float32)))
    train_net = TrainStepWrap(NetWithLossClass(net, config(bilinear_type)), sparse=False)
    train_net.set_train()
    data = np.random.RandomState(62)
    losses = []
    for _ in range(STEPS):
        ids = data.randint(0, VOCAB, size=(BATCH, DENSE + SLOTS)).astype(np.int32)
        wts = np.concatenate([data.uniform(0, 1, (BATCH, DENSE)), np.ones((BATCH, SLOTS))], 1).astype(np.float32)
        label = (data.uniform(size=(BATCH, 1)) < 0.5).astype(np.float32)
        loss_w, loss_d = train_net(Tensor(ids), Tensor(wts), Tensor(label))
        losses += [float(loss_w.asnumpy()), float(loss_d.asnumpy())]
    opt_d, opt_w = train_net.optimizer_d, train_net.optimizer_w
    state = [float(p.asnumpy().astype(np.float64).sum()) for p in train_net.trainable_params]
    moments = (*opt_d.moment1, *opt_d.moment2, *opt_w.moments, *opt_w.linear)
    state += [float(np.abs(m.asnumpy().astype(np.float64)).sum()) for m in moments]
    print(f"{mode} {bilinear_type} losses:", " ".join(repr(v) for v in losses))
    print(f"{mode} {bilinear_type} state:", " ".join(repr(v) for v in state))


if __name__ == "__main__":
    for mode_name in sys.argv[1:] or ["PYNATIVE_MODE"]:
        for kind in ("all", "each", "interaction"):
            main(mode_name, kind)
