"""Four steps of the zoo's HyperText classifier (research/nlp/hypertext/src): word and n-gram embedding Parameters
indexed by ids, the Poincare-ball Einstein midpoint, MobiusLinear and Logmap0 (Norm, artanh from Log with
clip_by_value at the domain edges, ClampMin masks, mnp.where projections), run in float16 by to_float, sparse
SoftmaxCrossEntropyWithLogits, HModelTrainOneStepCell and the zoo's RiemannianAdam (a user Optimizer with a step
Parameter and per-parameter Assigns) through Model.train as its train.py trains it.

Usage: train_hypertext.py MODE...; prints `MODE losses: ...` and `MODE state: ...` (each parameter's sum, then each
Adam moment's absolute sum, then the optimizer's step). Config: the tnews config (dropout 0) with a 20-word
vocabulary, 30 n-gram buckets, 8-wide embeddings, 4 classes, batches of 4 sequences of 6 ids. NumPy-seeded weights
(the zoo draws them from NumPy's global generator).
"""

import os
import sys

import mindspore as ms
import numpy as np
from mindspore.train.callback import Callback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from src.config import Config  # noqa: E402
from src.hypertext_train import HModelTrainOneStepCell, HModelWithLoss  # noqa: E402
from src.radam_optimizer import RiemannianAdam  # noqa: E402

BATCH, LENGTH, STEPS = 4, 6, 4


class LossRecorder(Callback):
    """Keep each step's loss."""

    def __init__(self, losses: list):
        super().__init__()
        self.losses = losses

    def step_end(self, run_context):
        self.losses.append(float(run_context.original_args().net_outputs.asnumpy()))


def main(mode: str, precision: str) -> None:
    ms.set_context(mode=getattr(ms, mode))
    config = Config(None, None, "CPU")
    config.useTnews()
    config.n_vocab, config.bucket, config.embed, config.num_classes, config.max_length = 20, 30, 8, 4, LENGTH
    np.random.seed(5)
    net_with_loss = HModelWithLoss(config)
    net_with_loss.init_parameters_data()
    if precision == "float32":
        net_with_loss.hmodel.to_float(ms.float32)  # undo HModelWithLoss's to_float(float16): the float32 run
    optimizer = RiemannianAdam(learning_rate=config.learning_rate,
                               params=filter(lambda x: x.requires_grad, net_with_loss.get_parameters()))  # fmt: skip
    net_with_grads = HModelTrainOneStepCell(net_with_loss, optimizer=optimizer)
    net_with_grads.set_train()
    model = ms.Model(net_with_grads)
    rng = np.random.RandomState(11)
    ids = rng.randint(0, config.n_vocab, (BATCH * STEPS, LENGTH)).astype(np.int32)
    ngram = rng.randint(0, config.bucket, (BATCH * STEPS, LENGTH)).astype(np.int32)
    label = rng.randint(0, config.num_classes, (BATCH * STEPS, 1)).astype(np.int32)
    dataset = ms.dataset.NumpySlicesDataset({"ids": ids, "ngrad_ids": ngram, "label": label}, shuffle=False)
    losses = []
    model.train(1, dataset.batch(BATCH), callbacks=[LossRecorder(losses)], dataset_sink_mode=False)
    state = [float(p.asnumpy().astype(np.float64).sum()) for p in optimizer.parameters]
    state += [float(np.abs(m.asnumpy().astype(np.float64)).sum()) for m in (*optimizer.exp_avg, *optimizer.exp_avg_sq)]
    state.append(float(optimizer.step.asnumpy()))
    print(f"{mode} {precision} losses:", " ".join(repr(v) for v in losses))
    print(f"{mode} {precision} state:", " ".join(repr(v) for v in state))


if __name__ == "__main__":
    for mode_name in sys.argv[1:] or ["PYNATIVE_MODE"]:
        for precision_name in ("float32", "float16"):
            main(mode_name, precision_name)
