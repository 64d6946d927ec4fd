"""`kiln msrun`: start the workers of a distributed job on this machine, as MindSpore's `msrun` does.

Each worker is `python -m kiln run SCRIPT ARGS` (so `import mindspore` is Kiln) with the environment that
`communication.init()` reads: `RANK_ID`, `RANK_SIZE`, `MS_WORKER_NUM`, `MS_SCHED_HOST`, `MS_SCHED_PORT`,
`MS_ROLE`, `MS_NODE_ID`, `DEVICE_ID`, `MS_TOPO_TIMEOUT`, plus `KILN_LOCAL_RANK`/`KILN_LOCAL_WORKER_NUM`.
There is no scheduler process: rank 0 hosts JAX's coordination service at `--master_addr:--master_port`.

Worker r's output goes to `<log_dir>/worker_<r>.log` (and, with `--join True`, to the console with a
`[worker r]` prefix). With `--join True` the launcher waits: when a worker fails, the others are stopped
and the launcher exits with status 1; workers that cannot form the cluster give up after
`--cluster_time_out` seconds by themselves. Several machines: run `kiln msrun` on each with the same
`--worker_num`, `--master_addr` (the machine of rank 0) and `--master_port`, and its own `--node_rank`.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass

_GRACE = 3.0  # seconds between SIGTERM and SIGKILL when stopping workers


class LaunchError(Exception):
    """A bad launch request (options, port, script): one line, exit status 2."""


@dataclass
class Options:
    worker_num: int = 8
    local_worker_num: int = 8
    master_addr: str = "127.0.0.1"
    master_port: int = 8118
    node_rank: int = -1
    log_dir: str | None = "."
    join: bool = False
    cluster_time_out: int = 600
    echo_prefix: bool = True


def parse_bool(text: str) -> bool:
    """msrun's `--join True/False`."""
    value = str(text).strip().lower()
    if value in ("true", "1", "yes"):
        return True
    if value in ("false", "0", "no"):
        return False
    raise ValueError(f"expected True or False, got {text!r}")


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def _port_taken(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind((host if host not in ("localhost",) else "127.0.0.1", port))
        except OSError:
            return True
    return False


def _check(opts: Options, script: str) -> list[int]:
    """Validate the options; the world ranks of this machine's workers."""
    if opts.worker_num < 1:
        raise LaunchError(f"kiln msrun: --worker_num must be positive, got {opts.worker_num}")
    if opts.local_worker_num < 1:
        raise LaunchError(f"kiln msrun: --local_worker_num must be positive, got {opts.local_worker_num}")
    if opts.local_worker_num > opts.worker_num:
        raise LaunchError(
            f"kiln msrun: --local_worker_num ({opts.local_worker_num}) exceeds --worker_num ({opts.worker_num})"
        )
    if not 1024 <= opts.master_port <= 65535:
        raise LaunchError(f"kiln msrun: --master_port must be in [1024, 65535], got {opts.master_port}")
    if opts.local_worker_num == opts.worker_num:
        node_rank = 0  # one machine: --node_rank has nothing to say
    elif opts.node_rank < 0:
        raise LaunchError(
            "kiln msrun: this machine runs only part of the workers "
            f"({opts.local_worker_num} of {opts.worker_num}): give each machine its --node_rank (0, 1, ...)"
        )
    else:
        node_rank = opts.node_rank
    first = node_rank * opts.local_worker_num
    if first + opts.local_worker_num > opts.worker_num:
        raise LaunchError(
            f"kiln msrun: --node_rank {node_rank} with {opts.local_worker_num} workers per machine gives ranks up to "
            f"{first + opts.local_worker_num - 1}, beyond --worker_num {opts.worker_num}"
        )
    if opts.cluster_time_out == 0:
        raise LaunchError("kiln msrun: --cluster_time_out must be positive (or negative: wait for ever)")
    if not os.path.isfile(script):
        raise LaunchError(f"kiln msrun: no such script: '{script}'")
    if first == 0 and opts.worker_num > 1 and _port_taken(opts.master_addr, opts.master_port):
        raise LaunchError(
            f"kiln msrun: --master_port {opts.master_port} is already in use on {opts.master_addr}; pick a free port"
        )
    return list(range(first, first + opts.local_worker_num))


def _worker_env(opts: Options, rank: int, local_rank: int) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        {
            "MS_ROLE": "MS_WORKER",
            "MS_WORKER_NUM": str(opts.worker_num),
            "MS_SCHED_HOST": opts.master_addr,
            "MS_SCHED_PORT": str(opts.master_port),
            "MS_NODE_ID": str(rank),
            "MS_TOPO_TIMEOUT": str(opts.cluster_time_out),
            "RANK_ID": str(rank),
            "RANK_SIZE": str(opts.worker_num),
            "DEVICE_ID": str(local_rank),
            "KILN_LOCAL_RANK": str(local_rank),
            "KILN_LOCAL_WORKER_NUM": str(opts.local_worker_num),
            "PYTHONUNBUFFERED": "1",
        }
    )
    return env


