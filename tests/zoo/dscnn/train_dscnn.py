"""Four steps of the zoo's DS-CNN keyword spotter (research/audio/dscnn/src: a Conv2d stem, depthwise-separable
blocks (a grouped Conv2d with group = channels, BatchNorm2d momentum 0.98, ReLU, a pointwise Conv2d, BatchNorm2d),
AvgPool2d over the whole feature map, Flatten, Dense; the zoo's CrossEntropy (OneHot, SoftmaxCrossEntropyWithLogits,
ReduceMean) and its MultiStepLR schedule) trained as its train.py trains it: Model(network, loss_fn, Momentum with
weight decay over the lr array as a Tensor, amp_level, keep_batchnorm_fp32=False) and Model.train over a batched
dataset, at amp_level O0 (the zoo's default) and O3 (one of its choices; MindSpore 2.10 refuses O2 on the CPU, whose
loss-scale manager is dynamic).

A MindSpore script: run it with MindSpore (the golden) or with `kiln run`. Usage: train_dscnn.py MODE:AMP...; for
each it prints `MODE:AMP losses: ...` and `MODE:AMP state: ...` (the sum of each parameter, BatchNorm's moving
statistics included, then the absolute sum of each Momentum accumulator). The zoo's config is a 6-layer, 276-wide
network on 49x10 MFCCs, 12 labels, batches of 100, lr 0.1 decayed at epochs 20/40/60/80, momentum 0.98, weight
decay 0.001, dropout 0.1; here 3 layers 8 wide on 10x6 features, 4 labels, batches of 4, two epochs of two steps
with the decay at the second, the zoo's momentum and weight decay, dropout 0 (its Dropout draws from MindSpore's
generator). NumPy-seeded weights and data.
"""

import os
import sys
from types import SimpleNamespace

import mindspore as ms
import mindspore.dataset as ds
import numpy as np
from mindspore import Model, Tensor
from mindspore.nn.optim import Momentum
from mindspore.train.callback import Callback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from src.ds_cnn import DSCNN  # noqa: E402
from src.loss import CrossEntropy  # noqa: E402
from src.lr_scheduler import MultiStepLR  # noqa: E402

T, F, LABELS, BATCH, STEPS_PER_EPOCH, EPOCHS = 10, 6, 4, 4, 2, 2
# layers, then per layer: channels, kernel (time, frequency), stride (time, frequency)
MODEL_SIZE_INFO = [3, 8, 4, 2, 2, 1, 8, 3, 3, 2, 2, 8, 3, 3, 1, 1]


class Losses(Callback):
    """Keeps each step's loss."""

    def __init__(self):
        super().__init__()
        self.values = []

    def step_end(self, run_context):
        loss = run_context.original_args().net_outputs
        self.values.append(float(loss.asnumpy().astype(np.float64).reshape(-1)[0]))


def main(run: str) -> None:
    mode, amp = run.split(":")
    ms.set_context(mode=getattr(ms, mode))
    config = SimpleNamespace(model_setting_label_count=LABELS, model_setting_dct_coefficient_count=F,
                             model_setting_spectrogram_length=T, model_setting_dropout1=1.0)  # fmt: skip
    network = DSCNN(config, MODEL_SIZE_INFO)
    rng = np.random.RandomState(7)
    for p in network.trainable_params():
        if "gamma" in p.name:
            p.set_data(Tensor(rng.uniform(0.5, 1.5, p.shape).astype(np.float32)))
        elif "beta" in p.name or "bias" in p.name:
            p.set_data(Tensor(rng.uniform(-0.1, 0.1, p.shape).astype(np.float32)))
        else:
            fan_in = int(np.prod(p.shape[1:]))
            p.set_data(Tensor(rng.normal(0, 1 / np.sqrt(fan_in), p.shape).astype(np.float32)))
    criterion = CrossEntropy(num_classes=LABELS)
    lr = MultiStepLR(0.1, [1], 0.1, STEPS_PER_EPOCH, EPOCHS).get_lr()
    opt = Momentum(params=network.trainable_params(), learning_rate=Tensor(lr), momentum=0.98, weight_decay=0.001)
    model = Model(network, loss_fn=criterion, optimizer=opt, amp_level=amp, keep_batchnorm_fp32=False)
    data = np.random.RandomState(1)
    x = data.normal(0, 1, (BATCH * STEPS_PER_EPOCH, 1, T, F)).astype(np.float32)
    y = data.randint(0, LABELS, BATCH * STEPS_PER_EPOCH).astype(np.int32)
    dataset = ds.NumpySlicesDataset((x, y), column_names=["feat", "label"], shuffle=False).batch(BATCH)
    losses = Losses()
    model.train(EPOCHS, dataset, callbacks=[losses], dataset_sink_mode=False)
    state = [float(p.asnumpy().astype(np.float64).sum()) for p in network.get_parameters()]
    state += [float(np.abs(m.asnumpy().astype(np.float64)).sum()) for m in opt.moments]
    print(f"{run} losses:", " ".join(repr(v) for v in losses.values))
    print(f"{run} state:", " ".join(repr(v) for v in state))


if __name__ == "__main__":
    for arg in sys.argv[1:] or ["PYNATIVE_MODE:O0"]:
        main(arg)
