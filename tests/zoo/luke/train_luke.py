"""Steps of the zoo's LUKE reading-comprehension fine-tuning (research/nlp/luke/src: RoBERTa word embeddings
and entity embeddings (a float16 projection Dense, averaged mention-position embeddings), the entity-aware
self-attention encoder (word-to-word, word-to-entity, entity-to-word and entity-to-entity queries; float16 Dense,
BatchMatMul, Erf GeLU and LayerNorm by to_float), the span head, LukeForReadingComprehensionWithLoss (two sparse
SoftmaxCrossEntropyWithLogits over clipped positions), train.py's AdamWeightDecay over its decay / no-decay groups
on its CustomWarmUpLR schedule (a tensor `if` on the global step), TrainOneStepCell and Model.train, as do_train
wires them.

A MindSpore script: run it with MindSpore (the golden) or with `kiln run`. Usage: train_luke.py MODE...; for each
MODE it prints `MODE losses: ...` (each sample's loss, step by step) and `MODE state: ...` (the sum of each trainable
parameter, then the absolute sum of each of AdamWeightDecay's moments; CANCELLED below left out). The zoo's config is
luke-large (1024 wide, 24 layers, 512 words and 128 entities); here 16 wide, 2 layers of 2 heads, 8-wide entity
embeddings, batch 3 of 10 words and 4 entities of mentions up to 2 words (EntityAwareSelfAttention splits the keys of
words and entities in halves: their count must be even), dropout 0, five steps (the warm-up schedule's lr is 0 at the
first, then rises and decays), NumPy-seeded weights (the zoo loads a converted PyTorch checkpoint).
"""

import os
import sys
import types
import zlib

import mindspore as ms
import numpy as np
from mindspore import Tensor
from mindspore.train.callback import Callback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from src.luke.config import LukeConfig  # noqa: E402
from src.reading_comprehension.model import LukeForReadingComprehension, LukeForReadingComprehensionWithLoss  # noqa: E402
from src.reading_comprehension.train import _create_optimizer  # noqa: E402

VOCAB, ENTITIES, HIDDEN, ENTITY_EMB, LAYERS, HEADS, FFN = 30, 12, 16, 8, 2, 2, 32
BATCH, WORDS, N_ENT, MENTION, STEPS = 3, 10, 4, 2, 5


def config() -> LukeConfig:
    """The zoo's LukeConfig at a small size."""
    return LukeConfig(
        vocab_size=VOCAB, entity_vocab_size=ENTITIES, bert_model_name="roberta-base", entity_emb_size=ENTITY_EMB,
        hidden_size=HIDDEN, num_hidden_layers=LAYERS, num_attention_heads=HEADS, intermediate_size=FFN,
        hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0, max_position_embeddings=24, type_vocab_size=1,
        initializer_range=0.02, layer_norm_eps=1e-5,
    )  # fmt: skip


def set_weights(net) -> None:
    """NumPy-seeded values for every parameter, each drawn from a generator seeded by its name."""
    for name, p in net.parameters_and_names():
        rng = np.random.RandomState(zlib.crc32(name.encode()))
        if "gamma" in name:
            value = 1.0 + 0.1 * rng.randn(*p.shape)
        elif "beta" in name or "bias" in name:
            value = 0.05 * rng.randn(*p.shape)
        else:
            value = 0.2 * rng.randn(*p.shape)
        p.set_data(Tensor(value.astype(np.float32)))


def batch(rng: np.random.RandomState) -> list:
    """One batch of the zoo's dataLoader columns (int32 arrays), words padded with RoBERTa's id 1."""
    lengths = rng.randint(6, WORDS + 1, BATCH)
    word_ids = rng.randint(2, VOCAB, (BATCH, WORDS))
    word_mask = (np.arange(WORDS)[None] < lengths[:, None]).astype(np.int64)
    word_ids = np.where(word_mask == 1, word_ids, 1)
    segment = np.zeros((BATCH, WORDS))
    entity_ids = rng.randint(1, ENTITIES, (BATCH, N_ENT))
    positions = rng.randint(0, 6, (BATCH, N_ENT, MENTION))
    positions[:, :, 1] = np.where(rng.rand(BATCH, N_ENT) < 0.5, -1, positions[:, :, 0] + 1)
    entity_mask = np.ones((BATCH, N_ENT))
    entity_mask[0, -1] = 0
    entity_segment = np.zeros((BATCH, N_ENT))
    start = rng.randint(0, 6, (BATCH, 1))
    end = start + rng.randint(0, 3, (BATCH, 1))
    arrays = [word_ids, segment, word_mask, entity_ids, positions, entity_segment, entity_mask, start, end]
    return [a.astype(np.int32) for a in arrays]


class LossRecorder(Callback):
    """Keeps each step's losses (the zoo's loss is per sample: the loss's default reduction 'none', so
    TrainOneStepCell's sensitivity is all ones)."""

    def __init__(self):
        super().__init__()
        self.losses = []

    def step_end(self, run_context):
        self.losses += [float(v) for v in run_context.original_args().net_outputs.asnumpy().reshape(-1)]


COLUMNS = ["word_ids", "word_segment_ids", "word_attention_mask", "entity_ids", "entity_position_ids",
           "entity_segment_ids", "entity_attention_mask", "start_positions", "end_positions"]  # fmt: skip


# Left out of the sums: parameters whose gradient a softmax cancels (the key biases: every query's scores shift
# alike; the span head's bias and the last LayerNorm's beta: every position's logit shifts alike), so that
# AdamWeightDecay steps them on float16 rounding noise
CANCELLED = ("key.bias", "qa_outputs.bias", f"layer.{LAYERS - 1}.output.LayerNorm.beta")


def main(mode: str) -> None:
    ms.set_context(mode=getattr(ms, mode))
    network = LukeForReadingComprehension(config())
    network.luke.entity_embeddings.entity_embeddings.embedding_table.requires_grad = False  # run_squad_train.py's
    set_weights(network)
    args = types.SimpleNamespace(
        num_train_epochs=1, learning_rate=2e-3, warmup_proportion=0.4, weight_decay=0.01, adam_eps=1e-6
    )
    optimizer = _create_optimizer(args, network, STEPS)
    net_with_loss = LukeForReadingComprehensionWithLoss(network)
    model = ms.Model(ms.nn.TrainOneStepCell(net_with_loss, optimizer))
    rng = np.random.RandomState(7)
    batches = [batch(rng) for _ in range(STEPS)]
    data = {name: np.concatenate([b[i] for b in batches]) for i, name in enumerate(COLUMNS)}
    dataset = ms.dataset.NumpySlicesDataset(data, shuffle=False).batch(BATCH)
    recorder = LossRecorder()
    model.train(1, dataset, callbacks=[recorder], dataset_sink_mode=False)
    losses = recorder.losses
    kept = [i for i, p in enumerate(optimizer.parameters) if not p.name.endswith(CANCELLED)]
    state = [float(optimizer.parameters[i].asnumpy().astype(np.float64).sum()) for i in kept]
    for moments in (optimizer.moments1, optimizer.moments2):
        state += [float(np.abs(moments[i].asnumpy().astype(np.float64)).sum()) for i in kept]
    print(f"{mode} losses:", " ".join(repr(v) for v in losses))
    print(f"{mode} state:", " ".join(repr(v) for v in state))


if __name__ == "__main__":
    for mode_name in sys.argv[1:] or ["PYNATIVE_MODE"]:
        main(mode_name)
