"""Four steps of the zoo's Wide&Deep click-through-rate network (official/recommend/Wide_and_Deep/src/wide_and_deep.py):
wide and deep nn.EmbeddingLookup tables weighted by the field values, five float16 DenseLayers (Cast, MatMul, BiasAdd,
ReLU), NetWithLossClass (SigmoidCrossEntropyWithLogits, the deep table's L2 term unless sparse) and TrainStepWrap: the
loss net run forward, then two GradOperations with Fill sensitivities of 1024 through IthOutputCell, FTRL on the wide
weights and Adam on the deep ones, both with loss_scale 1024.

A MindSpore script: run it with MindSpore (the golden) or with `kiln run`. Usage: train_wide_and_deep.py MODE...; for
each MODE it prints `MODE losses: ...` (each step's wide then deep loss) and `MODE state: ...` (the sum of each
parameter, then the absolute sum of each Adam moment and FTRL accumulator), for the zoo's single-device config (dense
tables). MODE `SEMI_AUTO_PARALLEL` (Kiln only, on 2 ranks: `kiln run --nproc 2`) runs the zoo's sparse auto-parallel
branch as train_and_eval_auto_parallel.py sets it up (sparse, use_sp off, full_batch): the wide table sliced by rows
and the deep one by columns, the first DenseLayer's Dropout and MatMul and the deep Mul sharded, lazy Adam, the
model's batch multiplied by the group size; it prints `SEMI_AUTO_PARALLEL sparse losses/state` for that global batch,
which must equal the one-device run of the same network (`GRAPH_MODE_LAZY` prints it as `GRAPH_MODE lazy`). MindSpore
2.10 has no CPU kernel for SparseGatherV2, the sparse tables' lookup: those two modes are Kiln's alone.
The zoo's config is 39 fields, a vocabulary of 200,000, embeddings of 80, deep layers of 1024-128, batch 16,000; here 6
fields, a vocabulary of 40, embeddings of 4, deep layers of 16, 16, 8, 8, batch 8, NumPy-seeded weights.
MindSpore 2.10 dropped EmbeddingLookup's `vocab_cache_size` (TypeError, in Kiln too): the driver's subclass takes the
zoo's 0.
"""

import os
import sys
from types import SimpleNamespace

import mindspore as ms
import numpy as np
from mindspore import Tensor, context, nn
from mindspore.communication.management import get_group_size, init
from mindspore.context import ParallelMode

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from src.wide_and_deep import NetWithLossClass, TrainStepWrap, WideDeepModel  # noqa: E402

FIELDS, VOCAB, EMB, BATCH, STEPS, RANKS = 6, 40, 4, 8, 4, 2


class EmbeddingLookup(nn.EmbeddingLookup):
    """MindSpore 2.10's EmbeddingLookup has no `vocab_cache_size` (the zoo passes 0, no cache): refused in both."""

    def __init__(self, *args, vocab_cache_size=0, **kwargs):
        assert vocab_cache_size == 0
        super().__init__(*args, **kwargs)


nn.EmbeddingLookup = EmbeddingLookup  # the zoo's module reads `nn.EmbeddingLookup` when it builds the tables


def config(sparse: bool, batch: int) -> SimpleNamespace:
    return SimpleNamespace(batch_size=batch, field_size=FIELDS, vocab_size=VOCAB, vocab_cache_size=0, emb_dim=EMB,
                           deep_layer_dim=[16, 16, 8, 8], deep_layer_act="relu", keep_prob=1.0, dropout_flag=False,
                           host_device_mix=0, parameter_server=0, field_slice=False, sparse=sparse, use_sp=False,
                           deep_table_slice_mode="column_slice", full_batch=True, manual_shape=None,
                           weight_bias_init=["normal", "normal"], emb_init="normal", init_args=[-0.01, 0.01],
                           l2_coef=8e-5)  # fmt: skip


def batches(batch: int) -> list:
    data = np.random.RandomState(72)
    out = []
    for _ in range(STEPS):
        ids = data.randint(0, VOCAB, size=(batch, FIELDS)).astype(np.int32)
        wts = data.uniform(0.2, 1, (batch, FIELDS)).astype(np.float32)
        label = (data.uniform(size=(batch, 1)) < 0.5).astype(np.float32)
        out.append((ids, wts, label))
    return out


def train(label: str, sparse: bool, batch: int, lazy: bool = False) -> None:
    """Build the zoo's network for `batch` rows a step (the model's own batch: times the group size in parallel)."""
    net = WideDeepModel(config(sparse, batch))
    rng = np.random.RandomState(71)
    for p in sorted(net.trainable_params(), key=lambda q: q.name):
        scale = 0.5 if "embedding" in p.name else (1 / np.sqrt(p.shape[0]) if len(p.shape) > 1 else 0.1)
        p.set_data(Tensor((scale * rng.standard_normal(p.shape)).astype(np.float32)))
    train_net = TrainStepWrap(NetWithLossClass(net, config(sparse, batch)), sparse=sparse)
    if lazy:  # the optimizer the auto-parallel branch builds (the one-device branch builds Adam)
        train_net.optimizer_d = nn.Adam(train_net.weights_d, learning_rate=3.5e-4, eps=1e-8, loss_scale=1024.0,
                                        use_lazy=True)  # fmt: skip
    train_net.set_train()
    losses = []
    for ids, wts, lab in batches(batch * RANKS if label.startswith("SEMI") else batch):
        loss_w, loss_d = train_net(Tensor(ids), Tensor(wts), Tensor(lab))
        losses += [float(loss_w.asnumpy()), float(loss_d.asnumpy())]
    opt_d, opt_w = train_net.optimizer_d, train_net.optimizer_w
    state = [float(p.asnumpy().astype(np.float64).sum()) for p in train_net.trainable_params]
    moments = (*opt_d.moment1, *opt_d.moment2, *opt_w.moments, *opt_w.linear)
    state += [float(np.abs(m.asnumpy().astype(np.float64)).sum()) for m in moments]
    print(f"{label} losses:", " ".join(repr(v) for v in losses))
    print(f"{label} state:", " ".join(repr(v) for v in state))


def main(mode: str) -> None:
    if mode == "SEMI_AUTO_PARALLEL":
        ms.set_context(mode=ms.GRAPH_MODE)
        init()
        assert get_group_size() == RANKS, get_group_size()
        context.set_auto_parallel_context(parallel_mode=ParallelMode.SEMI_AUTO_PARALLEL, gradients_mean=True,
                                          full_batch=True)  # fmt: skip
        train(f"{mode} sparse", sparse=True, batch=BATCH)
        context.reset_auto_parallel_context()
    elif mode == "GRAPH_MODE_LAZY":  # the parallel run's one-device reference
        ms.set_context(mode=ms.GRAPH_MODE)
        train("GRAPH_MODE lazy", sparse=True, batch=BATCH * RANKS, lazy=True)
    else:
        ms.set_context(mode=getattr(ms, mode))
        train(mode, sparse=False, batch=BATCH)


if __name__ == "__main__":
    for mode_name in sys.argv[1:] or ["PYNATIVE_MODE"]:
        main(mode_name)
