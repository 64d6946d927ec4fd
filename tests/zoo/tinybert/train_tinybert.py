"""The zoo's TinyBERT (research/nlp/tinybert) at a tiny size, run as its scripts run on CPU: general distillation
(run_general_distill.py), then task distillation's two phases and its standalone evaluation (run_task_distill.py's
do_train and do_eval paths). The teacher is a BERT of 4 layers of hidden 32, the student a TinyBERT of 2 layers of
hidden 16; on CPU both scripts run float32 and turn the loss scale off, so they train through the zoo's BertTrainCell
(general) and BertEvaluationCell (task): a GradOperation with a `(1,)` sensitivity, gradients clipped by norm through
HyperMap of a MultitypeFuncGraph. The optimizer is AdamWeightDecay over the scripts' decay / no-decay groups with
`order_params`, on the zoo's BertLearningRate, driven by Model.train with the zoo's callbacks.

General distillation (BertNetworkWithLoss_gd): the teacher BertModel loaded from the teacher's checkpoint (`bert.bert.`
renamed to `teacher.`) and frozen, the student TinyBertModel from scratch; the loss the MSE of each student layer's
attention scores against every second teacher layer's (scores at or below -100, the masked ones, zeroed by Select)
plus the MSE of the fit_dense-projected student hidden states against the teacher's. ModelSaveCkpt saves the student.
Task distillation (BertNetworkWithLoss_td, teacher and student as BertModelCLS): phase 1 (run_predistill) loads the
teacher (`bert.` to `teacher.`) and the general-distillation checkpoint (`tinybert_` to `bert_`) and trains on the same
two MSEs, ModelSaveCkpt saving the student; phase 2 (run_task_distill) loads the newest phase-1 checkpoint into a fresh
network and trains on the zoo's SoftCrossEntropy of the student's logits against the teacher's, with the zoo's
EvalCallBack evaluating the student at each epoch's end (set_train(False): BertModelCLS returns its log-probabilities)
with the zoo's Accuracy and saving eval_model.ckpt at a better accuracy. Then do_eval_standalone's path: that
checkpoint loaded (renamed) into an evaluation BertModelCLS, its log-probabilities scored by Accuracy and F1; and
export.py's: the same, exported as MINDIR and read back through nn.GraphCell.

The data are the zoo's create_tinybert_dataset reading MindRecord files written here with FileWriter (rows of
input_ids, input_mask, segment_ids, label_ids; padding masked), not shuffled.

A MindSpore script: run it with MindSpore (the golden) or with `kiln run`. Usage: train_tinybert.py [--perturb EPS]
MODE...; for each MODE it prints `MODE gd losses: ...` and `MODE gd state: ...` (general distillation: each step's
loss; the sum of each trainable parameter, then the absolute sum of each AdamWeightDecay moment, after its last
step), `MODE predistill losses/state: ...` (the same for phase 1), `MODE losses/state: ...` (phase 2), `MODE eval
state: ...` (EvalCallBack's acc_num and total_num of each epoch, then the sum of each entry of eval_model.ckpt) and
`MODE standalone state: ...` (each row's log-probability of label 0, then Accuracy's and F1's counts) and `MODE
export state: ...` (the exported graph's log-probabilities of the first evaluation batch). `--perturb`
multiplies each seeded weight by 1 + EPS * N(0, 1): a measure of MindSpore's own sensitivity to rounding.

The zoo's configs: teacher 12 layers of 768, student 4 of 384 (12 heads each), sequences of 64 or 128, batch 32, lr
5e-5 (2e-5 in phase 2), dropout 0.1, epochs 3, 10 and 3. Here: teacher 4 layers of 32 (4 heads, intermediate 64),
student 2 of 16 (4 heads, the attention MSE needs the teacher's count; intermediate 32), vocabulary 50, sequences of
16, batch 2, lr 1e-2 (so that a few steps move the numbers), dropout 0 (it draws from MindSpore's generator), one
epoch of 2 steps for general distillation and phase 1, two of 2 for phase 2, 4 evaluation rows. The weights are
NumPy-seeded (the zoo's TruncatedNormal, Embedding and Dense initialisers draw from MindSpore's generator): the
teacher written as the checkpoint the scripts load, the parameters no checkpoint holds (general distillation's
student and each fit_dense; the student's classifier, which general distillation does not train) seeded in place.
The scripts sink the dataset; here dataset_sink_mode=False, so that each step's loss is seen.
"""

