"""A kernel with a custom call (LAPACK's matrix inverse on CPU) read back from Kiln's on-disk executable cache
crashed the process (exit 139) in the second run. Two fresh processes share one cache folder here."""

from __future__ import annotations

import os
import subprocess
import sys

SCRIPT = """
import numpy as np, kiln as ms
from kiln import ops
x = ms.Tensor(np.eye(3, dtype=np.float32) * 2)
np.testing.assert_allclose(ops.inverse(x).asnumpy(), np.eye(3) / 2)
print("ok")
"""


def test_a_custom_call_kernel_survives_a_warm_cache(tmp_path):
    env = {**os.environ, "KILN_CACHE_DIR": str(tmp_path / "cache")}
    for run in ("cold", "warm"):
        done = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, f"{run} run: exit {done.returncode}\n{done.stderr[-2000:]}"
        assert done.stdout.strip().endswith("ok")
