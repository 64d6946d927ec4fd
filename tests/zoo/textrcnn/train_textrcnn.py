"""Four steps of the zoo's TextRCNN (research/nlp/textrcnn/src/textrcnn.py: a frozen nn.Embedding, a bidirectional
recurrence written as Python loops over the time steps of float16 nn.Dense cells (the config's 'gru': reset and
update gates by Sigmoid, the candidate by Tanh; or 'vanilla': Tanh of two Denses), each direction's outputs stacked by
ExpandDims and Concat, the left and right contexts shifted by one step against zero pads and Concat'ed around the
embeddings, a float16 Dense and Tanh, ReduceMax over time and a float16 Dense to two classes) trained as its train.py
wires it: Model(network, SoftmaxCrossEntropyWithLogits(sparse=True), Adam (the config's lr 1e-3 through utils.get_lr,
loss_scale 1.0 off the GPU), metrics Accuracy, amp_level O3) with train.py's callbacks (ModelCheckpoint, LossMonitor,
TimeMonitor), over two epochs of two batches. Then eval.py's path: a new network, the last checkpoint loaded into
it, nn.WithEvalCell(network, loss, True) and Model.eval with Accuracy; and export.py's: that network exported as
MINDIR, read back through nn.GraphCell.

A MindSpore script: run it with MindSpore (the golden) or with `kiln run`. Usage: train_textrcnn.py CELL[,CELL...]
MODE...; for each MODE and CELL it prints `MODE CELL losses: ...` (each sentence's loss: the zoo's loss keeps its
default reduction 'none'), `MODE CELL state: ...` (the sum of each trainable parameter, then the absolute sum of each
Adam moment, after the last step), `MODE CELL eval state: ...` (the evaluating network's float16 logits of the
first batch, then eval.py's accuracy) and `MODE CELL export state: ...` (the exported network's logits of the first
batch). The zoo's config is word2vec embeddings of 300 over the
rt-polarity vocabulary, sentences padded to 50 words, batch 64; here the network's own fixed widths (embeddings of
300, hidden 512: textrcnn.py sets them), a vocabulary of 30 whose row 0 is zero as the zoo's `<unk>` row,
NumPy-drawn embeddings and weights (the Denses' defaults draw from MindSpore's generator), sentences of 6 words,
batch 2. The network's Dropout(p=0.3) draws from MindSpore's generator: the driver replaces it by a Dropout(p=0.0).
The data are not shuffled (the zoo's dataset.py reads a MindRecord written through gensim's word2vec reader and
shuffles it with MindSpore's generator). train.py sinks the dataset; here dataset_sink_mode=False, so that each
step's loss is seen.
"""

import glob
import os
import sys
import tempfile
from types import SimpleNamespace

import mindspore as ms
import numpy as np
from mindspore import Tensor, export, load, nn
from mindspore.nn.metrics import Accuracy
from mindspore.train.callback import Callback, CheckpointConfig, LossMonitor, ModelCheckpoint, TimeMonitor
from mindspore.train.serialization import load_checkpoint, load_param_into_net

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from src.textrcnn import textrcnn  # noqa: E402
from src.utils import get_lr  # noqa: E402

VOCAB, EMBED, WORDS, BATCH, EPOCHS, STEPS = 30, 300, 6, 2, 2, 2
# default_config.yaml's training fields
CFG = {"lr": 0.001, "lstm_lr_init": 0.002, "lstm_lr_end": 0.0005, "lstm_lr_max": 0.003, "lstm_lr_warm_up_epochs": 2,
       "lstm_lr_adjust_epochs": 9, "lstm_num_epochs": 15, "num_epochs": 10, "loss_scale": 128}  # fmt: skip


class LossRecorder(Callback):
    """Keeps each step's losses: the zoo's loss keeps SoftmaxCrossEntropyWithLogits' default reduction 'none', one
    loss a sentence (the train cell's sensitivity is ones: their sum is differentiated)."""

    def __init__(self):
        super().__init__()
        self.losses = []

    def step_end(self, run_context):
        self.losses += [float(v) for v in run_context.original_args().net_outputs.asnumpy().ravel()]


def build(cell: str, embeddings: np.ndarray, seed: int):
    """The zoo's textrcnn with NumPy-drawn weights (each Dense's weight uniform in +-1/sqrt(fan_in), each bias in
    +-1/sqrt(512)) and its Dropout off."""
    network = textrcnn(weight=Tensor(embeddings), vocab_size=VOCAB, cell=cell, batch_size=BATCH)
    network.drop_out = nn.Dropout(p=0.0)
    rng = np.random.RandomState(seed)
    for p in sorted(network.trainable_params(), key=lambda q: q.name):
        fan_in = p.shape[-1] if len(p.shape) == 2 else network.num_hiddens
        bound = 1 / np.sqrt(fan_in)
        p.set_data(Tensor(rng.uniform(-bound, bound, size=p.shape).astype(np.float32)))
    return network


