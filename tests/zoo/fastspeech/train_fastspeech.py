"""Four steps of the zoo's FastSpeech (research/audio/FastSpeech/src): the FFT-block encoder (word and frozen
positional nn.Embedding, multi-head attention dividing by `np.power(d_k, 0.5)`, a -inf mask by mindspore.numpy.where
and a `@constexpr` Fill, Softmax, LayerNorm, Conv1d feed-forward layers with 3-D weight_init initializers), the
LengthRegulator (its DurationPredictor of Conv1d + LayerNorm + ReLU, the alignment built by a Python loop of cumsum,
a float64 Concat, Tile, comparisons against a Meshgrid and in-place rows `alignment[i] = where(...)`, BatchMatMul), the
FFT-block decoder, the mel Dense and its masks, the CBHG postnet (a bank of 8 Conv1d + BatchNorm2d, MaxPool1d 'same',
projections, 4 Highway layers, a bidirectional nn.GRU), LossWrapper (two MSELoss and an L1Loss of the durations), and
train.py's wiring: the positional tables frozen, nn.Adam(beta2 0.98, eps 1e-9) on its warm-up rate list,
Model(network, optimizer).

A MindSpore script: run it with MindSpore (the golden) or with `kiln run`. Usage: train_fastspeech.py MODE...; for
each MODE it prints `MODE losses: ...` (each step's loss) and `MODE state: ...` (the sum of each parameter, then the
absolute sum of each Adam moment). The zoo's config (default_config.yaml, read with the command line at import by its
src/cfg/config.py) is 80 mels, width 256, 4 layers, 2 heads, batch 32, 900 mel frames and 200 symbols; Kiln's stand-in
src/cfg/config.py gives 4 mels, width 8, 1 layer, 2 heads, batch 2, 10 mel frames and 5 symbols. Every nn.Dropout is
built as an Identity (MindSpore's generator is not Kiln's), the weights are NumPy-seeded.
"""

import os
import sys

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn
from mindspore.train import Model

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from src.cfg.config import config as hp  # noqa: E402
from src.model import FastSpeech, LossWrapper  # noqa: E402

LENGTHS, DURATIONS, STEPS = (5, 3), ((2, 1, 3, 2, 1), (3, 2, 2, 0, 0)), 4


class NoDropout(nn.Cell):
    """Built in place of every nn.Dropout of the zoo's network."""

    def __init__(self, p=0.5):
        super().__init__()

    def construct(self, x):
        return x


def lr_scheduler(cfg, steps_per_epoch, p_num):
    """train.py's."""
    d_model = cfg.decoder_dim
    lr_init = np.power(d_model, -0.5) * cfg.lr_scale
    warmup_steps = cfg.n_warm_up_step
    total_steps = cfg.epochs * steps_per_epoch
    learning_rate = []
    for step in range(1, total_steps + 1):
        lr_at_step = np.min([np.power(step * p_num, -0.5), np.power(warmup_steps, -1.5) * step])
        learning_rate.append(lr_at_step * lr_init)
    return learning_rate


def set_trainable_params(params):
    """train.py's: the positional encoding tables are frozen."""
    trainable_params = []
    for param in params:
        if param.name.endswith("position_enc.embedding_table"):
            param.requires_grad = False
        else:
            trainable_params.append(param)
    return trainable_params


def batches():
    """STEPS batches as the zoo's dataset pads them: symbols and positions 0 past each text, durations, mel frames."""
    rng = np.random.RandomState(102)
    out = []
    for _ in range(STEPS):
        text = np.zeros((hp.batch_size, hp.character_max_length), np.float32)
        src_pos = np.zeros_like(text)
        duration = np.zeros((hp.batch_size, hp.character_max_length), np.int32)
        mel_pos = np.zeros((hp.batch_size, hp.mel_max_length), np.float32)
        mel = np.zeros((hp.batch_size, hp.mel_max_length, hp.num_mels), np.float32)
        for b, (length, dur) in enumerate(zip(LENGTHS, DURATIONS)):
            text[b, :length] = rng.randint(4, hp.vocab_size, size=length)
            src_pos[b, :length] = np.arange(1, length + 1)
            duration[b] = dur
            frames = sum(dur)
            mel_pos[b, :frames] = np.arange(1, frames + 1)
            mel[b, :frames] = rng.uniform(-1, 1, (frames, hp.num_mels))
        max_len = np.full((hp.batch_size,), hp.mel_max_length, np.int64)
        out.append([text, src_pos, mel_pos, duration, mel, max_len])
    return out


def main(mode):
    ms.set_context(mode=getattr(ms, mode))
    dropout, nn.Dropout = nn.Dropout, NoDropout
    try:
        net = FastSpeech()
    finally:
        nn.Dropout = dropout
    network = LossWrapper(net)
    network.set_train(True)
    rng = np.random.RandomState(101)
    for p in sorted(network.trainable_params(), key=lambda q: q.name):
        if p.name.endswith("position_enc.embedding_table"):
            continue
        if "gamma" in p.name:
            value = 1 + 0.1 * rng.standard_normal(p.shape)
        elif "beta" in p.name or len(p.shape) == 1:
            value = 0.1 * rng.standard_normal(p.shape)
        else:
            value = rng.standard_normal(p.shape) / np.sqrt(np.prod(p.shape[1:]))
        p.set_data(Tensor(value.astype(np.float32)))
    trainable = set_trainable_params(network.trainable_params())
    opt = nn.Adam(trainable, beta1=0.9, beta2=0.98, eps=1e-9, learning_rate=lr_scheduler(hp, STEPS, 1))
    model = Model(network, optimizer=opt)
    train_net = model._train_network
    losses = []
    for batch in batches():
        losses.append(float(train_net(*[Tensor(x) for x in batch]).asnumpy()))
    params = [p for p in network.get_parameters()]
    state = [float(p.asnumpy().astype(np.float64).sum()) for p in params]
    state += [float(np.abs(m.asnumpy().astype(np.float64)).sum()) for m in (*opt.moment1, *opt.moment2)]
    print(f"{mode} names:", " ".join(p.name for p in params))
    print(f"{mode} losses:", " ".join(repr(v) for v in losses))
    print(f"{mode} state:", " ".join(repr(v) for v in state))


if __name__ == "__main__":
    for mode_name in sys.argv[1:] or ["PYNATIVE_MODE"]:
        main(mode_name)
