"""Cases of the SGD `stat` test (test_state.py) and its goldens script (make_sgd_stat_goldens_mindspore.py), and
the two steps both run, under Kiln or MindSpore."""

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


def run(ms, momentum: float, nesterov: bool, through: str) -> dict:
    """Parameter, accum and stat after two steps from `inputs()`, through framework `ms` (kiln or mindspore): the
    SGD primitive, or nn.SGD with its momentum, accum and stat set after construction (it refuses a momentum <= 0)."""
    var, accum, stat, grads = inputs()
    p = ms.Parameter(ms.Tensor(var), name="p")
    if through == "primitive":
        a, s = ms.Parameter(ms.Tensor(accum), name="a"), ms.Parameter(ms.Tensor(stat), name="s")
        sgd = ms.ops.SGD(dampening=0.0, weight_decay=0.0, nesterov=nesterov)
        for g in grads:
            sgd(p, ms.Tensor(g), ms.Tensor(np.float32(0.1)), a, ms.Tensor(np.float32(momentum)), s)
    else:
        opt = ms.nn.SGD([p], learning_rate=0.1, momentum=0.5, nesterov=nesterov)
        opt.momentum.set_data(ms.Tensor(np.float32(momentum)))
        opt.accum[0].set_data(ms.Tensor(accum))
        opt.stat[0].set_data(ms.Tensor(stat))
        for g in grads:
            opt((ms.Tensor(g),))
        a, s = opt.accum[0], opt.stat[0]
    return {"param": p.asnumpy().tolist(), "accum": a.asnumpy().tolist(), "stat": s.asnumpy().tolist()}
