"""Four AdamWeightDecay steps of a tiny BERT pre-training network (the zoo's official/nlp/Bert: BertNetworkWithLoss,
relative positions, BertLearningRate warm-up then polynomial decay, weight decay on all but LayerNorm and biases)
through one of the zoo's train cells, on fixed random batches.

A MindSpore script: run it with MindSpore (the golden) or with `kiln run`. Usage: train_bert.py CELL MODE...;
CELL is `plain` (BertTrainOneStepCell: a `(1,)` sensitivity, gradients clipped by norm through a
MultitypeFuncGraph under a `@jit` method) or `lossscale` (BertTrainOneStepWithLossScaleCell with a
DynamicLossScaleUpdateCell: the scalar loss-scale Parameter is the sensitivity of the `(1,)` loss, gradients
unscaled, clipped, overflow-checked, the scale updated). MindSpore 2.10 runs `lossscale` on no CPU (its overflow
check is Ascend's NPUGetFloatStatusV2 in GRAPH_MODE; its PyNative refuses the scalar sensitivity), so the goldens
are `plain`'s: the scale is a power of two, so the unscaled gradients, and every number printed, are the same.
For each MODE (PYNATIVE_MODE or GRAPH_MODE) it prints `MODE losses: ...`, `MODE state: ...` (the sum of each
trainable parameter after the last step) and, for `lossscale`, `MODE loss-scale state: ...` (each step's scale
and overflow flag). It imports the vendored `src/` from its own folder.
"""

import os
import sys

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from src.bert_for_pre_training import (  # noqa: E402
    BertNetworkWithLoss,
    BertTrainOneStepCell,
    BertTrainOneStepWithLossScaleCell,
)
from src.bert_model import BertConfig  # noqa: E402
from src.utils import BertLearningRate  # noqa: E402

BATCH, SEQ, VOCAB, MASKED, STEPS = 2, 8, 40, 3, 4


def _decayed(p) -> bool:
    # the zoo's decay_filter (pretrain_config.yaml): no weight decay on LayerNorm parameters and biases
    return "layernorm" not in p.name.lower() and "bias" not in p.name.lower()


def main(cell: str, mode: str) -> None:
    ms.set_context(mode=getattr(ms, mode))
    cfg = BertConfig(
        seq_length=SEQ,
        vocab_size=VOCAB,
        hidden_size=16,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=32,
        hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.0,
        max_position_embeddings=16,
        type_vocab_size=2,
        use_relative_positions=True,
    )
    net = BertNetworkWithLoss(cfg, True)
    # every weight but the LayerNorms' from NumPy, the same on both frameworks (the zoo draws TruncatedNormal)
    rng = np.random.RandomState(3)
    for p in net.get_parameters():
        if "gamma" not in p.name and "beta" not in p.name:
            p.set_data(Tensor((rng.standard_normal(p.shape) * 0.2).astype(np.float32)))
    params = net.trainable_params()
    groups = [
        {"params": [p for p in params if _decayed(p)], "weight_decay": 0.01},
        {"params": [p for p in params if not _decayed(p)], "weight_decay": 0.0},
        {"order_params": params},
    ]
    lr = BertLearningRate(learning_rate=0.01, end_learning_rate=0.0, warmup_steps=2, decay_steps=10, power=5.0)
    optimizer = nn.AdamWeightDecay(groups, learning_rate=lr, eps=1e-6)
    if cell == "lossscale":
        scale = nn.DynamicLossScaleUpdateCell(loss_scale_value=2.0**16, scale_factor=2, scale_window=2)
        train = BertTrainOneStepWithLossScaleCell(net, optimizer, scale_update_cell=scale)
    else:
        train = BertTrainOneStepCell(net, optimizer)
    train.set_train()
    data = np.random.RandomState(0)
    losses, scales = [], []
    for _ in range(STEPS):
        ids = data.randint(1, VOCAB, (BATCH, SEQ)).astype(np.int32)
        mask = np.ones((BATCH, SEQ), np.int32)
        mask[1, 6:] = 0
        types = np.zeros((BATCH, SEQ), np.int32)
        types[:, 4:] = 1
        next_sentence = data.randint(0, 2, (BATCH, 1)).astype(np.int32)
        positions = data.randint(0, SEQ, (BATCH, MASKED)).astype(np.int32)
        masked_ids = data.randint(1, VOCAB, (BATCH, MASKED)).astype(np.int32)
        masked_weights = np.ones((BATCH, MASKED), np.float32)
        masked_weights[1, 2] = 0
        inputs = (ids, mask, types, next_sentence, positions, masked_ids, masked_weights)
        out = train(*(Tensor(a) for a in inputs))
        if cell == "lossscale":
            out, overflow, loss_scale = out
            scales += [float(loss_scale.asnumpy().reshape(-1)[0]), float(overflow.asnumpy().reshape(-1)[0])]
        losses.append(float(out.asnumpy().reshape(-1)[0]))  # the loss has shape (1,)
    state = [float(p.asnumpy().astype(np.float64).sum()) for p in params]
    print(f"{mode} losses:", " ".join(repr(v) for v in losses))
    print(f"{mode} state:", " ".join(repr(v) for v in state))
    if scales:
        print(f"{mode} loss-scale state:", " ".join(repr(v) for v in scales))


if __name__ == "__main__":
    for mode_name in sys.argv[2:] or ["PYNATIVE_MODE"]:
        main(sys.argv[1], mode_name)
