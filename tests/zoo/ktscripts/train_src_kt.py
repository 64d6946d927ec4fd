"""Four steps of the zoo's knowledge-tracing models (research/recommend/SRC/KTScripts: PredictModel's item Embedding,
the previous answer concatenated to each step, an nn.LSTM (DKT) or nn.GRU (GRU4Rec) with batch_first, an MLP of Dense,
BatchNorm1d and LeakyReLU; ModelWithLoss with BCELoss on the Sigmoid of the masked_select'ed steps (DKT), or
ModelWithLossMask with the zoo's nll_loss over a Softmax of all items (GRU4Rec, forRec); ModelWithOptimizer's
value_and_grad(has_aux=True) and Adam on a PolynomialDecayLR schedule with weight decay, under the zoo's @ms_function),
trained as trainDKT.py trains them.

A MindSpore script: run it with MindSpore (the golden) or with `kiln run`. Usage: train_src_kt.py MODE...; for each MODE
and model it prints `MODE MODEL losses: ...` and `MODE MODEL state: ...` (the sum of each parameter and the absolute
sum of each Adam moment, and BatchNorm's moving statistics, after the last step). The zoo's options are 64-wide
embeddings and hidden state, MLP [128], batch 128, sequences of 200; here 20 items, 6-wide embeddings, 8 hidden, MLP
[8], batch 6, sequences of 7. NumPy-seeded weights; dropout 0. MindSpore 2.10 has no `ms_function` (the zoo's
decorator, renamed `jit`): the driver gives it that name before importing the zoo's modules (Kiln keeps the old name).
"""

import os
import sys

import mindspore as ms
import numpy as np
from mindspore import Tensor
from mindspore.nn import Adam, BCELoss, PolynomialDecayLR

if not hasattr(ms, "ms_function"):
    ms.ms_function = ms.jit
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from KTScripts.BackModels import nll_loss  # noqa: E402
from KTScripts.PredictModel import ModelWithLoss, ModelWithLossMask, ModelWithOptimizer, PredictModel  # noqa: E402

ITEMS, EMBED, HIDDEN, BATCH, LENGTH, STEPS = 20, 6, 8, 6, 7, 4


def data(rng: np.random.RandomState, for_rec: bool) -> list:
    """STEPS batches of (x, y, mask): item ids, answers (the next item for GRU4Rec) and a mask of valid steps."""
    batches = []
    skill = rng.uniform(size=ITEMS)
    for _ in range(STEPS):
        x = rng.randint(0, ITEMS, size=(BATCH, LENGTH)).astype(np.int32)
        lengths = rng.randint(3, LENGTH + 1, size=BATCH)
        mask = np.arange(LENGTH)[None, :] < lengths[:, None]
        if for_rec:
            y = ((x + 1 + rng.randint(0, 2, size=x.shape)) % ITEMS).astype(np.int32)
        else:
            y = (rng.uniform(size=x.shape) < skill[x]).astype(np.float32)
        batches.append((Tensor(x), Tensor(y), Tensor(mask)))
    return batches


def main(mode: str, model_name: str) -> None:
    ms.set_context(mode=getattr(ms, mode))
    for_rec = model_name == "GRU4Rec"
    batches = data(np.random.RandomState(51), for_rec)
    model = PredictModel(ITEMS, EMBED, HIDDEN, [HIDDEN], 0.0, output_size=ITEMS if for_rec else 1,
                         with_label=True, model_name=model_name)  # fmt: skip
    rng = np.random.RandomState(52)
    for p in model.trainable_params():
        if p.name.endswith("gamma"):
            continue
        scale = 0.05 if "bias" in p.name.rsplit(".", 1)[-1] or p.name.endswith("beta") else 1 / np.sqrt(HIDDEN)
        p.set_data(Tensor(rng.uniform(-scale, scale, size=p.shape).astype(np.float32)))
    schedule = PolynomialDecayLR(learning_rate=1e-2, end_learning_rate=1e-5, decay_steps=2, power=0.5,
                                 update_decay_steps=True)  # fmt: skip
    optimizer = Adam(model.trainable_params(), learning_rate=schedule, weight_decay=1e-4)
    model_with_loss = ModelWithLossMask(model, nll_loss) if for_rec else ModelWithLoss(model, BCELoss(reduction="mean"))
    model_train = ModelWithOptimizer(model_with_loss, optimizer, for_rec)
    model_train.set_train()
    losses = []
    for x, y, mask in batches:
        loss, _ = model_train(x, y, mask) if not for_rec else model_train(x, y, mask)
        losses.append(float(loss.asnumpy()))
    state = [float(p.asnumpy().astype(np.float64).sum()) for p in optimizer.parameters]
    state += [float(np.abs(m.asnumpy().astype(np.float64)).sum()) for m in (*optimizer.moment1, *optimizer.moment2)]
    state += [float(p.asnumpy().astype(np.float64).sum()) for p in model.get_parameters() if "moving_" in p.name]
    print(f"{mode} {model_name} losses:", " ".join(repr(v) for v in losses))
    print(f"{mode} {model_name} state:", " ".join(repr(v) for v in state))


if __name__ == "__main__":
    for mode_name in sys.argv[1:] or ["PYNATIVE_MODE"]:
        for name in os.environ.get("KT_MODELS", "DKT GRU4Rec").split():
            main(mode_name, name)
