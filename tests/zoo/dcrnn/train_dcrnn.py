"""Steps of the zoo's DCRNN traffic forecaster (research/cv/dcrnn/src): DCGRUCell's diffusion supports built at
construction from a SciPy sparse random-walk matrix with `L[x][y] = value` item assignments into a Zeros tensor
(MindSpore's PyNative reads `L[x]` as a view), its GRU gates from Chebyshev-style diffusion convolutions (MatMul,
ExpandDims, Concat, Transpose, Split, Sigmoid, Tanh) on weights kept in a dict (so not trained: only the decoder's
Dense projection is a Parameter of the Cell), a two-layer encoder and decoder unrolled in Python loops, the batch
split into inputs and labels with Split/Squeeze/Stack, the zoo's MaskedMAELoss (Tensor.copy, in-place division, an
item assignment `loss[0] = 0`) and Adam, through Model(net, loss_fn, optimizer, amp_level, loss_scale_manager) as
dcrnn_supervisor.py wires them.

Usage: train_dcrnn.py KIND MODE...; KIND is O0 (float32, is_fp16 False) or O3 (train.py's defaults: amp_level O3
and is_fp16 True, the diffusion convolutions in float16). Prints `MODE KIND losses: ...` and `MODE KIND state: ...`
(the trained parameters' sums, each DCGRUCell's weights' sums, then each Adam moment's absolute sum). The zoo's
config is METR-LA's 207 sensors, 12-step sequences, batches of 64, rnn_units 64 (the weight shapes are written into
dcrnn_cell.py for 64 units and the dual random walk's 5 matrices); here a random 4-node graph of dyadic weights,
2-step sequences, batches of 2, 64 units. train.py's DynamicLossScaleManager is refused by MindSpore 2.10 on CPU; a
fixed scale of 1024 (drop_overflow_update=False, the form it accepts) stands in. NumPy-seeded weights (the zoo's
XavierUniform draws from MindSpore's generator). The zoo's loss reads the scaler from data/METR-LA/*.npz: the
driver writes the series there, in a temporary folder.
"""

import os
import sys
import tempfile

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn
from mindspore.train.callback import Callback
from mindspore.train.loss_scale_manager import FixedLossScaleManager

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from src.dcrnn_model import DCRNNModel  # noqa: E402
from src.loss import MaskedMAELoss  # noqa: E402

NODES, SEQ, BATCH, STEPS = 4, 2, 2, 3
MODEL = {
    "cl_decay_steps": 2000,
    "filter_type": "dual_random_walk",
    "horizon": SEQ,
    "input_dim": 2,
    "max_diffusion_step": 2,
    "num_nodes": NODES,
    "num_rnn_layers": 2,
    "output_dim": 1,
    "rnn_units": 64,
    "seq_len": SEQ,
    "use_curriculum_learning": True,
}


class LossRecorder(Callback):
    """Keep each step's loss."""

    def __init__(self, losses: list):
        super().__init__()
        self.losses = losses

    def step_end(self, run_context):
        out = run_context.original_args().net_outputs
        loss = out[0] if isinstance(out, (tuple, list)) else out
        self.losses.append(float(loss.asnumpy()))


def main(kind: str, mode: str) -> None:
    ms.set_context(mode=getattr(ms, mode))
    rng = np.random.RandomState(5)
    # a doubly stochastic graph of dyadic weights: the random-walk matrices' reciprocal degrees are then exact
    # (NumPy 1.26, MindSpore's, and 2.4, Kiln's, round np.power(degree, -1) one ulp apart)
    adj = 0.25 * np.eye(NODES)
    for weight in (0.5, 0.25):
        adj += weight * np.eye(NODES)[rng.permutation(NODES)]
    adj = adj.astype(np.float32)
    # the zoo's two input channels: a speed (standardised below, as the zoo's load_dataset does) and the time of day
    series = np.stack(
        [rng.uniform(0, 70, (BATCH * STEPS + 2 * SEQ, NODES)), rng.uniform(0, 1, (BATCH * STEPS + 2 * SEQ, NODES))],
        axis=-1,
    ).astype(np.float32)
    xs = np.stack([series[i : i + SEQ] for i in range(BATCH * STEPS)])
    ys = np.stack([series[i + SEQ : i + 2 * SEQ] for i in range(BATCH * STEPS)])
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "data", "METR-LA"))
        for part in ("train", "val", "test"):
            np.savez(os.path.join(tmp, "data", "METR-LA", part + ".npz"), x=xs, y=ys)
        os.chdir(tmp)
        try:
            loss_fn = MaskedMAELoss(SEQ, NODES, 1, BATCH)
        finally:
            os.chdir(here)
    # the zoo's load_dataset scales the speed channel of the series it trains on
    mean, std = xs[..., 0].mean(), xs[..., 0].std()
    xs[..., 0] = (xs[..., 0] - mean) / std
    ys[..., 0] = (ys[..., 0] - mean) / std
    net = DCRNNModel(adj, kind == "O3", BATCH, **MODEL)
    cells = [*net.encoder_model.dcgru_layers, *net.decoder_model.dcgru_layers]
    for cell in cells:
        for key in sorted(cell._weights):
            p = cell._weights[key]
            bound = np.sqrt(6 / (p.shape[0] + p.shape[1]))
            p.set_data(Tensor(rng.uniform(-bound, bound, p.shape).astype(np.float32)))
    for p in net.trainable_params():
        p.set_data(Tensor(rng.uniform(-0.3, 0.3, p.shape).astype(np.float32)))
    optimizer = nn.Adam(net.get_parameters(), learning_rate=0.01, eps=1e-3)
    model = ms.Model(
        net,
        optimizer=optimizer,
        loss_fn=loss_fn,
        amp_level=kind,
        loss_scale_manager=FixedLossScaleManager(1024.0, drop_overflow_update=False),
    )
    data = np.stack([xs, ys], axis=1)
    dataset = ms.dataset.NumpySlicesDataset({"data": data, "label": ys}, shuffle=False).batch(BATCH)
    losses = []
    model.train(1, dataset, callbacks=[LossRecorder(losses)], dataset_sink_mode=False)
    state = [float(p.asnumpy().astype(np.float64).sum()) for p in optimizer.parameters]
    for cell in cells:
        state += [float(cell._weights[k].asnumpy().astype(np.float64).sum()) for k in sorted(cell._weights)]
    state += [float(np.abs(m.asnumpy().astype(np.float64)).sum()) for m in (*optimizer.moment1, *optimizer.moment2)]
    print(f"{mode} {kind} losses:", " ".join(repr(v) for v in losses))
    print(f"{mode} {kind} state:", " ".join(repr(v) for v in state))


if __name__ == "__main__":
    for mode_name in sys.argv[2:] or ["PYNATIVE_MODE"]:
        main(sys.argv[1], mode_name)
