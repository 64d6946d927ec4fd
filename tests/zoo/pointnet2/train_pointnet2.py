"""Four steps of the zoo's PointNet++ (official/cv/PointNet2/src/pointnet2.py, pointnet2_utils.py, layers.py: three
PointNetSetAbstraction layers, the first two sampling centroids by farthest-point sampling (a Python loop of GatherNd,
ReduceSum, Minimum and Argmax writing each centroid into a Tensor by index, its random start a NumPy draw in a
@constexpr) and grouping neighbours by ball query (a matmul square distance, Select, TopK of float indices, Maximum
with the first neighbour), the third grouping all points; each a Reshape/Transpose shuffle, three 1x1 Conv2d (the
zoo's own Conv2d over P.Conv2D), BatchNorm2d and ReLU, and a ReduceMax over the neighbours; then Dense, BatchNorm1d
and ReLU twice, the last Dense and LogSoftmax) trained as its train.py wires it: the NumPy-seeded weights loaded as
its pretrained checkpoint, the zoo's NLLLoss (OneHot of scalar_to_tensor values, a per-sample ReduceSum: the loss is
a vector of one value per sample), AdamWeightDecay (beta1 0.9, beta2 0.999, eps 1e-8, weight decay 1e-4) on the
MultiStepLR array, and Model(net, loss, opt).train with its TimeMonitor, LossMonitor and ModelCheckpoint; then
evaluated as eval.py does (a checkpoint loaded into a new network, Model with the Accuracy metric, set_train(False),
Model.eval with dataset_sink_mode=True), on the seeded weights and on the last checkpoint, and exported as export.py
does (MINDIR), read back through nn.GraphCell.

A MindSpore script: run it with MindSpore (the golden) or with `kiln run`. Usage: train_pointnet2.py [--perturb EPS]
MODE...; for each MODE it prints `MODE losses: ...` (each step's per-sample losses), `MODE step1 state: ...` and
`MODE state: ...` (after the first and the last step: the sum of each parameter, the absolute sum of each Adam
moment and the sum of each BatchNorm moving statistic), `MODE draws state: ...` (a NumPy draw after training: it
tells whether the farthest-point sampling's @constexpr drew as many random starts: at every call in PyNative, once
at compilation in GRAPH_MODE), and for each evaluated checkpoint CKPT `MODE CKPT accuracy state: ...`, `MODE CKPT
eval state: ...` (the log-probabilities of each sample) and `MODE CKPT draws state: ...`, then `MODE export state:
...` (the exported graph's log-probabilities) and `MODE export draws state: ...`. `--perturb` scales each
initial weight by 1 + EPS times a standard normal draw, a measure of the network's own sensitivity.

The zoo trains ModelNet40 clouds of 1024 points, batch 24, with npoint 512 and 128, nsample 32 and 64; here 64
points, batch 8, 10 classes, npoint 16 and 8, nsample 8 each (the set-abstraction layers' attributes, set after
construction; radii and widths are the zoo's), 2 epochs of 2 steps. At batch 2 the head's BatchNorm1d normalises two
values per channel (to +-1 whatever they are): the gradients upstream are rounding noise, which Adam's
first step turns into full steps of either sign (a 1e-7 change of the weights moved step-2 losses by up to 17%). The
data are synthetic clouds written as ModelNet's text files and read by the zoo's DatasetGenerator through
GeneratorDataset and batch with train.py's per_batch_map RandomInputDropout (one worker, no multiprocessing), in a
pass before training (the per_batch_map and the sampling's start draw from the one NumPy generator: a pipeline
running beside the training would interleave them at random); the batches are then trained from a NumpySlicesDataset;
the evaluations read the test split (the same clouds, unaugmented) as eval.py does, on one worker. The weights are
NumPy-seeded (the zoo's HeUniform and Uniform take their values from MindSpore's own generator, which a NumPy draw
seeds: building a network moves NumPy's generator, as Kiln's does), the two Dropouts replaced by Identity (their
masks come from the framework's generator); dataset_sink_mode=False, train.py's default.
"""

