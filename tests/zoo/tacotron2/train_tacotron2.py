"""Four steps of the zoo's Tacotron2 (official/audio/Tacotron2/src): the encoder's Conv1d + BatchNorm2d over an
expanded axis + ReLU, the zoo's own bidirectional LSTM (src/rnns.py: a Python loop of float16 LSTM cells, per-sample
lengths by Select on `seq_length > t`, ReverseSequence for the backward direction) and Select of the padded steps;
the decoder's Prenet, then per output frame in a Python loop: an LSTMCell of Dense layers, location-sensitive attention
(Conv1d over the previous and cumulative weights, float16 Dense layers by to_float, Tanh, the text mask by Select
against a float16 -inf fill, Softmax, BatchMatMul), the decoder LSTMCell, the mel projection and the gate; Stack of
the frames in slices of 50, the Postnet (Conv1d + BatchNorm2d + Tanh), Tacotron2's output masks (Select against 0 and
1e3 fills), Tacotron2Loss (MSE of the mel outputs scaled by 10, BCEWithLogits of the gate), and TrainStepWrap: a
GradOperation with the loss scale as a float16 sensitivity, unscaling by a MultitypeFuncGraph, clipping by
nn.ClipByNorm built inside the clip function, DynamicLossScaleUpdateCell (2**12), nn.Adam on train.py's warm-up lr
array; train.py's `loss_net.to_float(float16)`.

A MindSpore script: run it with MindSpore (the golden) or with `kiln run`. Usage: train_tacotron2.py MODE...; for
each MODE it prints `MODE losses: ...` (each step's loss) and `MODE state: ...` (the sum of each trainable parameter,
of each BatchNorm moving statistic, the absolute sum of each Adam moment, and the loss scale). The zoo's hparams are
80 mels, 3 frames per step, 512-wide text embeddings and encoder, decoder and attention LSTMs of 1024, batch 16; here
(set on the zoo's `hparams` class before the network is built) 4 mels, 2 frames per step, LSTMs of 16, attention 8,
prenet 8, postnet 8 wide with 3 convolutions, one encoder convolution, batch 2 of 5 symbols and 8 mel frames; the
encoder stays 512 wide (its `fullzeros` and the rnn mask are 512 wide in the zoo's code). Every nn.Dropout is built as
an Identity (MindSpore's generator is not Kiln's; the Prenet's is always on), the weights are NumPy-seeded.
MindSpore's CPU has no float-status kernels (TrainStepWrap's NPUGetFloatStatus fails there), so the driver's subclass
runs TrainStepWrap's construct with the overflow flag taken as "not all gradients finite".
"""

import os
import sys

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn, ops
from mindspore.nn.wrap.loss_scale import DynamicLossScaleUpdateCell
from mindspore.ops import functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from src.hparams import hparams as hps  # noqa: E402

SMALL = dict(batch_size=2, num_mels=4, n_frames_per_step=2, encoder_kernel_size=3, encoder_n_convolutions=1,
             decoder_rnn_dim=16, attention_rnn_dim=16, prenet_dim=8, attention_dim=8, attention_location_n_filters=4,
             attention_location_kernel_size=3, postnet_embedding_dim=8, postnet_kernel_size=3,
             postnet_n_convolutions=3, max_text_len=5, p_attention_dropout=0.0, p_decoder_dropout=0.0)  # fmt: skip
for _name, _value in SMALL.items():
    setattr(hps, _name, _value)

from src import tacotron2 as zoo  # noqa: E402  (reads hps when its cells are built)

LENGTHS, FRAMES, STEPS = (5, 3), (8, 5), 4


class TrainStep(zoo.TrainStepWrap):
    """TrainStepWrap's construct with an overflow check MindSpore's CPU can run: not all gradients finite."""

    def construct(self, text_padded, input_length, mel_padded, gate_padded, text_mask, mel_mask, rnn_mask):
        weights = self.weights
        loss = self.network(text_padded, input_length, mel_padded, gate_padded, text_mask, mel_mask, rnn_mask)
        scale_sense = self.loss_scale
        grads = self.grad(self.network, weights)(text_padded, input_length, mel_padded, gate_padded, text_mask,
                                                 mel_mask, rnn_mask, self.cast(scale_sense, ms.float16))  # fmt: skip
        grads = self.grad_reducer(grads)
        grads = self.hyper_map(F.partial(zoo.grad_scale, self.degree * scale_sense), grads)
        grads = self.hyper_map(F.partial(zoo.clip_grad, zoo.GRADIENT_CLIP_TYPE, zoo.GRADIENT_CLIP_VALUE), grads)
        cond = ops.logical_not(ops.stack([ops.isfinite(g).all() for g in grads]).all())
        overflow = self.loss_scaling_manager(self.loss_scale, cond)
        if not overflow:
            self.optimizer(grads)
        return loss, scale_sense.value()


