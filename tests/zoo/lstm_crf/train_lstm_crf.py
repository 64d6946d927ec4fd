"""Four steps of the zoo's LSTM-CRF tagger (research/nlp/lstm_crf/src: a frozen nn.Embedding, a 2-layer bidirectional
nn.LSTM, a Dense to the tag scores, and the CRF: the forward algorithm's log-sum-exp over a Python loop of the
sequence, the real path's emission and transition scores by OneHot, the mean of their difference) through the zoo's
Lstm_CRF_Cell_CPU (a GradOperation with the loss scale of DynamicLossScaleUpdateCell 2**16 as sensitivity, the
gradients unscaled and clipped by ClipByNorm to 1 through HyperMap of MultitypeFuncGraphs) and AdamWeightDecay over
train.py's decay / no-decay groups on the zoo's LSTMCRFLearningRate (WarmUpLR, then PolynomialDecayLR), through
Model.train over two epochs of two batches with train.py's callbacks (TimeMonitor, the zoo's LossCallBack,
ModelCheckpoint, and its EvalCabllBack without the CoNLL reader: at each epoch's end the network switched to the Viterbi
decoder, `is_training = False`, run by Model.predict_network on the first batch and tagged by the zoo's `postprocess`,
switched back at the next epoch's begin). Then eval.py's path (a decoding network, the last checkpoint loaded into it,
Model.predict and the zoo's binary F1 over the batches) and export.py's (the network exported at random ids; here the
decoder too, read back through nn.GraphCell, its nested output tagging the first batch).

A MindSpore script: run it with MindSpore (the golden) or with `kiln run`. Usage: train_lstm_crf.py MODE...; for each
MODE it prints `MODE losses: ...`, `MODE state: ...` (the sum of each parameter, then the absolute sum of each
AdamWeightDecay moment, after the last step), `MODE decode state: ...` (the tags decoded after each epoch), `MODE
export state: ...` (the exported decoder's tags) and `MODE eval state: ...` (eval.py's tags, then F1's TP, FP, FN).
The zoo's config is GloVe embeddings of 300, hidden 320, 2 bidirectional layers, batch 20, CoNLL-2000's sentences and
tags, lr 2e-3 with warm-up over 2% of the steps, dropout 0.5; here vocabulary 50, embeddings of 8, hidden 8, 2
bidirectional layers, batch 2, 6 tokens, 3 tags (5 with the CRF's <START> and <STOP>), lr 1e-2 with 1 warm-up step of
4, dropout 0 (the LSTM's dropout draws from MindSpore's generator), NumPy-seeded weights (the tag Dense at 8 times
the scale, so that emissions, not the transitions alone, choose the Viterbi paths). The data are not shuffled (the
zoo's dataset.py shuffles with MindSpore's generator).
"""

import glob
import os
import sys
import tempfile
from types import SimpleNamespace

import mindspore as ms
import numpy as np
from mindspore import Tensor, export, load, nn
from mindspore.train.callback import Callback, CheckpointConfig, ModelCheckpoint, TimeMonitor
from mindspore.train.serialization import load_checkpoint, load_param_into_net

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/zoo: LossRecorder
from loss_recorder import LossRecorder  # noqa: E402
from src import util  # noqa: E402
from src.LSTM_CRF import Lstm_CRF, postprocess  # noqa: E402

VOCAB, EMBED, HIDDEN, LAYERS, BATCH, TOKENS, EPOCHS, STEPS = 50, 8, 8, 2, 2, 6, 2, 2
TAGS = {"O": 0, "B-NP": 1, "I-NP": 2}
ADAM = SimpleNamespace(learning_rate=0.01, end_learning_rate=1e-10, power=1.0, weight_decay=1e-5,
                       decay_filter=["layernorm", "bias"], eps=1e-6)  # fmt: skip
WARMUP = 1


def create_filter_fun(keywords):  # train.py's
    return lambda x: not (True in [key in x.name.lower() for key in keywords])  # noqa: E713


def get_data_set(word_index, tag_index, batch_size):
    """The zoo's src/dataset.py without its shuffle (MindSpore's generator draws the order)."""

    def generator_func():
        for i in range(len(word_index)):
            yield (np.array([j for j in word_index[i]]).astype(np.int32),
                   np.array([value for value in tag_index[i]]).astype(np.int32))  # fmt: skip

    data_set = ms.dataset.GeneratorDataset(generator_func, ["feature", "label"])
    return data_set.batch(batch_size=batch_size, drop_remainder=True)


class EvalCallBack(Callback):
    """train.py's EvalCabllBack without the CoNLL parser and the F1 score: at each epoch's end, the network switched
    to the Viterbi decoder and run through Model.predict_network on the first batch, the tags kept; switched back to
    training at the next epoch's begin."""

    def __init__(self, network, feature, label):
        super().__init__()
        self.network, self.feature, self.label = network, Tensor(feature), Tensor(label)
        self.tags = []

    def epoch_begin(self, run_context):
        self.network.is_training = True

    def epoch_end(self, run_context):
        self.network.is_training = False
        self.network.set_grad(False)
        logits = ms.Model(self.network).predict_network(self.feature, self.label)
        self.tags += [int(t) for path in postprocess(*logits) for t in path]
        self.network.set_grad(True)