def main(cell: str, mode: str) -> None:
    ms.set_context(mode=getattr(ms, mode))
    ms.set_seed(2)  # train.py's
    data = np.random.RandomState(91)
    embeddings = (0.15 * data.standard_normal((VOCAB, EMBED))).astype(np.float32)
    embeddings[0] = 0  # the zoo's <unk> row
    features = data.randint(0, VOCAB, size=(STEPS * BATCH, WORDS)).astype(np.int32)
    labels = data.randint(0, 2, size=(STEPS * BATCH,)).astype(np.int32)

    cfg = SimpleNamespace(cell=cell, **CFG)
    network = build(cell, embeddings, seed=92)
    dataset = ms.dataset.NumpySlicesDataset({"feature": features, "label": labels}, shuffle=False)
    dataset = dataset.batch(BATCH, drop_remainder=True)
    step_size = dataset.get_dataset_size()
    cfg.loss_scale = cfg.loss_scale if cfg.cell == "lstm" and ms.get_context("device_target") == "GPU" else 1.0
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True)
    lr = get_lr(cfg, step_size)
    opt = nn.Adam(params=network.trainable_params(), learning_rate=lr, loss_scale=cfg.loss_scale)
    model = ms.Model(network, loss_fn=loss, optimizer=opt, metrics={"acc": Accuracy()}, amp_level="O3")
    ckpt_dir = tempfile.mkdtemp()
    config_ck = CheckpointConfig(save_checkpoint_steps=step_size, keep_checkpoint_max=EPOCHS)
    ckpoint_cb = ModelCheckpoint(prefix=cell, directory=ckpt_dir, config=config_ck)
    recorder = LossRecorder()
    model.train(EPOCHS, dataset, callbacks=[ckpoint_cb, LossMonitor(), TimeMonitor(), recorder],
                dataset_sink_mode=False)  # fmt: skip
    state = [float(p.asnumpy().astype(np.float64).sum()) for p in opt.parameters]
    for moments in (opt.moment1, opt.moment2):
        state += [float(np.abs(m.asnumpy().astype(np.float64)).sum()) for m in moments]

    # eval.py: a new network, the last checkpoint loaded into it, WithEvalCell and Model.eval with Accuracy
    eval_network = build(cell, embeddings, seed=93)
    eval_net = nn.WithEvalCell(eval_network, loss, True)
    ckpt = sorted(glob.glob(os.path.join(ckpt_dir, f"{cell}-*.ckpt")))
    print("checkpoints:", " ".join(os.path.basename(c) for c in ckpt))
    load_param_into_net(eval_network, load_checkpoint(ckpt[-1]))
    eval_network.set_train(False)
    eval_model = ms.Model(eval_network, loss, metrics={"acc": Accuracy()}, eval_network=eval_net,
                          eval_indexes=[0, 1, 2])  # fmt: skip
    acc = eval_model.eval(dataset, dataset_sink_mode=False)
    logits = eval_network(Tensor(features[:BATCH])).asnumpy()
    # export.py: the evaluating network exported at ones of the dataset's shape (its sentences are padded to 50
    # words; here 6), read back through nn.GraphCell and run on the first batch
    export(eval_network, Tensor(np.ones([BATCH, WORDS], np.int32)), file_name=os.path.join(ckpt_dir, "textrcnn"),
           file_format="MINDIR")  # fmt: skip
    exported = nn.GraphCell(load(os.path.join(ckpt_dir, "textrcnn.mindir")))(Tensor(features[:BATCH])).asnumpy()
    print(f"{mode} {cell} losses:", " ".join(repr(v) for v in recorder.losses))
    print(f"{mode} {cell} state:", " ".join(repr(v) for v in state))
    print(f"{mode} {cell} eval state:", " ".join(repr(float(v)) for v in [*logits.ravel(), acc["acc"]]))
    print(f"{mode} {cell} export state:", " ".join(repr(float(v)) for v in exported.ravel()))


if __name__ == "__main__":
    for mode_name in sys.argv[2:] or ["PYNATIVE_MODE"]:
        for cell_name in sys.argv[1].split(","):
            main(cell_name, mode_name)