import os
import re
import sys
import tempfile

import mindspore as ms
import mindspore.common.dtype as mstype
import numpy as np
from mindspore import Tensor, export, load, nn
from mindspore.mindrecord import FileWriter
from mindspore.nn.optim import AdamWeightDecay
from mindspore.train.callback import TimeMonitor
from mindspore.train.serialization import load_checkpoint, load_param_into_net, save_checkpoint

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/zoo: LossRecorder
from loss_recorder import LossRecorder  # noqa: E402
from src.assessment_method import F1, Accuracy  # noqa: E402
from src.dataset import DataType, create_tinybert_dataset  # noqa: E402
from src.tinybert_for_gd_td import (  # noqa: E402
    BertEvaluationCell,
    BertNetworkWithLoss_gd,
    BertNetworkWithLoss_td,
    BertTrainCell,
)
from src.tinybert_model import BertConfig, BertModelCLS  # noqa: E402
from src.utils import BertLearningRate, EvalCallBack, LossCallBack, ModelSaveCkpt  # noqa: E402

VOCAB, SEQ, BATCH, LABELS, TRAIN_ROWS, EVAL_ROWS = 50, 16, 2, 2, 4, 4
GD_EPOCHS, PHASE1_EPOCHS, PHASE2_EPOCHS, MAX_CKPT_NUM = 1, 1, 2, 1


def net_config(layers: int, hidden: int, heads: int) -> BertConfig:
    return BertConfig(seq_length=SEQ, vocab_size=VOCAB, hidden_size=hidden, num_hidden_layers=layers,
                      num_attention_heads=heads, intermediate_size=2 * hidden, hidden_act="gelu",
                      hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0, max_position_embeddings=SEQ,
                      type_vocab_size=2, initializer_range=0.02, use_relative_positions=False,
                      dtype=mstype.float32, compute_type=mstype.float32)  # fmt: skip


TEACHER, STUDENT = net_config(4, 32, 4), net_config(2, 16, 4)


def create_filter_fun(keywords):  # src/model_utils/config.py's
    return lambda x: not (True in [key in x.name.lower() for key in keywords])  # noqa: E713


DECAY_FILTER = create_filter_fun(["layernorm", "bias"])
ADAM = {"learning_rate": 0.01, "power": 1.0, "weight_decay": 1e-4, "eps": 1e-6}


PERTURB = [0.0, np.random.RandomState(99)]  # --perturb EPS: each seeded weight times 1 + EPS * N(0, 1)


def seeded(shape, name: str, rng) -> np.ndarray:
    """A NumPy weight: LayerNorm gamma near 1 and beta near 0, the rest normal of 0.2 (the embeddings of 1)."""
    if "gamma" in name:
        value = 1 + 0.1 * rng.standard_normal(shape)
    elif "beta" in name or "bias" in name:
        value = 0.1 * rng.standard_normal(shape)
    else:
        value = (1.0 if "embedding" in name else 0.2) * rng.standard_normal(shape)
    if PERTURB[0]:  # a measure of MindSpore's own sensitivity to rounding (a uniform scale LayerNorm would cancel)
        value = value * (1 + PERTURB[0] * PERTURB[1].standard_normal(shape))
    return value.astype(np.float32)


def write_teacher_checkpoint(folder: str) -> str:
    """The teacher's fine-tuned checkpoint: BertModelCLS's names under `bert.`, as run_task_distill.py loads it (`bert.`
    to `teacher.`); run_general_distill.py reads the same file (`bert.bert.` to `teacher.`, the classifier left out)."""
    rng = np.random.RandomState(11)
    teacher = BertModelCLS(TEACHER, False, LABELS, 0.0, phase_type="teacher")
    entries = [{"name": "bert." + p.name, "data": Tensor(seeded(p.shape, p.name, rng))}
               for p in teacher.get_parameters()]  # fmt: skip
    teacher_ckpt = os.path.join(folder, "teacher.ckpt")
    save_checkpoint(entries, teacher_ckpt)
    return teacher_ckpt


