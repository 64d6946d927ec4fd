"""The loss-curve figure of the demo."""

from __future__ import annotations

import numpy as np


def save_loss_curves(results, steps_per_epoch: int, path: str) -> None:
    """Plot the per-step training loss of each mode (and a moving average) into a PNG at `path`."""
    import matplotlib  # noqa: PLC0415  (an optional dependency of the demo)

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=120)
    same = len(results) > 1 and np.allclose(results[0].step_losses, results[1].step_losses, rtol=1e-4, atol=1e-6)
    styles = (("tab:blue", "-", 3.0), ("tab:orange", "--", 1.6))  # Graph dashed on top: visible when identical
    for result, (color, dash, width) in zip(results, styles):
        losses = np.asarray(result.step_losses)
        steps = np.arange(1, len(losses) + 1)
        ax.plot(steps, losses, color=color, alpha=0.2, linewidth=0.8)
        window = max(1, min(steps_per_epoch // 4, len(losses)))
        smooth = np.convolve(losses, np.ones(window) / window, mode="valid")
        label = f"{result.mode_name} mode (moving average)"
        ax.plot(steps[window - 1 :], smooth, color=color, linestyle=dash, linewidth=width, label=label)
    if same:
        ax.text(0.99, 0.97, "PyNative and Graph mode: the same losses", transform=ax.transAxes, ha="right", va="top")
    for epoch in range(1, len(results[0].step_losses) // max(steps_per_epoch, 1) + 1):
        ax.axvline(epoch * steps_per_epoch, color="grey", linewidth=0.5, linestyle=":")
    ax.set_xlabel("training step")
    ax.set_ylabel("softmax cross-entropy")
    ax.set_yscale("log")
    ax.set_title("LeNet5 on scikit-learn digits (32x32): training loss")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