class NoDropout(nn.Cell):
    """Built in place of every nn.Dropout of the zoo's network."""

    def __init__(self, p=0.5):
        super().__init__()

    def construct(self, x):
        return x


def get_lr(init_lr: float, total_step: int, anneal_step: int) -> np.ndarray:
    """train.py's warm-up rate array (src/callback.py's get_lr, which imports the zoo's callbacks)."""
    steps = np.arange(1, total_step + 1)
    return np.array([init_lr * anneal_step**0.5 * min(s * anneal_step**-1.5, s**-0.5) for s in steps], np.float32)


def batches() -> list:
    """STEPS batches as the zoo's dataset pads them: text padded with 1, masks, gate 1 from the last frame on."""
    rng = np.random.RandomState(92)
    out = []
    for _ in range(STEPS):
        text = np.ones((hps.batch_size, hps.max_text_len), np.int32)
        mel = np.zeros((hps.batch_size, hps.num_mels, max(FRAMES)), np.float32)
        gate = np.zeros((hps.batch_size, max(FRAMES)), np.float32)
        for b, (length, frames) in enumerate(zip(LENGTHS, FRAMES)):
            text[b, :length] = rng.randint(2, hps.n_symbols, size=length)
            mel[b, :, :frames] = rng.uniform(-0.3, 0.3, (hps.num_mels, frames))
            gate[b, frames - 1 :] = 1
        text_mask = np.arange(hps.max_text_len)[None, :] < np.array(LENGTHS)[:, None]
        mel_mask = np.repeat((np.arange(max(FRAMES))[None, :] < np.array(FRAMES)[:, None])[:, None, :], hps.num_mels, 1)
        rnn_mask = np.repeat(text_mask[:, :, None], 512, 2)
        out.append([text, np.array(LENGTHS, np.int32), mel, gate, text_mask, mel_mask, rnn_mask])
    return out


def main(mode: str) -> None:
    ms.set_context(mode=getattr(ms, mode))
    dropout, nn.Dropout = nn.Dropout, NoDropout
    try:
        net = zoo.Tacotron2()
    finally:
        nn.Dropout = dropout
    rng = np.random.RandomState(91)
    for p in sorted(net.trainable_params(), key=lambda q: q.name):
        if "gamma" in p.name:
            value = 1 + 0.1 * rng.standard_normal(p.shape)
        elif "beta" in p.name or len(p.shape) == 1:
            value = 0.1 * rng.standard_normal(p.shape)
        else:
            value = rng.standard_normal(p.shape) / np.sqrt(np.prod(p.shape[1:]))
        p.set_data(Tensor(value.astype(np.float32)))
    loss_net = zoo.NetWithLossClass(net, zoo.Tacotron2Loss())
    optimizer = nn.Adam(params=net.trainable_params(), learning_rate=Tensor(get_lr(0.002, STEPS, 2)))
    if hps.fp16_flag:  # as train.py
        loss_net.to_float(ms.float16)
    scale_update_cell = DynamicLossScaleUpdateCell(loss_scale_value=2**12, scale_factor=2, scale_window=1000)
    train_net = TrainStep(loss_net, optimizer, scale_update_cell)
    train_net.set_train()
    losses = []
    for batch in batches():
        loss, _ = train_net(*[Tensor(x) for x in batch])
        losses.append(float(loss.asnumpy()))
    params = net.trainable_params()
    stats = [p for p in net.untrainable_params() if "moving" in p.name]
    state = [float(p.asnumpy().astype(np.float64).sum()) for p in (*params, *stats)]
    state += [float(np.abs(m.asnumpy().astype(np.float64)).sum()) for m in (*optimizer.moment1, *optimizer.moment2)]
    state.append(float(train_net.loss_scale.asnumpy()))
    print(f"{mode} names:", " ".join(p.name for p in (*params, *stats)))
    print(f"{mode} losses:", " ".join(repr(v) for v in losses))
    print(f"{mode} state:", " ".join(repr(v) for v in state))


if __name__ == "__main__":
    for mode_name in sys.argv[1:] or ["PYNATIVE_MODE"]:
        main(mode_name)
