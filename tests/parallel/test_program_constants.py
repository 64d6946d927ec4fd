"""Constants of programs in a job of several processes (issue 21): a program must never hold as a constant an array
its process cannot read whole, whatever a primitive's rule does with it (JAX: "Closing over jax.Array that spans
non-addressable (non process local) devices is not allowed").

- A program of no array input (`ops.ones`, `ops.zeros`, `ops.fill`) runs on the default device. Its executable,
  loaded from the cache folder, was placed on the job's first device, process 0's: in process 1 its values lay on a
  device that process cannot read (asnumpy failed), and a GRAPH_MODE program keeping one as a constant inside a
  tensor `if` failed to compile (the zoo Wide&Deep's SEMI_AUTO_PARALLEL run after a one-device run had filled the
  folder). warm_cache_script.py runs twice on one fresh folder.
- A Tensor split across the processes (a sharded MatMul's result in PyNative) kept by a Cell and read in GRAPH_MODE
  inside a tensor `if` and a `while` body: such constants are now inputs of the program. split_constant_script.py.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np

from tests.parallel.test_model_parallel import JOB_SECONDS, ROOT, _env

HERE = os.path.dirname(os.path.abspath(__file__))


def _run(script: str, **env_vars: str) -> dict[str, str]:
    """`script` as a 2-process job (2 CPU devices each): {"RANK NAME": what rank RANK printed for NAME}."""
    env = dict(_env(2), KILN_PROGRESS="0", **env_vars)
    cmd = [sys.executable, "-m", "kiln", "run", "--nproc", "2", os.path.join(HERE, script)]
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=JOB_SECONDS)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    printed = {}
    for line in proc.stdout.splitlines():
        head, sep, value = line.partition(": ")
        if sep and "rank " in head:
            key, _, rest = value.partition(": ")
            printed[f"{head.split('rank ')[-1]} {key}"] = rest
    return printed


WARM_EXPECTED = {"ones": [1.0] * 3, "zeros": [0.0] * 4, "fill": [2.5] * 3, "branch": [2.5, 5.0, 7.5]}


def test_a_second_run_on_the_filled_cache_folder_keeps_every_value_on_its_process(tmp_path):
    cache = str(tmp_path / "cache")
    wrong = []
    for run in ("first", "second"):
        printed = _run("warm_cache_script.py", KILN_CACHE_DIR=cache, KILN_GRAPH_CACHE="1")
        for rank in (0, 1):
            for name, values in WARM_EXPECTED.items():
                if printed.get(f"{rank} {name}") != str(values):
                    wrong.append(f"{run} run, rank {rank}, {name}: {printed.get(f'{rank} {name}')}")
            for name in ("ones", "zeros", "fill"):
                if printed.get(f"{rank} local {name}") != "True":
                    wrong.append(f"{run} run, rank {rank}: {name} is not on this process's devices")
    assert not wrong, "\n".join(wrong)


def test_a_constant_split_across_processes_is_read_in_a_branch_and_a_loop(tmp_path):
    x = np.arange(8, dtype=np.float32).reshape(2, 4) / 4
    split = x @ (np.arange(16, dtype=np.float32).reshape(4, 4) / 8)
    expected = {"branch": x * split, "loop": x + 3 * split}
    printed = _run("split_constant_script.py", KILN_CACHE_DIR=str(tmp_path / "cache"))
    wrong = []
    for rank in (0, 1):
        assert printed.get(f"{rank} split across processes") == "True", printed  # the case this test is about
        for name, want in expected.items():
            got = printed.get(f"{rank} {name}", "")
            if not got.startswith("["):
                wrong.append(f"rank {rank}, {name}: {got}")
                continue
            np.testing.assert_allclose(np.array(eval(got)), want.ravel(), rtol=1e-6, err_msg=f"rank {rank} {name}")  # noqa: S307
    assert not wrong, "\n".join(wrong)
