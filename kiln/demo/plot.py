"""The demo's figures: loss curves of every model and mode, and a bar chart of the step times."""

from __future__ import annotations

import numpy as np

COLORS = {"PyNative": "tab:blue", "Graph": "tab:orange"}


def _figure(**kwargs):
    """A matplotlib Figure of its own (no pyplot: no global state, no GUI backend), for `savefig`."""
    # imported on use: matplotlib is the demo's optional dependency, and kiln.demo.lenet is used without it
    from matplotlib.figure import Figure  # noqa: PLC0415

    return Figure(**kwargs)


def save_loss_curves(results, path: str) -> None:
    """One panel per model: the per-step training loss of each mode (faint) and its moving average."""
    models = list(dict.fromkeys(r.model for r in results))
    fig = _figure(figsize=(6 * len(models), 4.2), dpi=110)
    axes = fig.subplots(1, len(models), squeeze=False)
    for ax, model in zip(axes[0], models):
        runs = [r for r in results if r.model == model]
        for r in runs:
            losses = np.asarray(r.step_losses)
            steps = np.arange(1, len(losses) + 1)
            color = COLORS.get(r.mode_name, "tab:gray")
            dash, width = ("--", 1.6) if r.mode_name == "Graph" else ("-", 3.0)  # dashed on top: visible if equal
            ax.plot(steps, losses, color=color, alpha=0.2, linewidth=0.8)
            window = max(1, min(r.steps_per_epoch // 4, len(losses)))
            smooth = np.convolve(losses, np.ones(window) / window, mode="valid")
            ax.plot(steps[window - 1 :], smooth, color=color, linestyle=dash, linewidth=width, label=r.mode_name)
        for epoch in range(1, len(runs[0].step_losses) // max(runs[0].steps_per_epoch, 1)):
            ax.axvline(epoch * runs[0].steps_per_epoch, color="grey", linewidth=0.5, linestyle=":")
        ax.set_title(f"{model}: training loss")
        ax.set_xlabel("training step")
        ax.set_ylabel("softmax cross-entropy")
        ax.set_yscale("log")
        ax.legend(title="mode")
    fig.tight_layout()
    fig.savefig(path)


def save_step_times(results, path: str) -> None:
    """Grouped bars: the median step time of each model in each mode, with Graph mode's speedup."""
    models = list(dict.fromkeys(r.model for r in results))
    modes = list(dict.fromkeys(r.mode_name for r in results))
    fig = _figure(figsize=(2.6 + 2.2 * len(models), 4.2), dpi=110)
    ax = fig.subplots()
    width = 0.8 / len(modes)
    for i, mode in enumerate(modes):
        xs, heights = [], []
        for j, model in enumerate(models):
            run = next((r for r in results if r.model == model and r.mode_name == mode), None)
            if run is not None:
                xs.append(j + (i - (len(modes) - 1) / 2) * width)
                heights.append(run.step_seconds * 1e3)
        bars = ax.bar(xs, heights, width, label=mode, color=COLORS.get(mode, "tab:gray"))
        ax.bar_label(bars, fmt="%.1f ms", fontsize=8)
    for j, model in enumerate(models):
        by_mode = {r.mode_name: r for r in results if r.model == model}
        if "PyNative" in by_mode and "Graph" in by_mode:
            speedup = by_mode["PyNative"].step_seconds / by_mode["Graph"].step_seconds
            ax.annotate(f"{speedup:.1f}x", (j, 0), xytext=(0, -28), textcoords="offset points", ha="center")
    ax.set_xticks(range(len(models)), models)
    ax.set_ylabel("median time per training step (ms)")
    ax.set_title("Training step time: PyNative vs Graph mode")
    ax.margins(y=0.15)
    ax.legend(title="mode")
    fig.tight_layout()
    fig.savefig(path)
