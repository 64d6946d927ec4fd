"""Four steps of the zoo's ATAE-LSTM (research/nlp/atae_lstm/src: word and aspect nn.Embedding, the aspect tiled along
the sentence and concatenated, the zoo's own LSTM (model_utils/rnns.py: a Python while loop over time of its
lstm_cell, which runs the gate products in float16 and adds the float32 biases, masked by the sequence lengths with
Select), attention by batched ops.matmul, Tanh and Softmax, the sentiment head and a Softmax, and NetWithLoss's
BCELoss(reduction='sum')) through TrainOneStepCell and Adagrad (weight decay 1e-3) over train.py's two groups (the word
table at lr 1e-3, the rest at 1e-2), through Model.train, as its train.py wires them.

A MindSpore script: run it with MindSpore (the golden) or with `kiln run`. Usage: train_atae_lstm.py MODE...; for each
MODE it prints `MODE losses: ...` and `MODE state: ...` (the sum of each parameter and the absolute sum of each
Adagrad accumulator after the last step). The zoo's config is vocabulary 5177, words, aspects and hidden of 300,
batch 25, 50 tokens, dropout 0.6; here vocabulary 30, words of 6, aspects of 4, hidden 8, batch 3, 7 tokens (lengths
2-7), 5 aspects, 3 classes, dropout 0 (its Dropout draws from MindSpore's generator). NumPy-seeded weights with the
zoo's distributions (its attention weight `w` starts at zero, as the zoo's does).
"""

import os
import sys
from types import SimpleNamespace

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/zoo: LossRecorder
from loss_recorder import LossRecorder  # noqa: E402
from src.atae_for_train import NetWithLoss  # noqa: E402
from src.model import AttentionLstm  # noqa: E402

CONFIG = SimpleNamespace(dim_word=6, dim_hidden=8, dim_aspect=4, vocab_size=30, grained=3, aspect_num=5,
                         dropout_prob=0.0, batch_size=3)  # fmt: skip
TOKENS, STEPS, LR, LR_WORD_VECTOR, WEIGHT_DECAY = 7, 4, 0.01, 0.001, 0.001


def data(rng: np.random.RandomState) -> dict:
    """STEPS * BATCH sentences as the zoo's mindrecord holds them: token ids zero past each length, the length, the
    aspect id and a one-hot polarity."""
    n = STEPS * CONFIG.batch_size
    sen_len = rng.randint(2, TOKENS + 1, size=n).astype(np.int32)
    content = rng.randint(1, CONFIG.vocab_size, size=(n, TOKENS)).astype(np.int32)
    content[np.arange(TOKENS)[None, :] >= sen_len[:, None]] = 0
    solution = np.eye(CONFIG.grained, dtype=np.int32)[rng.randint(0, CONFIG.grained, size=n)]
    aspect = rng.randint(0, CONFIG.aspect_num, size=n).astype(np.int32)
    return {"content": content, "sen_len": sen_len, "aspect": aspect, "solution": solution}


def main(mode: str) -> None:
    ms.set_context(mode=getattr(ms, mode))
    columns = data(np.random.RandomState(51))
    rng = np.random.RandomState(52)
    weight = Tensor(rng.standard_normal((CONFIG.vocab_size, CONFIG.dim_word)).astype(np.float32))
    net = AttentionLstm(CONFIG, weight, is_train=True)
    e = 1 / np.sqrt(CONFIG.dim_hidden)
    for p in net.trainable_params():
        if p.name.endswith("embedding_word.embedding_table"):
            continue
        if p.name in ("w", "bs"):
            value = np.zeros(p.shape)
        elif p.name.endswith("embedding_aspect.embedding_table"):
            value = rng.standard_normal(p.shape)
        else:
            value = rng.uniform(-e, e, size=p.shape)
        p.set_data(Tensor(value.astype(np.float32)))
    model_with_loss = NetWithLoss(net, batch_size=1)
    word_vector_params = {"lr": LR_WORD_VECTOR}
    other_params = {"params": [], "lr": LR}
    for param in net.trainable_params():
        if param.name.endswith("embedding_word.embedding_table"):
            word_vector_params["params"] = [param]
        else:
            other_params["params"].append(param)
    optimizer = nn.Adagrad(params=[word_vector_params, other_params], weight_decay=WEIGHT_DECAY)
    train_net = nn.TrainOneStepCell(model_with_loss, optimizer)
    model = ms.Model(train_net)
    recorder = LossRecorder()
    dataset = ms.dataset.NumpySlicesDataset(columns, shuffle=False).batch(CONFIG.batch_size)
    model.train(1, dataset, callbacks=[recorder], dataset_sink_mode=False)
    state = [float(p.asnumpy().astype(np.float64).sum()) for p in optimizer.parameters]
    state += [float(np.abs(a.asnumpy().astype(np.float64)).sum()) for a in optimizer.accum]
    print(f"{mode} losses:", " ".join(repr(v) for v in recorder.losses))
    print(f"{mode} state:", " ".join(repr(v) for v in state))


if __name__ == "__main__":
    for mode_name in sys.argv[1:] or ["PYNATIVE_MODE"]:
        main(mode_name)
