"""One model trained in one execution mode, with the timing the demo reports.

The training loop is what a MindSpore 2.x user writes: a `nn.TrainOneStepCell` over a `nn.WithLossCell`,
called once per batch; only `set_context(mode=...)` differs between the two modes. The timing follows the
rules of a fair benchmark:

- every batch is on the device before the clock starts (the input pipeline is not what is compared);
- steps are timed in chunks: the clock reads before the chunk and after the chunk's last result *and every
  parameter* have been computed (a device synchronisation), with no host synchronisation inside the chunk,
  so asynchronous dispatch can neither hide work nor be defeated;
- the step time is the median over chunks of (chunk time / steps), leaving out the first chunk (warm-up);
- the first step (which compiles the step's program) is timed alone; a program large enough to be tiered
  (kiln/_backend/tiers.py) first runs a quickly compiled executable while the optimised one compiles in the
  background, and the demo waits for the optimised one after the first step (`tier_up_seconds`), so the step
  times compare the two modes' optimised programs and "compile" counts all the compiling.
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from tqdm.auto import tqdm

import kiln
from kiln import Tensor, nn
from kiln._backend.cache import wait_optimized


@dataclass
class ModelSpec:
    """What the demo trains: a name, a network factory, an optimizer factory and the data."""

    name: str
    build: Callable[[], nn.Cell]
    optimizer: Callable[[list], nn.Cell]
    data: tuple  # (x_train, y_train, x_test, y_test) as NumPy arrays
    batch_size: int
    epochs: int


@dataclass
class RunResult:
    """What one mode's training produced."""

    model: str
    mode_name: str
    step_losses: list[float] = field(default_factory=list)
    epoch_accuracy: list[float] = field(default_factory=list)
    chunk_seconds_per_step: list[float] = field(default_factory=list)
    first_step_seconds: float = 0.0
    tier_up_seconds: float = 0.0  # after the first step, the wait for the optimised programs
    steps_per_epoch: int = 0
    params: dict[str, np.ndarray] = field(default_factory=dict)
    network: object = None

    @property
    def step_seconds(self) -> float:
        """Median seconds per step over the steady-state chunks (the first chunk is warm-up)."""
        steady = self.chunk_seconds_per_step[1:] or self.chunk_seconds_per_step
        return statistics.median(steady)

    @property
    def compile_seconds(self) -> float:
        """What the first step took beyond a steady-state step, plus the wait for the optimised programs:
        compilation (and first-use costs)."""
        return max(0.0, self.first_step_seconds + self.tier_up_seconds - self.step_seconds)

    @property
    def accuracy(self) -> float:
        return self.epoch_accuracy[-1]


def _sync(tensors) -> None:
    """Wait until every tensor is computed (copying to the host waits for the device)."""
    for t in tensors:
        t.asnumpy()


def _progress(total: int, desc: str):
    disable = os.environ.get("KILN_PROGRESS", "1") == "0"
    return tqdm(total=total, desc=desc, unit="step", leave=True, disable=disable, dynamic_ncols=True)


def _accuracy(net: nn.Cell, x_test: Tensor, y_test: np.ndarray) -> float:
    net.set_train(False)
    logits = net(x_test).asnumpy()
    net.set_train(True)
    return float((logits.argmax(axis=1) == y_test).mean())


def train(spec: ModelSpec, mode: int, seed: int, chunk: int = 8) -> RunResult:
    """Train a fresh `spec.build()` in `mode` (kiln.PYNATIVE_MODE or kiln.GRAPH_MODE)."""
    kiln.set_context(mode=mode)
    kiln.set_seed(seed)
    result = RunResult(spec.name, "Graph" if mode == kiln.GRAPH_MODE else "PyNative")
    x_train, y_train, x_test, y_test = spec.data
    net = spec.build()
    params = net.trainable_params()
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn), spec.optimizer(params))
    # training mode from the first step, as a MindSpore loop sets it: the evaluation after each epoch switches it
    # off and on, and a first epoch traced in the other mode would compile the step a second time
    step.set_train(True)
    n_batches = len(x_train) // spec.batch_size
    result.steps_per_epoch = n_batches
    shuffle = np.random.default_rng(seed)  # the same batches, in the same order, in both modes
    x_eval = Tensor(x_test)
    bar = _progress(spec.epochs * n_batches, f"{spec.name:<11} {result.mode_name:<8}")
    with bar:
        for epoch in range(spec.epochs):
            order = shuffle.permutation(len(x_train))[: n_batches * spec.batch_size].reshape(n_batches, -1)
            batches = [(Tensor(x_train[i]), Tensor(y_train[i])) for i in order]  # on the device before timing
            losses = []
            start = 0
            if epoch == 0:  # the first step alone: compilation
                t0 = time.perf_counter()
                losses.append(step(*batches[0]))
                _sync([losses[-1], *params])
                result.first_step_seconds = time.perf_counter() - t0
                t0 = time.perf_counter()
                wait_optimized()
                result.tier_up_seconds = time.perf_counter() - t0
                bar.update(1)
                start = 1
            for lo in range(start, n_batches, chunk):
                hi = min(lo + chunk, n_batches)
                t0 = time.perf_counter()
                for x, y in batches[lo:hi]:
                    losses.append(step(x, y))
                _sync([losses[-1], *params])
                result.chunk_seconds_per_step.append((time.perf_counter() - t0) / (hi - lo))
                bar.update(hi - lo)
            result.step_losses.extend(float(v.asnumpy()) for v in losses)
            result.epoch_accuracy.append(_accuracy(net, x_eval, y_test))
            bar.set_postfix(loss=f"{np.mean(result.step_losses[-n_batches:]):.4f}", acc=f"{result.accuracy:.3f}")
    result.params = {p.name: p.asnumpy() for p in params}
    result.network = net
    return result


def max_param_difference(a: RunResult, b: RunResult) -> float:
    """Largest absolute difference between the final parameters of two runs of the same model."""
    return max(float(np.abs(a.params[k] - b.params[k]).max()) for k in a.params)
