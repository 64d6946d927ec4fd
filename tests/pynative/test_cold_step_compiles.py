"""How many XLA compiles the first PyNative LeNet5 training step costs a fresh process (issue 22): counted, not
timed, so the figure does not depend on how busy the machine is and a regression fails here.

The step is benchmarks/bench_firstcall.py's (`--worker pynative`: set_seed, LeNet5, value_and_grad, nn.Momentum,
one step until the loss is on the host), run in a fresh interpreter on an empty cache folder (cold) and again on
the folder it filled (warm).
"""

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# With the lazy window the whole step (forward, loss, the backward program, FusedMomentum) is one program; op by op
# (KILN_LAZY=0) it is 13 forward kernels, the backward program and FusedMomentum. set_seed and the compile-option
# probe compile nothing since issue 22's cold-step work; the target is 10. The lazy step's program is tiered
# (kiln/_backend/tiers.py): its quick compile is on the step's path, and its optimised compile, on the tier-up
# thread, is counted too when it ends before the step does.
COLD_STEP_MAX_COMPILES = {"lazy": 2, "eager": 15}


def _first_step(cache_dir: Path) -> dict:
    env = {
        **os.environ,
        "KILN_CACHE_DIR": str(cache_dir),
        "KILN_CACHE_SOURCE_KEY": cache_dir.name,
        "PYTHONPATH": str(REPO),
    }
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.bench_firstcall", "--worker", "pynative"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_cold_first_lenet5_step_compiles_at_most_the_bound_and_warm_none(tmp_path, dispatch_mode):
    cold = _first_step(tmp_path / "cache")
    assert 0 < cold["compiles"] <= COLD_STEP_MAX_COMPILES[dispatch_mode], cold
    warm = _first_step(tmp_path / "cache")
    assert warm["compiles"] == 0, warm
