"""Training LeNet5 on the digits in one execution mode, with the timing the demo reports."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

import kiln
from kiln import nn
from kiln.demo.lenet import LeNet5
from kiln.train import Accuracy, Callback, LossMonitor, Model


@dataclass
class RunResult:
    """What one mode's training produced."""

    mode_name: str
    step_losses: list[float] = field(default_factory=list)
    epoch_accuracy: list[float] = field(default_factory=list)
    epoch_train_seconds: list[float] = field(default_factory=list)
    steps_per_epoch: int = 0
    network: object = None

    @property
    def first_epoch_seconds(self) -> float:
        return self.epoch_train_seconds[0]

    @property
    def ms_per_step(self) -> float:
        """Steady-state time per training step: epochs after the first (which includes compilation)."""
        later = self.epoch_train_seconds[1:] or self.epoch_train_seconds
        return 1000 * sum(later) / (len(later) * self.steps_per_epoch)


class _Recorder(Callback):
    """Per-step losses, per-epoch accuracy, and the training time of each epoch (evaluation excluded)."""

    def __init__(self, result: RunResult) -> None:
        self.result = result
        self._start = 0.0

    def on_train_epoch_begin(self, run_context) -> None:
        self._start = time.perf_counter()

    def on_train_step_end(self, run_context) -> None:
        out = run_context.original_args().net_outputs
        self.result.step_losses.append(float(np.asarray(out.asnumpy())))

    def on_eval_begin(self, run_context) -> None:
        # Training of this epoch is done once evaluation starts (the step losses above already waited for it).
        self.result.epoch_train_seconds.append(time.perf_counter() - self._start)

    def on_train_epoch_end(self, run_context) -> None:
        metrics = run_context.original_args().get("metrics") or {}
        if "Accuracy" in metrics:
            self.result.epoch_accuracy.append(float(metrics["Accuracy"]))


def train_lenet(mode: int, train_ds, test_ds, epochs: int, seed: int) -> RunResult:
    """Train a fresh LeNet5 in `mode` (kiln.PYNATIVE_MODE or kiln.GRAPH_MODE), evaluating after each epoch."""
    kiln.set_context(mode=mode)
    kiln.set_seed(seed)
    result = RunResult("Graph" if mode == kiln.GRAPH_MODE else "PyNative")
    net = LeNet5()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.02, momentum=0.9)
    model = Model(net, loss_fn=loss, optimizer=opt, metrics={"Accuracy": Accuracy()})
    result.steps_per_epoch = train_ds.get_dataset_size()
    result.network = net
    model.fit(epochs, train_ds, test_ds, callbacks=[LossMonitor(result.steps_per_epoch), _Recorder(result)])
    return result
