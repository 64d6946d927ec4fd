"""Four Adam steps of the zoo's HAKE knowledge-graph embedding (research/nlp/hake/src: HAKE_GRAPH's Gather of
entity and relation rows, Split into phase, modulus and bias parts, Tensor.clip(max=1), Select of the bias
indicator, Abs, Sin, ops.norm over the last axis and the modulus and phase weights held in Parameters;
HAKENetworkWithLoss_HEAD and _TAIL's self-adversarial negative sampling loss, stop_gradient of a Softmax times
Log(Sigmoid)) through the zoo's HAKETrainOneStepCell (GradOperation with a Fill sensitivity, Depend on the
optimizer) and Model.train, head-corrupted batches then tail-corrupted ones sharing one Adam, as its train.py wires
them.

A MindSpore script: run it with MindSpore (the golden) or with `kiln run`. Usage: train_hake.py MODE...; for each
MODE it prints `MODE losses: ...` (two head steps, then two tail steps) and `MODE state: ...` (the sum of each
parameter and the absolute sum of each Adam moment after the last step). 12 entities, 3 relations, hidden_dim 8,
batches of 4 triplets with 5 corrupted entities each and NumPy-drawn subsampling weights; the zoo's own NumPy
initialisation (uniform_weight, rel_init) under a seeded NumPy generator; learning rate 0.01 (the zoo's 5e-5 barely
moves a 4-step run).
"""

import os
import sys

import mindspore as ms
import numpy as np
from mindspore import ParameterTuple, ops
from mindspore.nn import Adam
from mindspore.train.callback import Callback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from src.HAKE_for_train import HAKENetworkWithLoss_HEAD, HAKENetworkWithLoss_TAIL, HAKETrainOneStepCell  # noqa: E402
from src.HAKE_model import HAKE_GRAPH  # noqa: E402

ENTITIES, RELATIONS, HIDDEN, BATCH, NEGATIVES, STEPS_PER_SIDE = 12, 3, 8, 4, 5, 2


class HakeGraph(HAKE_GRAPH):
    """The zoo's HAKE_GRAPH with its score's `bias_relation.clip(xmin=None, xmax=1)` in MindSpore 2's words,
    `clip(max=1)`: Tensor.clip's bounds are `min` and `max` since MindSpore 2 (2.10 refuses xmin/xmax in both modes,
    as Kiln does); the rest of the score is the zoo's, line for line."""

    def score(self, mod_head, mod_relation, mod_tail, bias_relation, phase_score):
        mod_relation = self.abs(mod_relation)
        bias_relation = bias_relation.clip(max=1)
        indicator = bias_relation < -mod_relation
        bias_relation_new = self.select(indicator, -mod_relation, bias_relation)
        r_score = mod_head * (mod_relation + bias_relation_new) - mod_tail * (1 - bias_relation_new)
        phase_score = self.abs(self.sin(phase_score / 2)).sum(axis=2) * self.phase_weight
        r_score = ops.norm(r_score, dim=2) * self.modulus_weight
        return self.cast(self.gamma - (phase_score + r_score), ms.float32)


class LossRecorder(Callback):
    """Keeps each step's loss."""

    def __init__(self, losses: list):
        super().__init__()
        self.losses = losses

    def step_end(self, run_context):
        self.losses.append(float(run_context.original_args().net_outputs.asnumpy()))


def batches(rng: np.random.RandomState, corrupted_head: bool) -> dict:
    """STEPS_PER_SIDE * BATCH positive triplets (int32), NEGATIVES corrupted entities for each and the
    subsampling weight column (the zoo's TrainDataset gives 1/sqrt(count) weights, shape (1,) per sample). No
    triplet, positive or corrupted, links an entity to itself: with the zoo's initial relation modulus 1 and bias
    1e-6, such a triplet's modulus score is the difference of two equal products, rounding noise whose norm's
    gradient points anywhere (Kiln's two modes then differ from each other by 2e-4 in one gradient row)."""
    n = STEPS_PER_SIDE * BATCH
    heads = rng.randint(0, ENTITIES, n)
    tails = (heads + rng.randint(1, ENTITIES, n)) % ENTITIES
    positive = np.stack([heads, rng.randint(0, RELATIONS, n), tails], axis=1).astype(np.int32)
    # a corrupted entity stands in for the head in head batches, the tail in tail batches: never the other end
    kept = tails if corrupted_head else heads
    negative = ((kept[:, None] + rng.randint(1, ENTITIES, (n, NEGATIVES))) % ENTITIES).astype(np.int32)
    weight = (1.0 / np.sqrt(rng.randint(4, 9, (n, 1)))).astype(np.float32)
    return {"pos_triple": positive, "neg_triples": negative, "subsampling_weight": weight}


def main(mode: str) -> None:
    ms.set_context(mode=getattr(ms, mode))
    np.random.seed(1122)  # the zoo's src/utils.py seeds NumPy at import; HAKE_GRAPH draws its weights from it
    hake = HakeGraph(ENTITIES, RELATIONS, HIDDEN, 6.0, 0.5, 0.5)
    netwithloss_head = HAKENetworkWithLoss_HEAD(hake, 0.5)
    netwithloss_tail = HAKENetworkWithLoss_TAIL(hake, 0.5)
    optimizer = Adam(ParameterTuple(netwithloss_tail.trainable_params()), 0.01)
    netwithgrads_head = HAKETrainOneStepCell(netwithloss_head, optimizer)
    netwithgrads_tail = HAKETrainOneStepCell(netwithloss_tail, optimizer)
    model_head = ms.Model(netwithgrads_head)
    model_tail = ms.Model(netwithgrads_tail)
    rng = np.random.RandomState(3)
    losses = []
    for model, corrupted_head in ((model_head, True), (model_tail, False)):
        dataset = ms.dataset.NumpySlicesDataset(batches(rng, corrupted_head), shuffle=False)
        dataset = dataset.batch(BATCH, drop_remainder=True)
        model.train(1, dataset, callbacks=[LossRecorder(losses)], dataset_sink_mode=False)
    state = [float(p.asnumpy().astype(np.float64).sum()) for p in optimizer.parameters]
    for moments in (optimizer.moment1, optimizer.moment2):
        state += [float(np.abs(m.asnumpy().astype(np.float64)).sum()) for m in moments]
    print(f"{mode} losses:", " ".join(repr(v) for v in losses))
    print(f"{mode} state:", " ".join(repr(v) for v in state))


if __name__ == "__main__":
    for mode_name in sys.argv[1:] or ["PYNATIVE_MODE"]:
        main(mode_name)
