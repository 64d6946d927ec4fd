"""`kiln demo`: LeNet5 on scikit-learn's handwritten digits, in PyNative and in Graph mode.

Prints the loss and accuracy per epoch of each mode, the time per step of each
mode and Graph mode's speedup, and saves a checkpoint and a loss-curve PNG.
"""

from __future__ import annotations

import os
import time
import traceback

import kiln
from kiln.demo.data import load_digits_32, make_dataset
from kiln.demo.plot import save_loss_curves
from kiln.demo.train import train_lenet
from kiln.train import save_checkpoint

__all__ = ["run_demo"]


def _device() -> str:
    return str(kiln.get_context("device_target"))


def run_demo(epochs: int = 8, batch_size: int = 32, out_dir: str = "kiln_demo_out", seed: int = 0) -> int:
    """Run the demo; returns the exit status (0 also when only Graph mode is unavailable)."""
    started = time.perf_counter()
    x_train, y_train, x_test, y_test = load_digits_32(seed=seed)
    train_ds = make_dataset(x_train, y_train, batch_size, shuffle=True)
    test_ds = make_dataset(x_test, y_test, batch_size, shuffle=False)
    print(
        f"Kiln demo: LeNet5 on scikit-learn's handwritten digits, 8x8 upscaled to 32x32 "
        f"({len(x_train)} train / {len(x_test)} test images, batch {batch_size}, {epochs} epochs, {_device()})"
    )
    os.makedirs(out_dir, exist_ok=True)
    results = []
    print("\n== PyNative mode (ops run one by one) ==", flush=True)
    pynative = train_lenet(kiln.PYNATIVE_MODE, train_ds, test_ds, epochs, seed)
    results.append(pynative)
    print("\n== Graph mode (each training step is one compiled XLA program) ==", flush=True)
    graph = None
    try:
        graph = train_lenet(kiln.GRAPH_MODE, train_ds, test_ds, epochs, seed)
        results.append(graph)
    except Exception as e:  # the demo still reports PyNative when Graph mode fails
        print(f"Graph mode is unavailable: {type(e).__name__}: {e}")
        if os.environ.get("KILN_DEMO_DEBUG"):
            traceback.print_exc()
    finally:
        kiln.set_context(mode=kiln.PYNATIVE_MODE)

    print("\n== Summary ==")
    print(f"{'mode':<10}{'time/step':>12}{'1st epoch':>12}{'final loss':>12}{'test accuracy':>15}")
    for r in results:
        print(
            f"{r.mode_name:<10}{r.ms_per_step:>9.2f} ms{r.first_epoch_seconds:>10.2f} s"
            f"{r.step_losses[-1]:>12.4f}{r.epoch_accuracy[-1]:>15.4f}"
        )
    if graph is not None:
        print(
            f"Graph mode speedup: {pynative.ms_per_step / graph.ms_per_step:.1f}x per training step "
            f"(the first Graph epoch includes compilation)"
        )
    best = graph or pynative
    ckpt = os.path.join(out_dir, "lenet5_digits.ckpt")
    save_checkpoint(best.network, ckpt)
    png = os.path.join(out_dir, "loss_curve.png")
    save_loss_curves(results, pynative.steps_per_epoch, png)
    print(f"Saved checkpoint ({best.mode_name} mode's network): {ckpt}")
    print(f"Saved loss curves: {png}")
    print(f"Done in {time.perf_counter() - started:.1f} s.")
    return 0