def main(mode: str) -> None:
    ms.set_context(mode=getattr(ms, mode))
    np.random.seed(81)  # the zoo draws the transitions from np.random
    rng = np.random.RandomState(82)
    embeddings = rng.standard_normal((VOCAB, EMBED)).astype(np.float32)
    network = Lstm_CRF(vocab_size=VOCAB, tag_to_index=dict(TAGS), embedding_size=EMBED, hidden_size=HIDDEN,
                       num_layers=LAYERS, weight=Tensor(embeddings), bidirectional=True, batch_size=BATCH,
                       seq_length=TOKENS, dropout=0.0, is_training=True)  # fmt: skip
    e = 1 / np.sqrt(HIDDEN)
    for p in sorted(network.trainable_params(), key=lambda q: q.name):
        if p.name == "transitions":
            continue  # the zoo's: normal, the <START> row and the <STOP> column -10000
        scale = 8 if p.name.startswith("lstm.fc.") else 1  # emissions of the transitions' size: both pick the path
        p.set_data(Tensor(rng.uniform(-scale * e, scale * e, size=p.shape).astype(np.float32)))

    data = np.random.RandomState(83)
    features = data.randint(0, VOCAB, size=(STEPS * BATCH, TOKENS)).astype(np.int32)
    labels = data.randint(0, len(TAGS), size=(STEPS * BATCH, TOKENS)).astype(np.int32)

    lr_schedule = util.LSTMCRFLearningRate(
        learning_rate=ADAM.learning_rate, end_learning_rate=ADAM.end_learning_rate, warmup_steps=WARMUP,
        decay_steps=STEPS * EPOCHS, power=ADAM.power
    )  # fmt: skip
    params = network.trainable_params()
    decay_params = list(filter(create_filter_fun(ADAM.decay_filter), params))
    other_params = list(filter(lambda x: not create_filter_fun(ADAM.decay_filter)(x), params))
    group_params = [{"params": decay_params, "weight_decay": ADAM.weight_decay},
                    {"params": other_params, "weight_decay": 0.0}]  # fmt: skip
    opt = nn.AdamWeightDecay(params=group_params, learning_rate=lr_schedule, eps=ADAM.eps)
    update_cell = nn.DynamicLossScaleUpdateCell(loss_scale_value=2**16, scale_factor=2, scale_window=100)
    netwithgrads = util.Lstm_CRF_Cell_CPU(network, optimizer=opt, scale_update_cell=update_cell)
    model = ms.Model(netwithgrads)
    recorder, evaluate = LossRecorder(), EvalCallBack(network, features[:BATCH], labels[:BATCH])
    dataset = get_data_set(features, labels, BATCH)
    ckpt_dir = tempfile.mkdtemp()
    config_ck = CheckpointConfig(save_checkpoint_steps=dataset.get_dataset_size(), keep_checkpoint_max=EPOCHS)
    ckpoint_cb = ModelCheckpoint(prefix="lstm_crf", directory=ckpt_dir, config=config_ck)
    callbacks = [TimeMonitor(dataset.get_dataset_size()), util.LossCallBack(dataset.get_dataset_size(), "CPU"),
                 recorder, evaluate, ckpoint_cb]  # fmt: skip
    model.train(EPOCHS, dataset, callbacks=callbacks, dataset_sink_mode=False)
    state = [float(p.asnumpy().astype(np.float64).sum()) for p in opt.parameters]
    for moments in (opt.moments1, opt.moments2):
        state += [float(np.abs(m.asnumpy().astype(np.float64)).sum()) for m in moments]

    # eval.py: a network built for decoding, the last checkpoint loaded into it, Model.predict and the zoo's F1
    eval_net = Lstm_CRF(vocab_size=VOCAB, tag_to_index=dict(TAGS), embedding_size=EMBED, hidden_size=HIDDEN,
                        num_layers=LAYERS, weight=Tensor(embeddings), bidirectional=True, batch_size=BATCH,
                        seq_length=TOKENS, is_training=False)  # fmt: skip
    ckpt = sorted(glob.glob(os.path.join(ckpt_dir, "lstm_crf-*.ckpt")))
    print("checkpoints:", " ".join(os.path.basename(c) for c in ckpt))
    load_param_into_net(eval_net, load_checkpoint(ckpt[-1]))
    f1 = util.F1(len(TAGS))
    eval_tags = []
    for batch in dataset.create_dict_iterator(num_epochs=1):
        logit_ids, _ = f1.update(ms.Model(eval_net).predict(batch["feature"], batch["label"]), batch["label"])
        eval_tags += [int(t) for t in logit_ids]
    # export.py: the trained network exported at random ids (their shapes and dtypes); here the decoder too, read
    # back through nn.GraphCell and run on the first batch
    ids = np.random.RandomState(84).uniform(0.0, 1e5, size=[BATCH, TOKENS]).astype(np.int32)
    export(network, Tensor(ids), Tensor(ids), file_name=os.path.join(ckpt_dir, "lstm_crf"), file_format="MINDIR")
    export(eval_net, Tensor(ids), Tensor(ids), file_name=os.path.join(ckpt_dir, "decoder"), file_format="MINDIR")
    graph = nn.GraphCell(load(os.path.join(ckpt_dir, "decoder.mindir")))
    decoded = graph(Tensor(features[:BATCH]), Tensor(labels[:BATCH]))
    export_tags = [int(t) for path in postprocess(*decoded) for t in path]
    print(f"{mode} losses:", " ".join(repr(v) for v in recorder.losses))
    print(f"{mode} state:", " ".join(repr(v) for v in state))
    print(f"{mode} decode state:", " ".join(str(t) for t in evaluate.tags))
    print(f"{mode} export state:", " ".join(str(t) for t in export_tags))
    print(f"{mode} eval state:", " ".join(str(t) for t in eval_tags + [f1.TP, f1.FP, f1.FN]))


if __name__ == "__main__":
    for mode_name in sys.argv[1:] or ["PYNATIVE_MODE"]:
        main(mode_name)
