"""Four steps of the zoo's DLRM click-through-rate network (research/recommend/dlrm/src/dlrm.py): the bottom MLP of
DenseLayers (MatMul, BiasAdd, ReLU; float16 when `convert_dtype`, as its GPU config runs), MultiTableEmbeddings (one
nn.Embedding per field, CellList), the 'dot' interaction (Concat, BatchMatMul of the features with their transpose,
the lower triangle gathered by `Z[:, li, lj]`, with or without the diagonal), the top MLP, NetWithLossClass
(SigmoidCrossEntropyWithLogits, ReduceMean) and TrainStepWrap (Fill sensitivity of 1024, GradOperation, SGD with
loss_scale 1024), through Model.train as train.py wires them.

A MindSpore script: run it with MindSpore (the golden) or with `kiln run`. Usage: train_dlrm.py MODE...; for each
MODE and case it prints `MODE CASE losses: ...` and `MODE CASE state: ...` (the sum of each network parameter, then
of SGD's accum and stat). The zoo's config is 13 dense and 26 categorical fields (tables of up to 10 million rows),
embeddings of 16, MLPs of 512-256-64-16 and 512-256-1, batch 1280; here 4 dense and 3 categorical fields (tables of
7, 5 and 9 rows), embeddings of 4, MLPs of 8-4 and 8-1, batch 4, NumPy-seeded weights. The `resumed` case sets SGD's
momentum (0.9), accum and stat (of mixed signs) from NumPy, as a run resumed from a checkpoint would hold them: the
zoo's SGD has momentum 0, which leaves both untouched.
"""

import os
import sys
import types

import mindspore as ms
import numpy as np
from mindspore import Tensor

try:
    import sklearn.metrics  # noqa: F401
except ImportError:  # dlrm.py imports accuracy_score for AccMetric.eval (not training); Kiln's tests lack sklearn
    sklearn = types.ModuleType("sklearn")
    sklearn.metrics = types.ModuleType("sklearn.metrics")
    sklearn.metrics.accuracy_score = None
    sys.modules["sklearn"], sys.modules["sklearn.metrics"] = sklearn, sklearn.metrics

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from src.dlrm import ModelBuilder  # noqa: E402

BATCH, STEPS, SIZES, DENSE = 4, 4, [7, 5, 9], 4
CASES = {"fp32": (False, False, False), "fp16": (True, False, False), "itself": (False, True, False),
         "resumed": (False, False, True)}  # fmt: skip


def config(convert_dtype: bool, itself: bool) -> types.SimpleNamespace:
    return types.SimpleNamespace(
        batch_size=BATCH, slot_dim=len(SIZES), dense_dim=DENSE, data_vocab_size=sum(SIZES), data_emb_dim=4,
        keep_prob=1.0, interaction_op="dot", convert_dtype=convert_dtype, interaction_itself=itself,
        embedding_type="multi", bottom_mlp_args=[8, 4], top_mlp_args=[8, 1], categorical_feature_sizes=SIZES,
        embedding_target="DEVICE", sparse=True, learning_rate=0.15, loss_scale=1024.0, optimizer="sgd",
    )  # fmt: skip


class LossRecorder(ms.train.callback.Callback):
    """Keeps each step's loss."""

    def __init__(self):
        super().__init__()
        self.losses = []

    def step_end(self, run_context):
        self.losses.append(float(run_context.original_args().net_outputs.asnumpy()))


def main(mode: str, case: str) -> None:
    convert_dtype, itself, resumed = CASES[case]
    ms.set_context(mode=getattr(ms, mode))
    cfg = config(convert_dtype, itself)
    train_net, eval_net = ModelBuilder(cfg, cfg).get_train_eval_net()
    network = train_net.network.network
    rng = np.random.RandomState(21)
    params = sorted(network.trainable_params(), key=lambda q: q.name)
    for p in params:
        p.set_data(Tensor((rng.standard_normal(p.shape) * (0.5 if len(p.shape) > 1 else 0.1)).astype(np.float32)))
    opt = train_net.optimizer
    if resumed:
        opt.momentum.set_data(Tensor(np.float32(0.9)))
        for state in (*opt.accum, *opt.stat):
            state.set_data(Tensor(rng.standard_normal(state.shape).astype(np.float32)))
    model = ms.Model(train_net, eval_network=eval_net)
    data = np.random.RandomState(23)
    n = BATCH * STEPS
    cols = {"cats": np.stack([data.randint(0, s, n) for s in SIZES], 1).astype(np.int32),
            "nums": data.standard_normal((n, DENSE)).astype(np.float32),
            "label": (data.uniform(size=(n, 1)) < 0.5).astype(np.float32)}  # fmt: skip
    ds = ms.dataset.NumpySlicesDataset(cols, shuffle=False).batch(BATCH)
    recorder = LossRecorder()
    model.train(1, ds, callbacks=[recorder], dataset_sink_mode=False)
    state = [float(p.asnumpy().astype(np.float64).sum()) for p in params]
    state += [float(s.asnumpy().astype(np.float64).sum()) for s in (*opt.accum, *opt.stat)]
    print(f"{mode} {case} losses:", " ".join(repr(v) for v in recorder.losses))
    print(f"{mode} {case} state:", " ".join(repr(v) for v in state))


if __name__ == "__main__":
    for mode_name in sys.argv[1:] or ["PYNATIVE_MODE"]:
        for name in CASES:
            main(mode_name, name)