import argparse
import os
import sys
import tempfile

import mindspore as ms
import numpy as np
from mindspore import Tensor, export, load, nn
from mindspore.nn.metrics import Accuracy
from mindspore.train.callback import CheckpointConfig, LossMonitor, ModelCheckpoint, TimeMonitor
from mindspore.train.serialization import load_checkpoint, load_param_into_net

# the zoo sources vendored for the zoo benchmark: <repo>/benchmarks/zoo/pointnet2/src/
sys.path.insert(
    0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "benchmarks", "zoo", "pointnet2")
)
from src.dataset import DatasetGenerator, pc_normalize  # noqa: E402
from src.lr_scheduler import MultiStepLR  # noqa: E402
from src.pointnet2 import NLLLoss, PointNet2  # noqa: E402
from src.provider import RandomInputDropout  # noqa: E402

BATCH, POINTS, CLASSES, EPOCHS, STEPS_PER_EPOCH = 8, 64, 10, 2, 2
SAMPLING = {"sa1": (16, 8), "sa2": (8, 8)}  # npoint, nsample


def write_modelnet(root: str) -> None:
    """BATCH * STEPS_PER_EPOCH clouds as ModelNet10's resampled text files (x, y, z and a normal per line): points
    on an ellipsoid whose axes depend on the class, with noise, normalised to the unit sphere."""
    rng = np.random.RandomState(5)
    names = [f"shape{c}" for c in range(CLASSES)]
    labels = rng.randint(0, CLASSES, BATCH * STEPS_PER_EPOCH)
    axes = 0.5 + rng.uniform(0, 1, (CLASSES, 3))
    ids = []
    for i, label in enumerate(labels):
        direction = rng.standard_normal((POINTS, 3))
        direction /= np.linalg.norm(direction, axis=1, keepdims=True)
        xyz = pc_normalize(direction * axes[label] + 0.05 * rng.standard_normal((POINTS, 3)))
        cloud = np.concatenate([xyz, direction], axis=1)
        ids.append(f"{names[label]}_{i:04d}")
        os.makedirs(os.path.join(root, names[label]), exist_ok=True)
        np.savetxt(os.path.join(root, names[label], ids[-1] + ".txt"), cloud, fmt="%.6f", delimiter=",")
    with open(os.path.join(root, "modelnet10_shape_names.txt"), "w") as f:
        f.write("\n".join(names) + "\n")
    for split in ("train", "test"):
        with open(os.path.join(root, f"modelnet10_{split}.txt"), "w") as f:
            f.write("\n".join(ids) + "\n")


def augmented_batches(root: str) -> tuple[np.ndarray, np.ndarray]:
    """train.py's pipeline, read through once: DatasetGenerator, GeneratorDataset, batch with RandomInputDropout."""
    args = argparse.Namespace(num_point=POINTS, use_uniform_sample=False, use_normals=False, num_category=CLASSES)
    generator = DatasetGenerator(root=root, args=args, split="train", process_data=False)
    dataset = ms.dataset.GeneratorDataset(generator, ["data", "label"], num_parallel_workers=1, shuffle=False)
    dataset = dataset.batch(batch_size=BATCH, drop_remainder=True, per_batch_map=RandomInputDropout(),
                            input_columns=["data", "label"], num_parallel_workers=1,
                            python_multiprocessing=False)  # fmt: skip
    assert dataset.get_dataset_size() == STEPS_PER_EPOCH
    data, labels = zip(*dataset.create_tuple_iterator(output_numpy=True))
    return np.concatenate(data).astype(np.float32), np.concatenate(labels).astype(np.int32)


