"""Four steps of the zoo's Transformer-XL language model (research/nlp/transformer_xl/src): an AdaptiveEmbedding scaled
by sqrt(d_model), sinusoidal relative positions (mindspore.numpy arange and outer, Sin, Cos), RelPartialLearnable
decoder layers (a qkv Dense split in three, the r_w_bias / r_r_bias content and position terms by BatchMatMul of
transposed heads, the relative shift by a zero pad, `view` and `[1:]`, a causal mask from mindspore.numpy triu filled
by Select with -1e9, Softmax over axis 1, post-LayerNorm residuals, a ReLU feed-forward), the segment memory: a
Parameter `mems` that the forward Assigns (the last mem_len hidden states of every layer) and that the next steps attend
to once FlagModifiedCallback has set `is_first_iteration` False after step 1, and ProjectedAdaptiveLogSoftmaxLoss
(LogSoftmax, GatherD, LossBase.get_loss) through an output Dense whose weight is tied to the embedding table (the zoo's
tie_weight). Trained by Model(net, optimizer=nn.Adam) on train.py's warm-up-free cosine lr list.

A MindSpore script: run it with MindSpore (the golden) or with `kiln run`. Usage: train_transformer_xl.py MODE...; for
each MODE it prints `MODE losses: ...` and `MODE state: ...` (the sum of each trainable parameter, the absolute sum of
each Adam moment, then the sum of the memory). The zoo's enwik8 base is 12 layers of 512 (8 heads of 64), segments
and memories of 512, batch 22, lr 2.5e-4; here 2 layers of 8 (2 heads of 4, feed-forward 16), 20 tokens, segments and
memories of 5, batch 3, lr 1e-3 over 8 steps, dropout 0 (its Dropout draws from MindSpore's generator), NumPy-seeded
weights (the zoo's normal_ initialisers draw from MindSpore's).
"""

import math
import os
import sys

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from src.callback.flag import FlagModifiedCallback  # noqa: E402
from src.model.mem_transformer import MemTransformerLM  # noqa: E402

TOKENS, LAYERS, HEADS, D_MODEL, D_HEAD, D_INNER, TGT, MEM, BATCH, STEPS, MAX_STEP, LR = (
    20, 2, 2, 8, 4, 16, 5, 5, 3, 4, 8, 1e-3)  # fmt: skip


def cosine_lr() -> list:
    """train.py's dynamic_lr with no warm-up: a linear times a cosine decay, floored at lr_min 0."""
    return [max(0.0, ((MAX_STEP - i) / MAX_STEP * 0.5 * (1 + math.cos(math.pi * 2 * 0.47 * i / MAX_STEP)) + 1e-5) * LR)
            for i in range(MAX_STEP)]  # fmt: skip


class LossRecorder(ms.Callback):
    """Keeps each step's loss."""

    def __init__(self, losses: list):
        super().__init__()
        self.losses = losses

    def step_end(self, run_context):
        self.losses.append(float(run_context.original_args().net_outputs.asnumpy()))


def main(mode: str) -> None:
    ms.set_context(mode=getattr(ms, mode))
    net = MemTransformerLM(TOKENS, LAYERS, HEADS, D_MODEL, D_HEAD, D_INNER, 0.0, 0.0, batch_size=BATCH,
                           d_embed=D_MODEL, div_val=1, pre_lnorm=False, tgt_len=TGT, ext_len=0, mem_len=MEM,
                           eval_tgt_len=TGT, cutoffs=[], same_length=False, clamp_len=-1)  # fmt: skip
    rng = np.random.RandomState(51)
    for p in sorted(net.trainable_params(), key=lambda q: q.name):
        if "gamma" in p.name:
            data = 1 + 0.1 * rng.standard_normal(p.shape)
        elif len(p.shape) > 1:
            data = (0.5 if "embedding" in p.name else 1 / np.sqrt(p.shape[-1])) * rng.standard_normal(p.shape)
        else:
            data = 0.1 * rng.standard_normal(p.shape)
        p.set_data(Tensor(data.astype(np.float32)))
    optimizer = nn.Adam(net.trainable_params(), learning_rate=cosine_lr())
    model = ms.Model(network=net, loss_fn=None, optimizer=optimizer, metrics=None)
    stream = np.random.RandomState(52).randint(0, TOKENS, (STEPS * TGT + 1, BATCH)).astype(np.int32)
    data = np.stack([stream[i * TGT : (i + 1) * TGT] for i in range(STEPS)])
    target = np.stack([stream[i * TGT + 1 : (i + 1) * TGT + 1] for i in range(STEPS)])
    dataset = ms.dataset.NumpySlicesDataset({"data": data, "target": target}, shuffle=False)
    losses = []
    model.train(1, dataset, callbacks=[FlagModifiedCallback(), LossRecorder(losses)], dataset_sink_mode=False)
    state = [float(p.asnumpy().astype(np.float64).sum()) for p in optimizer.parameters]
    state += [float(np.abs(m.asnumpy().astype(np.float64)).sum()) for m in (*optimizer.moment1, *optimizer.moment2)]
    state.append(float(net.mems.asnumpy().astype(np.float64).sum()))
    print(f"{mode} losses:", " ".join(repr(v) for v in losses))
    print(f"{mode} state:", " ".join(repr(v) for v in state))


if __name__ == "__main__":
    for mode_name in sys.argv[1:] or ["PYNATIVE_MODE"]:
        main(mode_name)