class _Worker:
    def __init__(self, rank: int, proc: subprocess.Popen, log_path: str | None, pump: threading.Thread | None):
        self.rank, self.proc, self.log_path, self.pump = rank, proc, log_path, pump


def _pump(stream, log_path: str | None, echo: bool, prefix: str) -> None:
    """Copy a worker's output to its log file (and to the console)."""
    log = open(log_path, "ab", buffering=0) if log_path else None  # noqa: SIM115  (closed below)
    try:
        for line in iter(stream.readline, b""):
            if log is not None:
                log.write(line)
            if echo:
                with contextlib.suppress(Exception):
                    sys.stdout.buffer.write(prefix.encode() + line)
                    sys.stdout.buffer.flush()
    finally:
        stream.close()
        if log is not None:
            log.close()


def _stop(workers: list[_Worker]) -> None:
    """SIGTERM every live worker's process group, then SIGKILL what is left after a grace period."""
    live = [w for w in workers if w.proc.poll() is None]
    for w in live:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(w.proc.pid, signal.SIGTERM)
    deadline = time.monotonic() + _GRACE
    for w in live:
        try:
            w.proc.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(w.proc.pid, signal.SIGKILL)
            w.proc.wait()


def _describe(code: int) -> str:
    if code < 0:
        try:
            return f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with status {code}"


def _tail(path: str | None, lines: int = 15) -> str:
    if not path or not os.path.isfile(path):
        return ""
    with open(path, "rb") as f:
        f.seek(0, os.SEEK_END)
        f.seek(max(0, f.tell() - 8192))
        text = f.read().decode(errors="replace")
    return "\n".join(text.splitlines()[-lines:])


def launch(opts: Options, script: str, args: list[str]) -> int:
    """Start this machine's workers; with `opts.join`, wait for them. Returns the exit status.

    Raises:
        LaunchError: bad options, a missing script, or the master port already in use.
    """
    ranks = _check(opts, script)
    if opts.log_dir:
        os.makedirs(opts.log_dir, exist_ok=True)
    cmd = [sys.executable, "-m", "kiln", "run", script, *args]
    workers: list[_Worker] = []
    for local_rank, rank in enumerate(ranks):
        log_path = os.path.join(opts.log_dir, f"worker_{rank}.log") if opts.log_dir else None
        if log_path:
            open(log_path, "wb").close()  # a fresh log per run, as msrun
        if opts.join:
            output = subprocess.PIPE  # copied to the log and the console while the launcher waits
        else:  # the launcher leaves at once: the worker writes its log itself
            output = open(log_path, "ab") if log_path else subprocess.DEVNULL  # noqa: SIM115  (closed below)
        proc = subprocess.Popen(
            cmd,
            env=_worker_env(opts, rank, local_rank),
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: stopping it stops its children too
        )
        pump = None
        if opts.join:
            pump = threading.Thread(
                target=_pump,
                args=(proc.stdout, log_path, True, f"[worker {rank}] " if opts.echo_prefix else ""),
                daemon=True,
            )
            pump.start()
        elif output is not subprocess.DEVNULL:
            output.close()
        workers.append(_Worker(rank, proc, log_path, pump))
        where = f", log file: {log_path}" if log_path else ""
        print(f"kiln msrun: started worker {rank} (pid {proc.pid}){where}", file=sys.stderr, flush=True)
    if not opts.join:
        return 0
    return _join(workers)


def _join(workers: list[_Worker]) -> int:
    """Wait for every worker; on the first failure stop the others. 0 when all succeeded, else 1."""
    interrupted: list[int] = []

    def on_signal(signum, frame):
        interrupted.append(signum)

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        while True:
            if interrupted:
                _stop(workers)
                print("kiln msrun: interrupted; stopped every worker", file=sys.stderr, flush=True)
                return 128 + interrupted[0]
            failed = next((w for w in workers if w.proc.poll() not in (None, 0)), None)
            if failed is not None:
                _stop(workers)
                for w in workers:
                    w.pump.join(timeout=2.0)  # the pumps exist with --join
                print(
                    f"kiln msrun: worker {failed.rank} {_describe(failed.proc.returncode)}; stopped the other workers.",
                    file=sys.stderr,
                    flush=True,
                )
                tail = _tail(failed.log_path)
                if tail:
                    print(f"--- last lines of {failed.log_path} ---\n{tail}", file=sys.stderr, flush=True)
                return 1
            if all(w.proc.poll() == 0 for w in workers):
                for w in workers:
                    w.pump.join(timeout=2.0)
                return 0
            time.sleep(0.1)
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
