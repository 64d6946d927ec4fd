"""The `kiln` command: `kiln run SCRIPT [ARGS...]`, `kiln msrun`, `kiln demo`, `kiln cache info|clear` and
`kiln explain SCRIPT`."""

from __future__ import annotations

import argparse
import sys

from kiln.cli import hugepages
from kiln.cli.cache import run_cache
from kiln.cli.explain import run_explain
from kiln.cli.msrun import LaunchError, Options, free_port, launch, parse_bool
from kiln.cli.run import run_command
from kiln.demo import MODELS, run_demo


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
        epilog=f"Large CPU buffers: with {hugepages.SWITCH}=1, on Linux with glibc 2.35 or later and transparent huge "
        f"pages not `never`, kiln run starts the script with GLIBC_TUNABLES={hugepages.TUNABLE} (it re-executes itself "
        "once with that variable), so that XLA's buffers of 64 MB or more are mapped with 2 MB pages instead of "
        "faulting in 4 KB at a time at every step. Left out when GLIBC_TUNABLES is already set.",
    )
    run.add_argument(
        "--nproc", type=int, default=None, metavar="N", help="run N workers of a data-parallel job on this machine"
    )
    run.add_argument("script", metavar="SCRIPT", help="the Python script")
    run.add_argument("args", nargs=argparse.REMAINDER, metavar="ARGS", help="arguments passed to the script")
    _add_msrun(sub)
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
    explain = sub.add_parser(
        "explain",
        help="run a script and list the graphs, graph breaks, guards and recompiles of bytecode capture",
        description="Run SCRIPT (as `kiln run`), then report every function run under jit(capture_mode='bytecode'): "
        "its graphs, each graph break (reason, file:line, how to avoid it), guards and recompiles.",
    )
    explain.add_argument("--bytecode", action="store_true", help="compile every jit of the script from bytecode")
    explain.add_argument("script", metavar="SCRIPT", help="the Python script")
    explain.add_argument("args", nargs=argparse.REMAINDER, metavar="ARGS", help="arguments passed to the script")
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `kiln` console script and of `python -m kiln`.

    Returns:
        The process exit status.
    """
    parser = _parser()
    ns = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if ns.command == "run" and ns.nproc is not None:
        if ns.nproc < 1:
            parser.error("--nproc must be positive")
        return _msrun(ns, short=True)
    if ns.command == "run":
        return run_command(ns.script, ns.args)
    if ns.command == "msrun":
        return _msrun(ns, short=False)
    if ns.command == "demo":
        if (ns.epochs is not None and ns.epochs < 1) or (ns.batch_size is not None and ns.batch_size < 1):
            parser.error("--epochs and --batch-size must be positive")
        models = tuple(m.strip().lower() for m in ns.models.split(",") if m.strip())
        if not models or any(m not in MODELS for m in models):
            parser.error(f"--models takes a comma-separated list of {', '.join(MODELS)}")
        return run_demo(epochs=ns.epochs, batch_size=ns.batch_size, out_dir=ns.out, seed=ns.seed, models=models)
    if ns.command == "explain":
        return run_explain(ns.script, ns.args, ns.bytecode)
    if ns.command == "cache":
        return run_cache(ns.action)
    parser.print_help()
    return 0


def _add_msrun(sub) -> None:
    d = Options()
    m = sub.add_parser(
        "msrun",
        help="start the workers of a distributed job on this machine (MindSpore's msrun)",
        description="Start --local_worker_num workers of a job of --worker_num, each running SCRIPT under "
        "`kiln run` with MindSpore's launcher environment (RANK_ID, RANK_SIZE, MS_SCHED_HOST, ...). Worker r "
        "writes <log_dir>/worker_<r>.log.",
    )
    m.add_argument("--worker_num", type=int, default=d.worker_num, help=f"workers in the job (default {d.worker_num})")
    m.add_argument(
        "--local_worker_num",
        type=int,
        default=d.local_worker_num,
        help=f"workers started on this machine (default {d.local_worker_num})",
    )
    m.add_argument(
        "--master_addr", default=d.master_addr, help=f"address of rank 0's machine (default {d.master_addr})"
    )
    m.add_argument("--master_port", type=int, default=d.master_port, help=f"port of rank 0 (default {d.master_port})")
    m.add_argument("--node_rank", type=int, default=d.node_rank, help="this machine's index when there are several")
    m.add_argument("--log_dir", default="", help="folder of the worker_<rank>.log files (default: current folder)")
    m.add_argument(
        "--join",
        type=parse_bool,
        default=d.join,
        metavar="{True,False}",
        help="wait for the workers, stop them all when one fails, and exit with the job's status (default False)",
    )
    m.add_argument(
        "--cluster_time_out",
        type=int,
        default=d.cluster_time_out,
        help=f"seconds for all workers to join the job before they give up (default {d.cluster_time_out})",
    )
    m.add_argument("script", metavar="SCRIPT", help="the Python script every worker runs")
    m.add_argument("args", nargs=argparse.REMAINDER, metavar="ARGS", help="arguments passed to the script")


def _msrun(ns, short: bool) -> int:
    """`kiln msrun ...`, or `kiln run --nproc N ...`: N workers on this machine, a free port, output to the console."""
    if short:
        opts = Options(worker_num=ns.nproc, local_worker_num=ns.nproc, master_port=free_port(), log_dir=None, join=True)
    else:
        opts = Options(
            worker_num=ns.worker_num,
            local_worker_num=ns.local_worker_num,
            master_addr=ns.master_addr,
            master_port=ns.master_port,
            node_rank=ns.node_rank,
            log_dir=ns.log_dir or ".",
            join=ns.join,
            cluster_time_out=ns.cluster_time_out,
        )
    try:
        return launch(opts, ns.script, ns.args)
    except LaunchError as e:
        print(e, file=sys.stderr)
        return 2
