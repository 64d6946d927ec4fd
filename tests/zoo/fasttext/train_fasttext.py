"""Three Adam steps of the zoo's FastText through its own train cell (`FastTextTrainOneStepCell`: gradient
clipping by norm through a MultitypeFuncGraph, a `(1,)`-shaped sensitivity) and `Model.train` on a fixed tiny
dataset, the way the zoo's train.py runs it.

A MindSpore script: run it with MindSpore (the golden) or with `kiln run`. Usage: train_fasttext.py MODE...,
each MODE PYNATIVE_MODE or GRAPH_MODE (one process trains once per mode, from the same initial weights); for
each it prints `MODE losses: a b c` and `MODE state: ...` (the sum of each parameter and the absolute sum of each
Adam moment after the last step). It imports the vendored `src/fasttext_train.py` from its own folder.
"""

import os
import sys

import mindspore as ms
import numpy as np
from mindspore import Tensor
from mindspore.common import dtype as mstype
from mindspore.nn.optim import Adam

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/zoo: LossRecorder
from loss_recorder import LossRecorder  # noqa: E402
from src.fasttext_train import FastTextNetWithLoss, FastTextTrainOneStepCell  # noqa: E402

VOCAB, DIMS, CLASSES, BATCH, LENGTH, STEPS = 50, 16, 4, 4, 10, 3


def main(mode: str) -> None:
    ms.set_context(mode=getattr(ms, mode))
    net_with_loss = FastTextNetWithLoss(VOCAB, DIMS, CLASSES)
    # the table starts at zero as the zoo has it (padding_idx=0); the Dense layer's weights come from NumPy, the
    # same on both frameworks
    rng = np.random.RandomState(1)
    for p in net_with_loss.get_parameters():
        if "fc" in p.name:
            p.set_data(Tensor(rng.uniform(-0.5, 0.5, p.shape).astype(np.float32)))
    lr = Tensor(np.array([0.2, 0.1, 0.05], np.float32), mstype.float32)  # one learning rate per step
    optimizer = Adam(net_with_loss.trainable_params(), lr, beta1=0.9, beta2=0.999)
    model = ms.Model(FastTextTrainOneStepCell(net_with_loss, optimizer=optimizer))
    data = np.random.RandomState(0)
    tokens = data.randint(1, VOCAB, (STEPS, BATCH, LENGTH)).astype(np.int32)
    tokens[:, :, 7:] = 0  # padding, id 0
    lengths = np.full((STEPS, BATCH, 1), 7, np.int32)
    labels = data.randint(0, CLASSES, (STEPS, BATCH, 1)).astype(np.int32)
    columns = {"src_token_text": tokens, "src_tokens_text_length": lengths, "label_idx_tag": labels}
    recorder = LossRecorder()
    model.train(1, ms.dataset.NumpySlicesDataset(columns, shuffle=False), callbacks=[recorder], dataset_sink_mode=False)
    state = [float(p.asnumpy().astype(np.float64).sum()) for p in net_with_loss.get_parameters()]
    # the moments' absolute sums: their plain sums cancel to rounding noise
    state += [float(np.abs(m.asnumpy().astype(np.float64)).sum()) for m in (*optimizer.moment1, *optimizer.moment2)]
    print(f"{mode} losses:", " ".join(repr(v) for v in recorder.losses))
    print(f"{mode} state:", " ".join(repr(v) for v in state))


if __name__ == "__main__":
    for mode_name in sys.argv[1:] or ["PYNATIVE_MODE"]:
        main(mode_name)
