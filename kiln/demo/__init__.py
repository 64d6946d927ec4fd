"""`kiln demo`: the same training code in PyNative and in Graph mode, on two models.

- LeNet5 on scikit-learn's handwritten digits (8x8, upscaled to 32x32): a convolution-bound network, where
  a training step is a few big kernels and Graph mode has little to win on a CPU;
- a small transformer encoder on the same digits read as sequences (8 rows of 8 pixels): hundreds of small
  ops per step, where PyNative pays per op and Graph mode, one compiled program per step, pays off.

Prints a table (median step time per mode, speedup, compile time, test accuracy) and the largest difference
between the final parameters of the two modes (the same program should give the same numbers), and writes
the loss curves and a bar chart of the step times as PNGs.
"""

from __future__ import annotations

import os
import time
import traceback

import kiln
from kiln import nn
from kiln.demo.data import load_digits_32, load_digits_rows
from kiln.demo.lenet import LeNet5
from kiln.demo.plot import save_loss_curves, save_step_times
from kiln.demo.train import ModelSpec, RunResult, max_param_difference, train
from kiln.demo.transformer import DigitTransformer
from kiln.train import save_checkpoint

__all__ = ["MODELS", "run_demo", "train"]

MODELS = ("lenet", "transformer")


def _device() -> str:
    return str(kiln.get_context("device_target"))


# Each model of the demo: its display name, network class and data loader.
_NETWORKS = {
    "lenet": ("LeNet5", LeNet5, load_digits_32),
    "transformer": ("Transformer", DigitTransformer, load_digits_rows),
}


def _adam(params):
    return nn.Adam(params, learning_rate=2e-3)


def model_specs(seed: int, epochs: int | None = None, batch_size: int | None = None, models=MODELS) -> list:
    """The demo's models with their data and optimizers (`epochs`/`batch_size` override the defaults)."""
    return [
        ModelSpec(name, network, _adam, load(seed=seed), batch_size or 32, epochs or 3)
        for key, (name, network, load) in _NETWORKS.items()
        if key in models
    ]


def _summary(results: list[RunResult], diffs: dict[str, float]) -> None:
    print("\n== Summary: the same training code in both modes ==")
    header = (
        f"{'model':<12}{'mode':<10}{'step time':>11}{'speedup':>9}{'compile':>10}{'1st step':>10}"
        f"{'final loss':>12}{'test acc':>10}"
    )
    print(header)
    print("-" * len(header))
    for r in results:
        base = next((p for p in results if p.model == r.model and p.mode_name == "PyNative"), r)
        print(
            f"{r.model:<12}{r.mode_name:<10}{r.step_seconds * 1e3:>8.2f} ms{base.step_seconds / r.step_seconds:>8.1f}x"
            f"{r.compile_seconds:>8.2f} s{r.first_step_seconds:>8.2f} s"
            f"{sum(r.step_losses[-r.steps_per_epoch :]) / r.steps_per_epoch:>12.4f}{r.accuracy:>10.4f}"
        )
    print(
        "step time: median over chunks of steps, each chunk timed until its results and parameters are computed;"
        "\ncompile: the first step's time beyond a steady step, plus the wait for the optimised programs;"
        "\nfinal loss: mean over the last epoch."
    )
    for model, diff in diffs.items():
        print(f"{model}: max |parameter difference| between PyNative and Graph mode after training: {diff:.2e}")
    if diffs:
        print(
            "(the same program: only float rounding differs between op-by-op and fused kernels; Adam's normalised\n"
            " updates let such differences grow a little over the steps)"
        )


def run_demo(
    epochs: int | None = None,
    batch_size: int | None = None,
    out_dir: str = "kiln_demo_out",
    seed: int = 0,
    models=MODELS,
) -> int:
    """Run the demo; returns the exit status (0 also when only Graph mode is unavailable)."""
    started = time.perf_counter()
    specs = model_specs(seed, epochs, batch_size, models)
    print(f"Kiln demo on {_device()}: the same training code in PyNative and in Graph mode")
    for s in specs:
        n = len(s.data[0])
        print(
            f"  {s.name}: scikit-learn digits, {n} train / {len(s.data[2])} test, "
            f"batch {s.batch_size}, {s.epochs} epoch(s) of {n // s.batch_size} steps"
        )
    os.makedirs(out_dir, exist_ok=True)
    results: list[RunResult] = []
    diffs: dict[str, float] = {}
    try:
        for s in specs:
            pynative = train(s, kiln.PYNATIVE_MODE, seed)
            results.append(pynative)
            try:
                graph = train(s, kiln.GRAPH_MODE, seed)
            except Exception as e:  # the demo still reports PyNative when Graph mode fails
                print(f"{s.name}: Graph mode is unavailable: {type(e).__name__}: {e}")
                if os.environ.get("KILN_DEMO_DEBUG"):
                    traceback.print_exc()
                graph = None
            if graph is not None:
                results.append(graph)
                diffs[s.name] = max_param_difference(pynative, graph)
            best = graph or pynative
            save_checkpoint(best.network, os.path.join(out_dir, f"{s.name.lower()}_digits.ckpt"))
    finally:
        kiln.set_context(mode=kiln.PYNATIVE_MODE)

    _summary(results, diffs)
    curves, bars = os.path.join(out_dir, "loss_curves.png"), os.path.join(out_dir, "step_times.png")
    save_loss_curves(results, curves)
    save_step_times(results, bars)
    print(f"Saved loss curves: {curves}")
    print(f"Saved step-time chart: {bars}")
    print(f"Saved checkpoints: {os.path.join(out_dir, '*_digits.ckpt')}")
    print(f"Done in {time.perf_counter() - started:.1f} s.")
    return 0
