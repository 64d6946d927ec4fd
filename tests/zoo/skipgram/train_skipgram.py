"""The zoo's SkipGram word2vec (research/nlp/skipgram/src/skipgram.py: two nn.Embedding tables, the centre one
initialised by Uniform(0.5/emb) and the neighbour one by Uniform(0), i.e. zeros; Mul, ReduceSum, nn.LogSigmoid,
Transpose, ExpandDims; a per-sample (batch,) loss, not a scalar) trained as its train.py trains it: nn.Adam on the
poly_decay_lr Tensor schedule (src/lr_scheduler.py), nn.TrainOneStepCell, Model.train with dataset_sink_mode and
sink_size (the zoo's print_interval), epochs = steps / sink_size.

A MindSpore script: run it with MindSpore (the golden) or with `kiln run`. Usage: train_skipgram.py MODE...; for each
MODE it prints `MODE losses: ...` (the per-sample loss vector of each step) and `MODE state:
...` (each parameter's sum and the absolute sum of each Adam moment after the last step). Vocabulary 20, embedding 8,
batch 4, 5 negatives, 4 steps: 2 epochs of sink_size 2 over a dataset of 2 batches (MindSpore's CPU build ignores
sink_size and runs whole-dataset epochs, one callback per step, where Kiln follows its GPU and Ascend; with as many
batches as sink_size both run the same steps). The centre table is drawn from a seeded NumPy generator (the zoo's
Uniform draws differ between frameworks), the neighbour table is the zoo's zeros.
"""

import os
import sys

import mindspore as ms
import numpy as np
from mindspore import nn
from mindspore.train.callback import Callback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from src.lr_scheduler import poly_decay_lr  # noqa: E402
from src.skipgram import SkipGram  # noqa: E402

VOCAB, EMB, BATCH, NEG, STEPS, SINK = 20, 8, 4, 5, 4, 2


class LossRecorder(Callback):
    """Keeps the loss vector of each step_end."""

    def __init__(self, losses: list):
        super().__init__()
        self.losses = losses

    def step_end(self, run_context):
        self.losses += [float(v) for v in run_context.original_args().net_outputs.asnumpy().reshape(-1)]


def main(mode: str) -> None:
    ms.set_context(mode=getattr(ms, mode))
    net = SkipGram(VOCAB, EMB)
    rng = np.random.RandomState(5)
    net.c_emb.embedding_table.set_data(ms.Tensor(rng.uniform(-0.5 / EMB, 0.5 / EMB, (VOCAB, EMB)).astype(np.float32)))
    data = {
        "c_words": rng.randint(0, VOCAB, SINK * BATCH).astype(np.int32),
        "p_words": rng.randint(0, VOCAB, SINK * BATCH).astype(np.int32),
        "n_words": rng.randint(0, VOCAB, (SINK * BATCH, NEG)).astype(np.int32),
    }
    dataset = ms.dataset.NumpySlicesDataset(data, shuffle=False).batch(BATCH, drop_remainder=True)
    lrs = ms.Tensor(poly_decay_lr(0.05, 0.005, STEPS, STEPS, 1, update_decay_step=False))
    optim = nn.Adam(net.trainable_params(), learning_rate=lrs)
    model = ms.Model(nn.TrainOneStepCell(network=net, optimizer=optim))
    losses = []
    model.train(
        epoch=STEPS // SINK,
        train_dataset=dataset,
        callbacks=[LossRecorder(losses)],
        dataset_sink_mode=True,
        sink_size=SINK,
    )
    state = [float(p.asnumpy().astype(np.float64).sum()) for p in optim.parameters]
    for moments in (optim.moment1, optim.moment2):
        state += [float(np.abs(m.asnumpy().astype(np.float64)).sum()) for m in moments]
    print(f"{mode} losses:", " ".join(repr(v) for v in losses))
    print(f"{mode} state:", " ".join(repr(v) for v in state))


if __name__ == "__main__":
    for mode_name in sys.argv[1:] or ["PYNATIVE_MODE"]:
        main(mode_name)
