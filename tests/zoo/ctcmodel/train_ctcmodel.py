"""Four steps of the zoo's CTCModel (research/audio/ctcmodel/src: a 2-layer bidirectional nn.LSTM over (T, B, F)
features from zero (h0, c0), its output cast to float16 and masked, a Dense run in float16 by to_float, cast back to
float32; the TensorFlow-style P.CTCLoss(ctc_merge_repeated=True, ignore_longer_outputs_than_inputs=True) on sparse
labels whose indices are a Parameter and whose padding is the blank class, ReduceMean; WithCtcLossCell and the zoo's
TrainingWrapper: a Fill sensitivity, GradOperation(sens_param=True), clip_by_global_norm(5.0)) with Adam (eps 1e-3)
on the cosine_decay_lr array, through Model.train, as its train.py wires them.

A MindSpore script: run it with MindSpore (the golden) or with `kiln run`. Usage: train_ctcmodel.py MODE...; for each
MODE it prints `MODE losses: ...` and `MODE state: ...` (the sum of each parameter and the absolute sum of each Adam
moment after the last step). The zoo's config is 39 features, 128 hidden, 62 classes, batch 64, 1555 frames, labels of
75; here 5 features, 6 hidden, 7 classes (blank 6), batch 3, 16 frames, labels of 6 (each 2-5 phonemes, padded with
the blank as the zoo's preprocess_data.py pads them). NumPy-seeded weights (the zoo's initializers draw from
MindSpore's generator).
"""

import os
import sys

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/zoo: LossRecorder
from loss_recorder import LossRecorder  # noqa: E402
from src.loss import CTC_Loss  # noqa: E402
from src.model import CTCModel  # noqa: E402
from src.model_for_train import TrainingWrapper, WithCtcLossCell  # noqa: E402

FEATURES, HIDDEN, CLASSES, BATCH, FRAMES, LABELS, LAYERS, STEPS = 5, 6, 7, 3, 16, 6, 2, 4
LR_INIT, CLIP = 0.005, 5.0


def data(rng: np.random.RandomState) -> dict:
    """STEPS * BATCH utterances padded as preprocess_data.py pads them: features and masks zero past each length,
    labels padded with the blank (CLASSES - 1). The CTC sequence length is FRAMES for all: MindSpore's kernel leaves
    the gradient rows past a sample's length unwritten (uninitialised memory, 0 or not from one call to the next in
    one process), and its bprop feeds them back."""
    n = STEPS * BATCH
    speech = rng.randint(FRAMES // 2, FRAMES + 1, size=n)
    seq_len = np.full(n, FRAMES, np.int32)
    label_len = rng.randint(2, LABELS, size=n)
    labels = np.full((n, LABELS), CLASSES - 1, np.int32)
    feature = np.zeros((n, FRAMES, FEATURES), np.float32)
    masks = np.zeros((n, FRAMES, 2 * HIDDEN), np.float32)
    centres = rng.standard_normal((CLASSES - 1, FEATURES))
    for i in range(n):
        labels[i, : label_len[i]] = rng.randint(0, CLASSES - 1, size=label_len[i])
        # Each label held for a few frames, then noise: a learnable alignment.
        frames = np.repeat(labels[i, : label_len[i]], speech[i] // label_len[i] + 1)[: speech[i]]
        feature[i, : speech[i]] = centres[frames] + 0.3 * rng.standard_normal((speech[i], FEATURES))
        masks[i, : speech[i]] = 1
    return {"feature": feature, "masks": masks, "label": labels, "seq_len": seq_len}


def main(mode: str) -> None:
    ms.set_context(mode=getattr(ms, mode))
    columns = data(np.random.RandomState(31))
    net = CTCModel(input_size=FEATURES, batch_size=BATCH, hidden_size=HIDDEN, num_class=CLASSES, num_layers=LAYERS)
    rng = np.random.RandomState(32)
    for p in net.trainable_params():
        scale = 0.05 if "bias" in p.name.rsplit(".", 1)[-1] else 1 / np.sqrt(HIDDEN)
        p.set_data(Tensor(rng.uniform(-scale, scale, size=p.shape).astype(np.float32)))
    loss_net = WithCtcLossCell(net, CTC_Loss(batch_size=BATCH, max_label_length=LABELS))
    lr = nn.dynamic_lr.cosine_decay_lr(0.0, LR_INIT, STEPS, 1, STEPS)
    opt = nn.Adam(net.trainable_params(), learning_rate=lr, eps=1e-3)
    train_net = TrainingWrapper(loss_net, opt, clip_global_norm_value=CLIP)
    train_net.set_train()
    model = ms.Model(train_net)
    recorder = LossRecorder()
    dataset = ms.dataset.NumpySlicesDataset(columns, shuffle=False).batch(BATCH)
    model.train(1, dataset, callbacks=[recorder], dataset_sink_mode=False)
    state = [float(p.asnumpy().astype(np.float64).sum()) for p in opt.parameters]
    state += [float(np.abs(m.asnumpy().astype(np.float64)).sum()) for m in (*opt.moment1, *opt.moment2)]
    print(f"{mode} losses:", " ".join(repr(v) for v in recorder.losses))
    print(f"{mode} state:", " ".join(repr(v) for v in state))


if __name__ == "__main__":
    for mode_name in sys.argv[1:] or ["PYNATIVE_MODE"]:
        main(mode_name)
