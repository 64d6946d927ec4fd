"""Cases of the SGD `stat` test (test_state.py) and its goldens script (make_sgd_stat_goldens_mindspore.py)."""

import numpy as np

CASES = {
    f"{through}_m{momentum}{'_nesterov' if nesterov else ''}": (momentum, nesterov, through)
    for through in ("primitive", "cell")
    for momentum in (0.3, 0.0, -0.3)
    for nesterov in (False, True)
}


def inputs() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Parameter, accum, a stat of mixed signs (first step where > 0) and two gradients, float32."""
    rng = np.random.default_rng(41)
    var, accum = rng.standard_normal(6).astype(np.float32), rng.standard_normal(6).astype(np.float32)
    stat = np.array([1.0, 0.7, 0.0, -0.5, 1.0, -2.0], np.float32)
    return var, accum, stat, rng.standard_normal((2, 6)).astype(np.float32)