def write_mindrecord(path: str, rows: int, seed: int) -> None:
    rng = np.random.RandomState(seed)
    schema = {name: {"type": "int64", "shape": [-1]} for name in ("input_ids", "input_mask", "segment_ids")}
    schema["label_ids"] = {"type": "int64", "shape": [-1]}
    writer = FileWriter(path, shard_num=1, overwrite=True)
    writer.add_schema(schema, "tinybert")
    samples = []
    for _ in range(rows):
        length = rng.randint(SEQ // 2, SEQ + 1)
        mask = (np.arange(SEQ) < length).astype(np.int64)
        ids = rng.randint(1, VOCAB, SEQ).astype(np.int64) * mask
        segments = (np.arange(SEQ) >= rng.randint(2, length)).astype(np.int64) * mask
        samples.append({"input_ids": ids, "input_mask": mask, "segment_ids": segments,
                        "label_ids": np.array([rng.randint(LABELS)], np.int64)})  # fmt: skip
    writer.write_raw_data(samples)
    writer.commit()


def seed_in_place(cells, seed: int) -> None:
    """Seed the parameters no checkpoint holds (their initialisers draw from MindSpore's generator)."""
    rng = np.random.RandomState(seed)
    for cell in cells:
        for p in cell.get_parameters():
            p.set_data(Tensor(seeded(p.shape, p.name, rng)))


def optimizer_for(netwithloss, steps: int, warmup_steps: int, end_learning_rate: float = 0.0):
    """The scripts' AdamWeightDecay: decay / no-decay groups in the network's order on BertLearningRate."""
    lr_schedule = BertLearningRate(learning_rate=ADAM["learning_rate"], end_learning_rate=end_learning_rate,
                                   warmup_steps=warmup_steps, decay_steps=steps, power=ADAM["power"])  # fmt: skip
    params = netwithloss.trainable_params()
    decay_params = list(filter(DECAY_FILTER, params))
    other_params = list(filter(lambda x: not DECAY_FILTER(x), params))
    group_params = [{"params": decay_params, "weight_decay": ADAM["weight_decay"]},
                    {"params": other_params, "weight_decay": 0.0},
                    {"order_params": params}]  # fmt: skip
    return AdamWeightDecay(group_params, learning_rate=lr_schedule, eps=ADAM["eps"])


def state_sums(optimizer) -> list[float]:
    state = [float(p.asnumpy().astype(np.float64).sum()) for p in optimizer.parameters]
    for moments in (optimizer.moments1, optimizer.moments2):
        state += [float(np.abs(m.asnumpy().astype(np.float64)).sum()) for m in moments]
    return state


def run_general_distill(teacher_ckpt, train_file, save_dir):
    """run_general_distill.py on CPU: BertTrainCell (no loss scale), the student TinyBertModel from scratch."""
    netwithloss = BertNetworkWithLoss_gd(teacher_config=TEACHER, teacher_ckpt=teacher_ckpt, student_config=STUDENT,
                                         is_training=True, use_one_hot_embeddings=False)  # fmt: skip
    seed_in_place([netwithloss.bert, netwithloss.fit_dense], 12)
    dataset = create_tinybert_dataset("gd", BATCH, 1, 0, "false", train_file, "", data_type=DataType.MINDRECORD)
    dataset_size = dataset.get_dataset_size()
    optimizer = optimizer_for(netwithloss, dataset_size * GD_EPOCHS, int(dataset_size * GD_EPOCHS / 10), 1e-14)
    recorder = LossRecorder()
    callback = [TimeMonitor(dataset_size), LossCallBack(),
                ModelSaveCkpt(netwithloss.bert, dataset_size, MAX_CKPT_NUM, save_dir), recorder]  # fmt: skip
    netwithgrads = BertTrainCell(netwithloss, optimizer=optimizer)
    model = ms.Model(netwithgrads)
    model.train(GD_EPOCHS, dataset, callbacks=callback, dataset_sink_mode=False)
    return recorder.losses, state_sums(optimizer)


def run_predistill(teacher_ckpt, student_ckpt, train_file, save_dir):
    netwithloss = BertNetworkWithLoss_td(teacher_config=TEACHER, teacher_ckpt=teacher_ckpt, student_config=STUDENT,
                                         student_ckpt=student_ckpt, is_training=True, task_type="classification",
                                         num_labels=LABELS, is_predistill=True)  # fmt: skip
    seed_in_place([netwithloss.bert.dense_1, netwithloss.fit_dense], 21)  # general distillation has no classifier
    dataset = create_tinybert_dataset("td", BATCH, 1, 0, "false", train_file, "", data_type=DataType.MINDRECORD)
    dataset_size = dataset.get_dataset_size()
    optimizer = optimizer_for(netwithloss, dataset_size * PHASE1_EPOCHS, int(dataset_size / 10))
    recorder = LossRecorder()
    callback = [TimeMonitor(dataset_size), LossCallBack(),
                ModelSaveCkpt(netwithloss.bert, dataset_size, MAX_CKPT_NUM, save_dir), recorder]  # fmt: skip
    netwithgrads = BertEvaluationCell(netwithloss, optimizer=optimizer)
    model = ms.Model(netwithgrads)
    model.train(PHASE1_EPOCHS, dataset, callbacks=callback, dataset_sink_mode=False)
    return recorder.losses, state_sums(optimizer)


def run_task_distill(teacher_ckpt, ckpt_file, train_file, eval_file):
    netwithloss = BertNetworkWithLoss_td(teacher_config=TEACHER, teacher_ckpt=teacher_ckpt, student_config=STUDENT,
                                         student_ckpt=ckpt_file, is_training=True, task_type="classification",
                                         num_labels=LABELS, is_predistill=False)  # fmt: skip
    seed_in_place([netwithloss.fit_dense], 22)
    train_dataset = create_tinybert_dataset("td", BATCH, 1, 0, "false", train_file, "",
                                            data_type=DataType.MINDRECORD)  # fmt: skip
    dataset_size = train_dataset.get_dataset_size()
    optimizer = optimizer_for(netwithloss, dataset_size * PHASE2_EPOCHS, int(dataset_size * PHASE2_EPOCHS / 10))
    eval_dataset = create_tinybert_dataset("td", BATCH, 1, 0, "false", eval_file, "", data_type=DataType.MINDRECORD)
    recorder = LossRecorder()
    evaluate = EvalCallBack(netwithloss.bert, eval_dataset)
    callback = [TimeMonitor(dataset_size), LossCallBack(), evaluate, recorder]
    netwithgrads = BertEvaluationCell(netwithloss, optimizer=optimizer)
    model = ms.Model(netwithgrads)
    model.train(PHASE2_EPOCHS, train_dataset, callbacks=callback, dataset_sink_mode=False)
    return recorder.losses, state_sums(optimizer)


def do_eval_standalone(ckpt_file, eval_file):
    eval_model = BertModelCLS(STUDENT, False, LABELS, 0.0, phase_type="student")
    param_dict = load_checkpoint(ckpt_file)
    new_param_dict = {}
    for key, value in param_dict.items():
        new_key = re.sub("tinybert_", "bert_", key)
        new_key = re.sub("^bert.", "", new_key)
        new_param_dict[new_key] = value
    load_param_into_net(eval_model, new_param_dict)
    eval_model.set_train(False)
    eval_dataset = create_tinybert_dataset("td", batch_size=BATCH, device_num=1, rank=0, do_shuffle="false",
                                           data_dir=eval_file, schema_dir="",
                                           data_type=DataType.MINDRECORD)  # fmt: skip
    accuracy, f1 = Accuracy(), F1(num_labels=LABELS)
    sums = []
    columns_list = ["input_ids", "input_mask", "segment_ids", "label_ids"]
    for data in eval_dataset.create_dict_iterator(num_epochs=1):
        input_ids, input_mask, token_type_id, label_ids = [data[i] for i in columns_list]
        logits = eval_model(input_ids, token_type_id, input_mask)
        accuracy.update(logits, label_ids)
        f1.update(logits, label_ids)
        sums += [float(v) for v in logits.asnumpy()[:, 0]]
    return sums + [int(accuracy.acc_num), int(accuracy.total_num), int(f1.TP), int(f1.FP), int(f1.FN)]


def run_export(ckpt_file, eval_file) -> list[float]:
    """export.py: the checkpoint renamed into a prediction BertModelCLS, exported as MINDIR at zeros of the input shape
    (here the batch of 2, not export.py's 32), read back through nn.GraphCell and run on the first evaluation batch."""
    eval_model = BertModelCLS(STUDENT, False, LABELS, 0.0, phase_type="student")
    param_dict = load_checkpoint(ckpt_file)
    new_param_dict = {}
    for key, value in param_dict.items():
        new_key = re.sub("tinybert_", "bert_", key)
        new_key = re.sub("^bert.", "", new_key)
        new_param_dict[new_key] = value
    load_param_into_net(eval_model, new_param_dict)
    eval_model.set_train(False)
    input_ids = Tensor(np.zeros((BATCH, SEQ), np.int32))
    token_type_id = Tensor(np.zeros((BATCH, SEQ), np.int32))
    input_mask = Tensor(np.zeros((BATCH, SEQ), np.int32))
    export(eval_model, input_ids, token_type_id, input_mask, file_name="tinybert", file_format="MINDIR")
    graph = nn.GraphCell(load("tinybert.mindir"))
    eval_dataset = create_tinybert_dataset("td", BATCH, 1, 0, "false", eval_file, "", data_type=DataType.MINDRECORD)
    data = next(eval_dataset.create_dict_iterator(num_epochs=1))
    log_probs = graph(data["input_ids"], data["segment_ids"], data["input_mask"])
    return [float(v) for v in log_probs.asnumpy().ravel()]


def main(mode: str) -> None:
    ms.set_context(mode=getattr(ms, mode), device_target="CPU")
    ms.set_seed(1001)
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as work:
        os.chdir(work)  # EvalCallBack writes ./eval.log and ./eval_model.ckpt
        try:
            run(mode, work)
        finally:
            os.chdir(here)


def run(mode: str, work: str) -> None:
    train_file, eval_file = os.path.join(work, "train.mindrecord"), os.path.join(work, "eval.mindrecord")
    write_mindrecord(train_file, TRAIN_ROWS, 31)
    write_mindrecord(eval_file, EVAL_ROWS, 32)
    teacher_ckpt = write_teacher_checkpoint(work)
    gd_dir = os.path.join(work, "gd_save_ckpt")
    os.makedirs(gd_dir)
    losses0, state0 = run_general_distill(teacher_ckpt, train_file, gd_dir)
    gd_ckpt = os.path.join(gd_dir, sorted(os.listdir(gd_dir))[-1])
    print("general distillation checkpoint:", os.path.basename(gd_ckpt))
    phase1_dir = os.path.join(work, "tinybert_td_phase1_save_ckpt")
    os.makedirs(phase1_dir)
    losses1, state1 = run_predistill(teacher_ckpt, gd_ckpt, train_file, phase1_dir)
    lists = os.listdir(phase1_dir)
    lists.sort(key=lambda fn: os.path.getmtime(phase1_dir + "/" + fn))
    print("phase 1 checkpoints:", " ".join(lists))
    losses2, state2 = run_task_distill(teacher_ckpt, os.path.join(phase1_dir, lists[-1]), train_file, eval_file)
    with open("eval.log") as f:
        eval_counts = [int(n) for pair in re.findall(r"acc_num (\d+), total_num(\d+)", f.read()) for n in pair]
    eval_ckpt = load_checkpoint("eval_model.ckpt")
    eval_state = eval_counts + [float(v.asnumpy().astype(np.float64).sum()) for v in eval_ckpt.values()]
    standalone = do_eval_standalone("eval_model.ckpt", eval_file)
    exported = run_export("eval_model.ckpt", eval_file)
    print(f"{mode} gd losses:", " ".join(repr(v) for v in losses0))
    print(f"{mode} gd state:", " ".join(repr(v) for v in state0))
    print(f"{mode} predistill losses:", " ".join(repr(v) for v in losses1))
    print(f"{mode} predistill state:", " ".join(repr(v) for v in state1))
    print(f"{mode} losses:", " ".join(repr(v) for v in losses2))
    print(f"{mode} state:", " ".join(repr(v) for v in state2))
    print(f"{mode} eval state:", " ".join(repr(v) for v in eval_state))
    print(f"{mode} standalone state:", " ".join(repr(v) for v in standalone))
    print(f"{mode} export state:", " ".join(repr(v) for v in exported))


if __name__ == "__main__":
    args = sys.argv[1:]
    if args and args[0] == "--perturb":
        PERTURB[0] = float(args[1])
        args = args[2:]
    for mode_name in args or ["PYNATIVE_MODE"]:
        main(mode_name)
