"""The `kiln` command: `kiln run SCRIPT [ARGS...]` and `kiln demo`."""

from __future__ import annotations

import argparse
import sys


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="kiln",
        description="Kiln: MindSpore's programming model (PyNative and Graph mode) on XLA.",
    )
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    run = sub.add_parser(
        "run",
        help="run an unmodified MindSpore script on Kiln",
        description="Run SCRIPT with `import mindspore` (and all its submodules) resolved to Kiln.",
    )
    run.add_argument("script", metavar="SCRIPT", help="the Python script")
    run.add_argument("args", nargs=argparse.REMAINDER, metavar="ARGS", help="arguments passed to the script")
    demo = sub.add_parser(
        "demo",
        help="train LeNet5 on scikit-learn's digits in PyNative and Graph mode",
        description="Train LeNet5 on the 8x8 digits of scikit-learn (resized to 32x32) in PyNative and in Graph "
        "mode; print loss, accuracy and time per step; save a checkpoint and a loss-curve PNG.",
    )
    demo.add_argument("--epochs", type=int, default=8, help="epochs per mode (default: 8)")
    demo.add_argument("--batch-size", type=int, default=32, help="batch size (default: 32)")
    demo.add_argument("--out", default="kiln_demo_out", help="output directory (default: ./kiln_demo_out)")
    demo.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `kiln` console script and of `python -m kiln`.

    Returns:
        The process exit status.
    """
    parser = _parser()
    ns = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if ns.command == "run":
        from kiln.cli.run import run_script  # noqa: PLC0415  (only this command needs it)

        try:
            run_script(ns.script, ns.args)
        except FileNotFoundError as e:
            print(e, file=sys.stderr)
            return 2
        return 0
    if ns.command == "demo":
        from kiln.demo import run_demo  # noqa: PLC0415  (imports scikit-learn and matplotlib)

        if ns.epochs < 1 or ns.batch_size < 1:
            parser.error("--epochs and --batch-size must be positive")
        return run_demo(epochs=ns.epochs, batch_size=ns.batch_size, out_dir=ns.out, seed=ns.seed)
    parser.print_help()
    return 0
