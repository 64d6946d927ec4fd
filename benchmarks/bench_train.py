"""One epoch of LeNet5 on MNIST-shaped data through the whole pipeline, Kiln (Graph mode) vs MindSpore.

    python benchmarks/bench_train.py [--images 60000] [--batch-size 32] [--no-mindspore]

The training code below is written against MindSpore's API and runs unchanged on
both frameworks: on Kiln through the `mindspore` import alias of `kiln run`, on
MindSpore 2.10 in its own virtual environment (/work/msenv, when present) as a
subprocess. Each worker writes nothing but a JSON line of timings:

- epoch time (a warm-up epoch first, so compilation is excluded; its time is reported separately),
- the input pipeline's share: in a third epoch that waits for each step's result, the time from a step's
  end to the next step's start (fetching and converting the next batch), over that epoch's time,
- the pipeline alone: how fast MnistDataset -> map -> batch yields batches without training.

Targets (issue 4): pipeline share < 10%, Kiln >= 10x faster per epoch than MindSpore.
"""

from __future__ import annotations

import argparse
import json
import os
import struct
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
MSENV_PYTHON = "/work/msenv/bin/python"


def write_mnist(folder: str, n: int, seed: int = 0) -> None:
    """MNIST-format IDX files (train split) with `n` synthetic 28x28 digits."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 10, n).astype(np.uint8)
    images = rng.integers(0, 60, (n, 28, 28), dtype=np.uint8)
    rows = 3 + 2 * labels.astype(np.int64)
    for k in range(2):
        images[np.arange(n), rows + k, 4:24] = 255
    os.makedirs(folder, exist_ok=True)
    for name, arr, magic in (("train-images-idx3-ubyte", images, 0x803), ("train-labels-idx1-ubyte", labels, 0x801)):
        with open(os.path.join(folder, name), "wb") as f:
            f.write(struct.pack(">I", magic) + struct.pack(f">{arr.ndim}I", *arr.shape) + arr.tobytes())


# ---------------------------------------------------------------------------------------------------------------
# The worker: MindSpore API only (run as `mindspore` = Kiln or real MindSpore).


def worker(data_dir: str, batch_size: int, framework: str) -> dict:
    import mindspore as ms
    from mindspore import Model, nn
    from mindspore.common.initializer import Normal
    from mindspore.dataset import MnistDataset, transforms, vision
    from mindspore.train import Callback

    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_seed(0)

    def pipeline():
        ds = MnistDataset(data_dir, shuffle=True)
        ds = ds.map(operations=transforms.TypeCast(ms.int32), input_columns="label")
        ds = ds.map(
            operations=[
                vision.Resize(32),
                vision.Rescale(1.0 / 255.0, 0),
                vision.Normalize(mean=(0.1307,), std=(0.3081,)),
                vision.HWC2CHW(),
            ],
            input_columns="image",
        )
        return ds.batch(batch_size, drop_remainder=True)

    class LeNet5(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 6, 5, pad_mode="valid")
            self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid")
            self.relu = nn.ReLU()
            self.max_pool2d = nn.MaxPool2d(kernel_size=2, stride=2)
            self.flatten = nn.Flatten()
            self.fc1 = nn.Dense(400, 120, weight_init=Normal(0.02))
            self.fc2 = nn.Dense(120, 84, weight_init=Normal(0.02))
            self.fc3 = nn.Dense(84, 10, weight_init=Normal(0.02))

        def construct(self, x):
            x = self.max_pool2d(self.relu(self.conv1(x)))
            x = self.max_pool2d(self.relu(self.conv2(x)))
            x = self.flatten(x)
            x = self.relu(self.fc1(x))
            x = self.relu(self.fc2(x))
            return self.fc3(x)

    class Timer(Callback):
        """Epoch times; in the last epoch also the time from a step's end to the next step's start.

        Epoch 1 compiles. Epoch 2 runs as usual (steps are dispatched asynchronously) and gives the epoch
        time. Epoch 3 waits for each step's result before taking the next batch, so that the time until
        the next step starts is purely the input pipeline's (with asynchronous dispatch that gap would
        also hold the wait for the device); it gives the pipeline's share of the step time.
        """

        def __init__(self, epochs):
            self.n, self.epochs, self.wait, self.last_loss = epochs, [], 0.0, None

        def on_train_epoch_begin(self, run_context):
            self.sync = len(self.epochs) == self.n - 1
            self.start = self.mark = time.perf_counter()
            self.wait = 0.0

        def on_train_step_begin(self, run_context):
            self.wait += time.perf_counter() - self.mark

        def on_train_step_end(self, run_context):
            if self.sync:
                run_context.original_args().net_outputs.asnumpy()
            self.mark = time.perf_counter()

        def on_train_epoch_end(self, run_context):
            out = run_context.original_args().net_outputs
            self.last_loss = float(out.asnumpy())  # waits for the device, so the epoch time is complete
            self.epochs.append(time.perf_counter() - self.start)

    t0 = time.perf_counter()
    n_batches = 0
    for _ in pipeline().create_tuple_iterator(num_epochs=1):
        n_batches += 1
    pipeline_alone = time.perf_counter() - t0

    net = LeNet5()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)
    model = Model(net, loss_fn=loss, optimizer=opt)
    timer = Timer(3)
    model.train(3, pipeline(), callbacks=[timer], dataset_sink_mode=False)
    return {
        "framework": framework,
        "steps": n_batches,
        "first_epoch_s": timer.epochs[0],
        "epoch_s": timer.epochs[1],
        "step_ms": 1000 * timer.epochs[1] / n_batches,
        "data_wait_share": timer.wait / timer.epochs[2],
        "pipeline_alone_s": pipeline_alone,
        "final_loss": timer.last_loss,
    }


def _run_worker(python: str, data_dir: str, batch_size: int, framework: str) -> dict:
    env = dict(os.environ, KILN_PROGRESS="0", PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    cmd = [
        python,
        os.path.abspath(__file__),
        "--worker",
        framework,
        "--data",
        data_dir,
        "--batch-size",
        str(batch_size),
    ]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    if proc.returncode != 0 or not lines:
        raise RuntimeError(
            f"{framework} worker failed (exit {proc.returncode}):\n{proc.stdout[-3000:]}{proc.stderr[-3000:]}"
        )
    return json.loads(lines[-1])


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--images", type=int, default=60000, help="images in the epoch (default: MNIST's 60000)")
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument(
        "--mindspore-images",
        type=int,
        default=9600,
        help="images per MindSpore epoch (default 9600: its epoch time is projected to --images from the "
        "per-step time, since a full MindSpore epoch takes minutes on CPU)",
    )
    p.add_argument("--no-mindspore", action="store_true", help="skip the MindSpore comparison")
    p.add_argument("--worker", choices=["kiln", "mindspore"], help=argparse.SUPPRESS)
    p.add_argument("--data", help=argparse.SUPPRESS)
    args = p.parse_args(argv)

    if args.worker:
        if args.worker == "kiln":
            from kiln.cli.alias import install

            install()
        print(json.dumps(worker(args.data, args.batch_size, args.worker)), flush=True)
        return 0

    with tempfile.TemporaryDirectory() as tmp:
        data_dir = os.path.join(tmp, "mnist")
        write_mnist(data_dir, args.images)
        results = [_run_worker(sys.executable, data_dir, args.batch_size, "kiln")]
        if not args.no_mindspore and os.path.exists(MSENV_PYTHON):
            ms_dir = data_dir
            if args.mindspore_images < args.images:
                ms_dir = os.path.join(tmp, "mnist_small")
                write_mnist(ms_dir, args.mindspore_images)
            r = _run_worker(MSENV_PYTHON, ms_dir, args.batch_size, "mindspore")
            r["measured_steps"] = r["steps"]
            r["epoch_s"] = r["step_ms"] * results[0]["steps"] / 1000  # projected to the same number of steps
            results.append(r)

    print(f"LeNet5, one epoch of {args.images} MNIST-shaped images, batch {args.batch_size}, Graph mode")
    print(f"{'framework':<11}{'epoch':>10}{'per step':>11}{'1st epoch':>11}{'data wait':>11}{'pipeline alone':>16}")
    for r in results:
        print(
            f"{r['framework']:<11}{r['epoch_s']:>8.2f} s{r['step_ms']:>8.2f} ms{r['first_epoch_s']:>9.2f} s"
            f"{100 * r['data_wait_share']:>10.1f}%{r['pipeline_alone_s']:>14.2f} s"
        )
    for r in results[1:]:
        if r["measured_steps"] != results[0]["steps"]:
            print(
                f"({r['framework']}: measured over {r['measured_steps']} steps; its epoch time is projected to "
                f"{results[0]['steps']} steps from the per-step time)"
            )
    kiln_r = results[0]
    print(f"Kiln input pipeline share of step time: {100 * kiln_r['data_wait_share']:.1f}% (target < 10%)")
    if len(results) > 1:
        speedup = results[1]["epoch_s"] / kiln_r["epoch_s"]
        print(f"Kiln vs MindSpore 2.10, per epoch: {speedup:.1f}x faster (target >= 10x)")
    else:
        print("MindSpore comparison skipped (no /work/msenv or --no-mindspore).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