def init_weights(net, perturb: float) -> None:
    """NumPy-seeded weights in the zoo's kinds: HeUniform(sqrt(5)) convolutions and Dense weights (bound
    1/sqrt(fan_in)), Uniform(1/sqrt(fan_in)) Dense biases, BatchNorm gamma near 1 and beta near 0 (perturbed, so
    that every one of them matters); each element scaled by 1 + perturb * a standard normal draw."""
    rng, noise = np.random.RandomState(71), np.random.RandomState(72)
    fan_in = 1
    for p in net.trainable_params():
        shape = p.shape
        if len(shape) >= 2:  # (out, in) or (out, in, 1, 1)
            fan_in = int(np.prod(shape[1:]))
            value = rng.uniform(-1, 1, shape) / np.sqrt(fan_in)
        elif "gamma" in p.name:
            value = 1 + 0.1 * rng.standard_normal(shape)
        elif "beta" in p.name:
            value = 0.1 * rng.standard_normal(shape)
        else:  # a Dense's bias, after its weight
            value = rng.uniform(-1, 1, shape) / np.sqrt(fan_in)
        p.set_data(Tensor((value * (1 + perturb * noise.standard_normal(shape))).astype(np.float32)))


def state_sums(net, optimizer) -> list[float]:
    """The sum of each parameter, the absolute sum of each Adam moment and the sum of each BatchNorm moving
    statistic."""
    state = [float(p.asnumpy().astype(np.float64).sum()) for p in optimizer.parameters]
    for moments in (optimizer.moments1, optimizer.moments2):
        state += [float(np.abs(m.asnumpy().astype(np.float64)).sum()) for m in moments]
    state += [float(p.asnumpy().astype(np.float64).sum()) for p in net.get_parameters() if "moving_" in p.name]
    return state


class Recorder(ms.train.callback.Callback):
    """Keeps each step's per-sample losses (the zoo's NLLLoss returns one per sample) and the state sums after the
    first step."""

    def __init__(self, net, optimizer):
        super().__init__()
        self.net, self.optimizer, self.losses, self.first = net, optimizer, [], None

    def step_end(self, run_context):
        self.losses += [float(v) for v in run_context.original_args().net_outputs.asnumpy().reshape(-1)]
        if self.first is None:
            self.first = state_sums(self.net, self.optimizer)


class EvalRecorder(ms.train.callback.Callback):
    """Keeps each evaluation step's log-probabilities (the eval network returns the loss, the outputs, the label)."""

    def __init__(self):
        super().__init__()
        self.outputs = []

    def step_end(self, run_context):
        self.outputs += [float(v) for v in run_context.original_args().net_outputs[1].asnumpy().reshape(-1)]


def build_net():
    """The zoo's PointNet2 at this file's sizes, its Dropouts replaced by Identity."""
    net = PointNet2(CLASSES, normal_channel=False)
    for name, (npoint, nsample) in SAMPLING.items():
        getattr(net, name).npoint, getattr(net, name).nsample = npoint, nsample
    net.drop1, net.drop2 = nn.Identity(), nn.Identity()
    return net


