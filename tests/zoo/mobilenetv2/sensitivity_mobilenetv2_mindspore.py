"""MindSpore 2.10's own sensitivity of train_mobilenetv2.py's printed values: the same three Momentum steps with the
input or the initial weights perturbed by a relative 1e-6 (several seeds), and how far each printed value moves.

Run: /work/msvenv/bin/python tests/zoo/mobilenetv2/sensitivity_mobilenetv2_mindspore.py [MODE] [SEEDS]
Prints, per state sum, its name, value and largest moves (input, weights) from the unperturbed run, and writes them to
mobilenetv2_sensitivity_mindspore.json, whose `moves` test_mobilenetv2.py adds to its tolerance.

Measured (GRAPH_MODE, 5 seeds, session 13): the losses move by at most 1.7e-6 (input) and 8.1e-6 (weights); most
state sums by 1e-7 to 1e-4, but the momentum sums of the early conv weights jump: [32] (the stem's) by 0.027 for both,
[35] by 0.006 and 0.011, [44] by 0.002 and 0.040. The jumps are discrete, not chaotic growth: per seed [32] moves by
0, +0.0128, +0.0136 or +0.0270 at 1e-6 and by at most 1e-6 at 1e-8 and 1e-10. Each is one ReLU6 input within 1e-6 of
0 changing sign (relu6_knife_edges.py names the units and reproduces each jump by flipping just that input).
"""

import json
import os
import sys

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from train_mobilenetv2 import BATCH, CLASSES, SETTING, SIZE, STEPS  # noqa: E402
from train_mobilenetv2 import MobileNetV2Backbone, MobileNetV2Head, mobilenet_v2  # noqa: E402

RELATIVE = 1e-6


def run(perturb: str, seed: int) -> dict[str, list[float]]:
    """The printed losses and state after STEPS steps, with `perturb` ("none", "input" or "weights") applied."""
    np.random.seed(1)
    backbone = MobileNetV2Backbone(inverted_residual_setting=SETTING, last_channel=256)
    head = MobileNetV2Head(input_channel=backbone.out_channels, num_classes=CLASSES)
    net = mobilenet_v2(backbone, head)
    noise = np.random.RandomState(100 + seed)
    if perturb == "weights":
        for p in net.trainable_params():
            v = p.asnumpy()
            p.set_data(Tensor((v * (1 + RELATIVE * noise.randn(*v.shape))).astype(v.dtype)))
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)
    step.set_train()
    rng = np.random.RandomState(0)
    xv = rng.randn(BATCH, 3, SIZE, SIZE).astype(np.float32)
    if perturb == "input":
        xv = (xv * (1 + RELATIVE * noise.randn(*xv.shape))).astype(np.float32)
    x = Tensor(xv)
    y = Tensor((np.arange(BATCH) * 3 % CLASSES).astype(np.int32))
    losses = [float(step(x, y).asnumpy()) for _ in range(STEPS)]
    names = [p.name for p in net.get_parameters() if "moving" in p.name] + [f"moment {m.name}" for m in opt.moments]
    state = [float(p.asnumpy().astype(np.float64).sum()) for p in net.get_parameters() if "moving" in p.name]
    state += [float(m.asnumpy().astype(np.float64).sum()) for m in opt.moments]
    return {"losses": losses, "state": state, "names": names}


def main(mode: str, seeds: int) -> None:
    ms.set_context(mode=getattr(ms, mode))
    base = run("none", 0)
    moves = {}
    for perturb in ("input", "weights"):
        runs = [run(perturb, seed) for seed in range(seeds)]
        for key in ("losses", "state"):
            delta = np.max([np.abs(np.subtract(r[key], base[key])) for r in runs], axis=0)
            moves[f"{perturb} {key}"] = delta.tolist()
    for i, name in enumerate(base["names"]):
        print(i, name, repr(base["state"][i]), " ".join(f"{moves[f'{p} state'][i]:.3g}" for p in ("input", "weights")))
    print("losses", base["losses"], moves["input losses"], moves["weights losses"])
    out = {"mindspore": ms.__version__, "mode": mode, "relative": RELATIVE, "seeds": seeds, "names": base["names"],
           "base": base, "moves": moves}
    with open(os.path.join(HERE, "mobilenetv2_sensitivity_mindspore.json"), "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "GRAPH_MODE", int(sys.argv[2]) if len(sys.argv) > 2 else 3)
