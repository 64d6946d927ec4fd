"""Four steps of the zoo's Vision Transformer (official/cv/VIT/src: VitStem's patch embedding by reshape and
transpose, the cls token and position embedding Parameters, LayerNorm, BatchMatMul attention, GELU feed-forward,
its own AdamW optimizer (a @jit construct, HyperMap over a MultitypeFuncGraph, decay groups with 'order_params',
beta powers as Parameters), CrossEntropySmoothMixup on mixed soft labels, the cosine warm-up lr array) at a tiny
config, wired as the zoo's train.py wires them through Model with FixedLossScaleManager(loss_scale,
drop_overflow_update=False): a TrainOneStepCell whose sensitivity is the loss scale, AdamW dividing it out.

A MindSpore script: run it with MindSpore (the golden) or with `kiln run`. Usage: train_vit.py MODE...; for each
MODE it prints `MODE losses: ...` and `MODE state: ...` (the sum of each trainable parameter, then the absolute
sum of each first and second moment, after the last step; the key biases left out, see below).
"""

import os
import sys

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from easydict import EasyDict  # noqa: E402
from src.cross_entropy import CrossEntropySmoothMixup  # noqa: E402
from src.lr_generator import get_lr  # noqa: E402
from src.optimizer import get_optimizer  # noqa: E402
from src.vit import VitConfig  # noqa: E402

BATCH, CLASSES, STEPS, SCALE = 4, 5, 4, 1024.0


def main(mode: str) -> None:
    ms.set_context(mode=getattr(ms, mode))
    cfg = EasyDict(
        d_model=16,
        depth=2,
        heads=2,
        mlp_dim=32,
        dim_head=8,
        patch_size=4,
        normalized_shape=16,
        image_size=12,
        num_classes=CLASSES,
    )
    vit_config = VitConfig(cfg)
    # Dropout and drop path draw from each framework's own generator: off, so both run the same function
    vit_config.network_dropout_rate = vit_config.attention_dropout_rate = 0.0
    vit_config.feedforward_dropout_rate = vit_config.head_dropout_rate = vit_config.body_drop_path_rate = 0.0
    net = vit_config.network(vit_config)
    rng = np.random.RandomState(5)
    for p in net.get_parameters():
        value = rng.standard_normal(p.shape) * 0.3
        if "gamma" in p.name:
            value = 1.0 + value * 0.3
        p.set_data(Tensor(value.astype(np.float32)))
    lrs = get_lr(
        global_step=0,
        lr_init=0.0,
        lr_end=0.0,
        lr_max=0.01,
        warmup_epochs=1,
        total_epochs=2,
        steps_per_epoch=STEPS // 2,
        lr_decay_mode="cosine",
    )
    args = EasyDict(
        no_weight_decay_filter="beta,bias", weight_decay=0.05, gc_flag=0, beta1=0.9, beta2=0.999, loss_scale=SCALE
    )
    opt, _ = get_optimizer("adamw", net, Tensor(np.asarray(lrs, np.float32)), args)
    loss = CrossEntropySmoothMixup(smooth_factor=0.1, num_classes=CLASSES)
    train = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt, sens=SCALE)
    train.set_train()
    data = np.random.RandomState(0)
    losses = []
    for _ in range(STEPS):
        x = data.standard_normal((BATCH, 3, 12, 12)).astype(np.float32)
        a, b = data.randint(0, CLASSES, BATCH), data.randint(0, CLASSES, BATCH)
        lam = 0.7
        label = (lam * np.eye(CLASSES)[a] + (1 - lam) * np.eye(CLASSES)[b]).astype(np.float32)
        losses.append(float(train(Tensor(x), Tensor(label)).asnumpy()))
    # The key bias is left out: softmax over the keys is blind to it, so its gradient is rounding noise that
    # Adam's normalisation turns into lr-sized steps of any sign (MindSpore's own two modes differ by 1e-3 there).
    kept = [i for i, p in enumerate(opt.parameters) if not p.name.endswith("to_k.bias")]
    state = [float(opt.parameters[i].asnumpy().astype(np.float64).sum()) for i in kept]
    for moments in (opt.moments1, opt.moments2):
        state += [float(np.abs(moments[i].asnumpy().astype(np.float64)).sum()) for i in kept]
    print(f"{mode} losses:", " ".join(repr(v) for v in losses))
    print(f"{mode} state:", " ".join(repr(v) for v in state))


if __name__ == "__main__":
    for mode_name in sys.argv[1:] or ["PYNATIVE_MODE"]:
        main(mode_name)