def train(mode: str, root: str, data: np.ndarray, labels: np.ndarray) -> None:
    """train.py's run_train from its model on: the NumPy-seeded weights come in as its pretrained checkpoint."""
    net = build_net()
    load_param_into_net(net, load_checkpoint(os.path.join(root, "pretrained.ckpt")))
    net_loss = NLLLoss()
    lr = MultiStepLR(0.001, list(range(20, 201, 20)), 0.7, STEPS_PER_EPOCH, EPOCHS).get_lr()
    optimizer = nn.AdamWeightDecay(net.trainable_params(), learning_rate=Tensor(lr), beta1=0.9, beta2=0.999,
                                   eps=1e-08, weight_decay=1e-4)  # fmt: skip
    model = ms.Model(net, net_loss, optimizer)
    config_ck = CheckpointConfig(save_checkpoint_steps=STEPS_PER_EPOCH, keep_checkpoint_max=5)
    ckpt_cb = ModelCheckpoint(prefix="ckpt_pointnet2", directory=root, config=config_ck)
    recorder = Recorder(net, optimizer)
    callbacks = [TimeMonitor(), LossMonitor(max(STEPS_PER_EPOCH // 5, 1)), ckpt_cb, recorder]
    dataset = ms.dataset.NumpySlicesDataset({"data": data, "label": labels}, shuffle=False).batch(BATCH)
    net.set_train()
    np.random.seed(13)  # the sampling's random starts (building a network draws: each initializer's seed)
    model.train(EPOCHS, dataset, callbacks=callbacks, dataset_sink_mode=False)
    print(f"{mode} losses:", " ".join(repr(v) for v in recorder.losses))
    print(f"{mode} step1 state:", " ".join(repr(v) for v in recorder.first))
    print(f"{mode} state:", " ".join(repr(v) for v in state_sums(net, optimizer)))
    print(f"{mode} draws state:", repr(float(np.random.random())))


def test_dataset(root: str):
    """eval.py's test dataset (the same clouds as training's, without RandomInputDropout), on one worker."""
    args = argparse.Namespace(num_point=POINTS, use_uniform_sample=False, use_normals=False, num_category=CLASSES)
    generator = DatasetGenerator(root=root, args=args, split="test", process_data=False)
    test_ds = ms.dataset.GeneratorDataset(generator, ["data", "label"], num_parallel_workers=1, shuffle=False)
    return test_ds.batch(batch_size=BATCH, drop_remainder=True, num_parallel_workers=1)


def first_test_batch(root: str) -> np.ndarray:
    """The clouds of the test dataset's first batch."""
    return next(test_dataset(root).create_tuple_iterator(output_numpy=True))[0]


def evaluate(mode: str, root: str, checkpoint: str) -> None:
    """eval.py's run_eval on the test split."""
    test_ds = test_dataset(root)
    net = build_net()
    load_param_into_net(net, load_checkpoint(os.path.join(root, checkpoint)))
    model = ms.Model(net, NLLLoss(), metrics={"Accuracy": Accuracy()})
    net.set_train(False)
    recorder = EvalRecorder()
    np.random.seed(17)
    result = model.eval(test_ds, callbacks=[recorder], dataset_sink_mode=True)
    print(f"{mode} {checkpoint} accuracy state:", repr(float(result["Accuracy"])))
    print(f"{mode} {checkpoint} eval state:", " ".join(repr(v) for v in recorder.outputs))
    print(f"{mode} {checkpoint} draws state:", repr(float(np.random.random())))


def export_and_run(mode: str, root: str, checkpoint: str, test_data: np.ndarray) -> None:
    """export.py's export of a checkpoint (set_train(False), an input of ones), the file read back through
    nn.GraphCell and run on the first test batch. Seeded as evaluate is: the graph's random starts are those of the
    evaluation's first batch."""
    net = build_net()
    load_param_into_net(net, load_checkpoint(os.path.join(root, checkpoint)))
    net.set_train(False)
    input_arr = Tensor(np.ones([BATCH, POINTS, 3]), ms.float32)
    np.random.seed(17)
    export(net, input_arr, file_name=os.path.join(root, "PointNet2"), file_format="MINDIR")
    graph = nn.GraphCell(load(os.path.join(root, "PointNet2.mindir")))
    outputs = graph(Tensor(test_data)).asnumpy().reshape(-1)
    print(f"{mode} export state:", " ".join(repr(float(v)) for v in outputs))
    print(f"{mode} export draws state:", repr(float(np.random.random())))


def main(mode: str, perturb: float) -> None:
    ms.set_context(mode=getattr(ms, mode), max_call_depth=2048)  # train.py's
    with tempfile.TemporaryDirectory() as root:
        write_modelnet(root)
        np.random.seed(11)  # RandomInputDropout's draws
        data, labels = augmented_batches(root)
        seeded = build_net()
        init_weights(seeded, perturb)
        ms.save_checkpoint(seeded, os.path.join(root, "pretrained.ckpt"))
        train(mode, root, data, labels)
        last = f"ckpt_pointnet2-{EPOCHS}_{STEPS_PER_EPOCH}.ckpt"
        for checkpoint in ("pretrained.ckpt", last):
            evaluate(mode, root, checkpoint)
        export_and_run(mode, root, last, first_test_batch(root))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--perturb", type=float, default=0.0)
    parser.add_argument("modes", nargs="*", default=["PYNATIVE_MODE"])
    options = parser.parse_args()
    for mode_name in options.modes:
        main(mode_name, options.perturb)
