"""The `kiln` command: `kiln run SCRIPT [ARGS...]`, `kiln demo` and `kiln cache info|clear`."""

from __future__ import annotations

import argparse
import sys


class _Parser(argparse.ArgumentParser):
    """argparse, but a bad command line is one line on stderr and exit status 2."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def _parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="kiln",
        description="Kiln: MindSpore's programming model (PyNative and Graph mode) on XLA.",
    )
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    run = sub.add_parser(
        "run",
        help="run an unmodified MindSpore script on Kiln",
        description="Run SCRIPT with `import mindspore` (and all its submodules) resolved to Kiln.",
    )
    run.add_argument("script", metavar="SCRIPT", help="the Python script")
    run.add_argument("args", nargs=argparse.REMAINDER, metavar="ARGS", help="arguments passed to the script")
    demo = sub.add_parser(
        "demo",
        help="train LeNet5 and a small transformer on scikit-learn's digits in PyNative and Graph mode",
        description="Train LeNet5 (digits resized to 32x32) and a small transformer (digit rows as tokens) in "
        "PyNative and in Graph mode with the same code; print step time, speedup, compile time, accuracy and the "
        "parameter difference between the modes; save the loss curves and a step-time chart as PNGs.",
    )
    demo.add_argument("--epochs", type=int, default=None, help="epochs per model and mode (default: 3)")
    demo.add_argument("--batch-size", type=int, default=None, help="batch size (default: 32)")
    demo.add_argument("--out", default="kiln_demo_out", help="output directory (default: ./kiln_demo_out)")
    demo.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    demo.add_argument(
        "--models", default="lenet,transformer", help="comma-separated: lenet, transformer (default: both)"
    )
    cache = sub.add_parser(
        "cache",
        help="show or clear the on-disk cache of compiled executables",
        description="The on-disk cache of compiled executables (KILN_CACHE_DIR, default ~/.cache/kiln/xla; "
        "bounded by KILN_CACHE_MAX_MB, default 1024).",
    )
    cache.add_argument("action", choices=("info", "clear"), help="info: location, size, entries; clear: delete")
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `kiln` console script and of `python -m kiln`.

    Returns:
        The process exit status.
    """
    parser = _parser()
    ns = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if ns.command == "run":
        return _run(ns.script, ns.args)
    if ns.command == "demo":
        from kiln.demo import MODELS, run_demo  # noqa: PLC0415  (imports scikit-learn and matplotlib)

        if (ns.epochs is not None and ns.epochs < 1) or (ns.batch_size is not None and ns.batch_size < 1):
            parser.error("--epochs and --batch-size must be positive")
        models = tuple(m.strip().lower() for m in ns.models.split(",") if m.strip())
        if not models or any(m not in MODELS for m in models):
            parser.error(f"--models takes a comma-separated list of {', '.join(MODELS)}")
        return run_demo(epochs=ns.epochs, batch_size=ns.batch_size, out_dir=ns.out, seed=ns.seed, models=models)
    if ns.command == "cache":
        from kiln.cli.cache import run_cache  # noqa: PLC0415

        return run_cache(ns.action)
    parser.print_help()
    return 0


def _run(script: str, args: list[str]) -> int:
    """`kiln run`: exit status 2 with one line for its own failures; the script's errors as Python shows them."""
    from kiln.cli.run import RunError, run_script, user_traceback  # noqa: PLC0415  (only this command needs it)

    try:
        run_script(script, args)
    except RunError as e:
        print(e, file=sys.stderr)
        return 2
    except SystemExit:
        raise  # the script's own exit status, as under `python SCRIPT`
    except BaseException as e:  # noqa: BLE001  (the script's exception: shown as Python shows an uncaught one)
        tb = user_traceback(e.__traceback__)
        sys.stdout.flush()
        sys.excepthook(type(e), e.with_traceback(tb), tb)
        return 130 if isinstance(e, KeyboardInterrupt) else 1
    return 0
