"""Optimizers against independent NumPy implementations of their update rules; groups, schedules,
state naming, dispatch cost, and a MindSpore-style training loop."""

import warnings

import numpy as np
import pytest

import kiln as ms
from kiln import Parameter, Tensor, nn, ops
from kiln._core import unsupported
from kiln._pynative import dispatch

SHAPES = {"fc.weight": (3, 4), "fc.bias": (3,), "bn.gamma": (4,)}


def _params(seed=0):
    rng = np.random.default_rng(seed)
    return [Parameter(Tensor(rng.normal(size=s).astype(np.float32)), name=n) for n, s in SHAPES.items()]


def _grads(step, seed=100):
    rng = np.random.default_rng(seed + step)
    return [rng.normal(size=s).astype(np.float32) for s in SHAPES.values()]


def _run(opt, params, steps):
    for t in range(steps):
        opt(tuple(Tensor(g) for g in _grads(t)))
    return [p.asnumpy().astype(np.float64) for p in params]


def _decayed(name):  # MindSpore's default filter without groups
    return "beta" not in name and "gamma" not in name


# -- NumPy references, written from the published update rules ------------------------------------
def ref_momentum(steps, lr, mom, wd=0.0, nesterov=False, loss_scale=1.0, lrs=None):
    ps = [p.asnumpy().astype(np.float64) for p in _params()]
    acc = [np.zeros_like(p) for p in ps]
    for t in range(steps):
        rate = lrs[t] if lrs is not None else lr
        for i, (name, g) in enumerate(zip(SHAPES, _grads(t))):
            g = g.astype(np.float64)
            if wd and _decayed(name):
                g = g + wd * loss_scale * ps[i]
            g = g / loss_scale
            acc[i] = mom * acc[i] + g
            ps[i] = ps[i] - (rate * g + rate * mom * acc[i] if nesterov else rate * acc[i])
    return ps, acc


def ref_sgd(steps, lr, mom=0.0, damp=0.0, wd=0.0, nesterov=False):
    ps = [p.asnumpy().astype(np.float64) for p in _params()]
    buf = [None] * len(ps)
    for t in range(steps):
        for i, (name, g) in enumerate(zip(SHAPES, _grads(t))):
            d = g.astype(np.float64)
            if wd and _decayed(name):
                d = d + wd * ps[i]
            if mom > 0:
                buf[i] = d if buf[i] is None else mom * buf[i] + (1 - damp) * d
                d = d + mom * buf[i] if nesterov else buf[i]
            ps[i] = ps[i] - lr * d
    return ps


def ref_adam(steps, lr, b1=0.9, b2=0.999, eps=1e-8, wd=0.0, nesterov=False, amsgrad=False):
    ps = [p.asnumpy().astype(np.float64) for p in _params()]
    m = [np.zeros_like(p) for p in ps]
    v = [np.zeros_like(p) for p in ps]
    vmax = [np.zeros_like(p) for p in ps]
    for t in range(1, steps + 1):
        for i, (name, g) in enumerate(zip(SHAPES, _grads(t - 1))):
            g = g.astype(np.float64)
            if wd and _decayed(name):
                g = g + wd * ps[i]
            m[i] = b1 * m[i] + (1 - b1) * g
            v[i] = b2 * v[i] + (1 - b2) * g * g
            alpha = lr * np.sqrt(1 - b2**t) / (1 - b1**t)
            d = b1 * m[i] + (1 - b1) * g if nesterov else m[i]
            vmax[i] = np.maximum(vmax[i], v[i])
            ps[i] = ps[i] - alpha * d / (np.sqrt(vmax[i] if amsgrad else v[i]) + eps)
    return ps, m, v


def ref_adamw(steps, lr, b1=0.9, b2=0.999, eps=1e-6, wd=0.0):
    ps = [p.asnumpy().astype(np.float64) for p in _params()]
    m = [np.zeros_like(p) for p in ps]
    v = [np.zeros_like(p) for p in ps]
    for t in range(steps):
        for i, (name, g) in enumerate(zip(SHAPES, _grads(t))):
            m[i] = b1 * m[i] + (1 - b1) * g
            v[i] = b2 * v[i] + (1 - b2) * g.astype(np.float64) ** 2
            upd = m[i] / (np.sqrt(v[i]) + eps)
            if wd and _decayed(name):
                upd = upd + wd * ps[i]
            ps[i] = ps[i] - lr * upd
    return ps


def ref_rmsprop(steps, lr, decay=0.9, mom=0.9, eps=1.0, wd=0.0, loss_scale=1.0, centered=False):
    ps = [p.asnumpy().astype(np.float64) for p in _params()]
    ms_ = [np.ones_like(p) for p in ps]
    mg = [np.zeros_like(p) for p in ps]
    moment = [np.zeros_like(p) for p in ps]
    for t in range(steps):
        for i, (name, g) in enumerate(zip(SHAPES, _grads(t))):
            g = g.astype(np.float64)
            if wd and _decayed(name):
                g = g + wd * loss_scale * ps[i]
            g = g / loss_scale
            ms_[i] = decay * ms_[i] + (1 - decay) * g * g
            mg[i] = decay * mg[i] + (1 - decay) * g
            denom = ms_[i] - mg[i] ** 2 if centered else ms_[i]
            moment[i] = mom * moment[i] + lr * g / np.sqrt(denom + eps)
            ps[i] = ps[i] - moment[i]
    return ps, ms_, moment


def _close(got, want, tol=2e-5):
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol)


# -- update rules ------------------------------------------------------------------------------------
@pytest.mark.parametrize("centered", [False, True])
@pytest.mark.parametrize("wd, loss_scale", [(0.0, 1.0), (0.1, 8.0)])
def test_rmsprop(centered, wd, loss_scale):
    # epsilon 1 (InceptionV3's) tells lr g / sqrt(ms + eps), MindSpore's documented rule and its GPU kernel, from
    # lr g / (sqrt(ms) + eps), which MindSpore 2.10's CPU ApplyRMSProp computes on each whole block of 8 elements (its
    # AVX path; the remainder takes the documented rule): Kiln follows the documented rule for every element.
    params = _params()
    opt = nn.RMSProp(params, 0.05, decay=0.9, momentum=0.9, epsilon=1.0, centered=centered, weight_decay=wd,
                     loss_scale=loss_scale)  # fmt: skip
    want, ms_, moment = ref_rmsprop(3, 0.05, wd=wd, loss_scale=loss_scale, centered=centered)
    _close(_run(opt, params, 3), want)
    _close([m.asnumpy() for m in opt.ms], ms_)
    _close([m.asnumpy() for m in opt.moment], moment)


@pytest.mark.parametrize("nesterov", [False, True])
@pytest.mark.parametrize("wd", [0.0, 0.1])
def test_momentum(nesterov, wd):
    params = _params()
    opt = nn.Momentum(params, 0.05, 0.9, weight_decay=wd, use_nesterov=nesterov)
    got = _run(opt, params, 4)
    want, acc = ref_momentum(4, 0.05, 0.9, wd, nesterov)
    _close(got, want)
    _close([m.asnumpy() for m in opt.moments], acc)
    assert opt.global_step.asnumpy().tolist() == [4]


def test_momentum_loss_scale():
    params = _params()
    opt = nn.Momentum(params, 0.05, 0.9, weight_decay=0.1, loss_scale=8.0)
    _close(_run(opt, params, 3), ref_momentum(3, 0.05, 0.9, 0.1, loss_scale=8.0)[0])


@pytest.mark.parametrize(
    "kw", [{}, {"momentum": 0.9}, {"momentum": 0.8, "dampening": 0.3, "weight_decay": 0.05},
           {"momentum": 0.9, "nesterov": True, "weight_decay": 0.01}],
)  # fmt: skip
def test_sgd(kw):
    params = _params()
    opt = nn.SGD(params, learning_rate=0.1, **kw)
    want = ref_sgd(4, 0.1, kw.get("momentum", 0.0), kw.get("dampening", 0.0), kw.get("weight_decay", 0.0),
                   kw.get("nesterov", False))  # fmt: skip
    _close(_run(opt, params, 4), want)


@pytest.mark.parametrize("nesterov", [False, True])
@pytest.mark.parametrize("wd", [0.0, 0.01])
def test_adam(nesterov, wd):
    params = _params()
    opt = nn.Adam(params, learning_rate=0.01, use_nesterov=nesterov, weight_decay=wd)
    got = _run(opt, params, 5)
    want, m, v = ref_adam(5, 0.01, wd=wd, nesterov=nesterov)
    _close(got, want, 1e-4)
    _close([x.asnumpy() for x in opt.moment1], m, 1e-4)
    _close([x.asnumpy() for x in opt.moment2], v, 1e-4)
    np.testing.assert_allclose(opt.beta1_power.asnumpy(), 0.9**5, rtol=1e-5)
    np.testing.assert_allclose(opt.beta2_power.asnumpy(), 0.999**5, rtol=1e-5)


def test_adam_amsgrad():
    params = _params()
    opt = nn.Adam(params, learning_rate=0.05, use_amsgrad=True, weight_decay=0.01)
    assert len(opt.vhat) == 3 and opt.vhat[0].name == "vhat.fc.weight"
    _close(_run(opt, params, 6), ref_adam(6, 0.05, wd=0.01, amsgrad=True)[0], 1e-4)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
@pytest.mark.parametrize("amsgrad", [False, True])
def test_adam_bias_correction_uses_the_stored_beta_powers(mode, amsgrad):
    # MindSpore's nn.Adam stores beta2^t rounded to float32, and its kernel corrects with 1 - that stored value. In
    # GRAPH_MODE XLA fused beta2_power * beta2 with `1 -` into a multiply-add (no rounding of the product), so the
    # step moved by 3.3e-6 relative at t = 2 (found on the zoo's SkipGram: parameter sums 2e-6 off PyNative's).
    # From zero parameters a step is the update itself, compared element by element against float32-rounded powers.
    ms.set_context(mode=mode)
    params = [Parameter(Tensor(np.zeros(s, np.float32)), name=n) for n, s in SHAPES.items()]
    opt = nn.Adam(params, learning_rate=0.01, use_amsgrad=amsgrad)
    b1, b2 = np.float32(0.9), np.float32(0.999)  # the optimizer's float32 betas
    b1p = b2p = np.float32(1.0)
    m = [np.zeros(s) for s in SHAPES.values()]
    v = [np.zeros(s) for s in SHAPES.values()]
    vhat = [np.zeros(s) for s in SHAPES.values()]
    for t in range(3):
        before = [p.asnumpy().astype(np.float64) for p in params]
        opt(tuple(Tensor(g) for g in _grads(t)))
        b1p, b2p = np.float32(b1p * b1), np.float32(b2p * b2)
        lr_t = 0.01 * np.sqrt(1.0 - np.float64(b2p)) / (1.0 - np.float64(b1p))
        for i, g in enumerate(_grads(t)):
            m[i] = np.float64(b1) * m[i] + (1.0 - np.float64(b1)) * g
            v[i] = np.float64(b2) * v[i] + (1.0 - np.float64(b2)) * g.astype(np.float64) ** 2
            vhat[i] = np.maximum(vhat[i], v[i]) if amsgrad else v[i]
            want = -lr_t * m[i] / (np.sqrt(vhat[i]) + 1e-8)
            np.testing.assert_allclose(params[i].asnumpy() - before[i], want, rtol=1e-6, atol=4e-9, err_msg=f"step {t}")


@pytest.mark.parametrize("wd", [0.0, 0.1])
def test_adam_weight_decay(wd):
    params = _params()
    opt = nn.AdamWeightDecay(params, learning_rate=0.01, weight_decay=wd)
    _close(_run(opt, params, 5), ref_adamw(5, 0.01, wd=wd), 1e-4)
    assert nn.AdamW is nn.AdamWeightDecay


def test_state_names_follow_mindspore():
    net = nn.SequentialCell(nn.Dense(4, 3))
    names = [p.name for p in nn.Momentum(net.trainable_params(), 0.1, 0.9).get_parameters()]
    assert names == ["global_step", "learning_rate", "0.weight", "0.bias", "momentum", "moments.0.weight",
                     "moments.0.bias"]  # fmt: skip
    names = [p.name for p in nn.Adam(net.trainable_params()).get_parameters()]
    assert "beta1_power" in names and "moment1.0.weight" in names and "moment2.0.bias" in names
    names = [p.name for p in nn.AdamWeightDecay(net.trainable_params()).get_parameters()]
    assert "adam_m.0.weight" in names and "adam_v.0.bias" in names
    names = [p.name for p in nn.SGD(net.trainable_params(), momentum=0.9).get_parameters()]
    assert "accum.0.weight" in names and "stat.0.bias" in names
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    assert opt.global_step.dtype == ms.int32 and opt.global_step.shape == (1,)
    assert opt.moments[0].shape == (3, 4) and opt.moments[0].dtype == ms.float32


# -- learning rates and groups ------------------------------------------------------------------------
@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
@pytest.mark.parametrize("as_tensor", [False, True])
def test_lr_list_and_tensor_follow_the_step_and_end_with_it(mode, as_tensor):
    # MindSpore 2.10 (CPU, both modes, a list as a Tensor): steps 1-3 take the rates in turn; step 4 raises (its
    # Gather of the rate at index 3 of 3), and so does get_lr() at global_step 3. Kiln raises with the table's length
    # and the step, and step 4 writes nothing (nor does the global step move).
    ms.set_context(mode=mode)
    lrs = [0.1, 0.05, 0.01]
    params = _params()
    opt = nn.Momentum(params, Tensor(np.array(lrs, np.float32)) if as_tensor else lrs, 0.9)
    got = _run(opt, params, 3)
    _close(got, ref_momentum(3, None, 0.9, lrs=lrs)[0])
    with pytest.raises(IndexError, match=r"Momentum holds one rate per step for 3 step\(s\).*step 4 \(global_step 3\)"):
        opt(tuple(Tensor(g) for g in _grads(3)))
    _close([p.asnumpy() for p in params], got, tol=0)
    assert int(opt.global_step.asnumpy()[0]) == 3
    with pytest.raises(IndexError, match="step 4"):
        opt.get_lr()


def test_lr_list_past_its_end_in_a_compiled_train_step():
    # a whole training step compiled as one program (the check reads the global step, a Parameter of the program)
    ms.set_context(mode=ms.GRAPH_MODE)
    net = nn.Dense(3, 2)
    opt = nn.Momentum(net.trainable_params(), [0.1, 0.05], 0.9)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
    x, y = Tensor(np.ones((4, 3), np.float32)), Tensor(np.zeros((4, 2), np.float32))
    step(x, y)
    step(x, y)
    before = net.weight.asnumpy().copy()
    with pytest.raises(IndexError, match=r"for 2 step\(s\).*step 3 \(global_step 2\)"):
        step(x, y)
    np.testing.assert_array_equal(net.weight.asnumpy(), before)
    assert int(opt.global_step.asnumpy()[0]) == 2


def test_lr_schedule():
    params = _params()
    sched = nn.ExponentialDecayLR(0.1, 0.5, 1)
    opt = nn.Momentum(params, sched, 0.9)
    got = _run(opt, params, 3)
    _close(got, ref_momentum(3, None, 0.9, lrs=[0.1, 0.05, 0.025])[0])
    np.testing.assert_allclose(float(opt.get_lr().asnumpy()), 0.0125, rtol=1e-6)
    assert opt.dynamic_lr


def test_lr_as_0d_tensor_and_get_lr():
    params = _params()
    opt = nn.SGD(params, Tensor(np.float32(0.2)))
    assert isinstance(opt.get_lr(), Parameter)
    np.testing.assert_allclose(opt.get_lr().asnumpy(), 0.2)
    _close(_run(opt, params, 2), ref_sgd(2, 0.2))


def test_groups_lr_weight_decay_and_order():
    params = _params()
    w, b, gamma = params
    groups = [
        {"params": [w], "lr": 0.01, "weight_decay": 0.1},
        {"params": [b, gamma], "weight_decay": 0.0},
        {"order_params": [w, b, gamma]},
    ]
    opt = nn.SGD(groups, learning_rate=0.1)
    assert opt.is_group and opt.is_group_lr
    lrs = opt.get_lr()
    assert len(lrs) == 3
    np.testing.assert_allclose([float(x.asnumpy()) for x in lrs], [0.01, 0.1, 0.1], rtol=1e-6)
    np.testing.assert_allclose(float(opt.get_lr_parameter(w).asnumpy()), 0.01, rtol=1e-6)
    got = _run(opt, params, 3)
    start = [p.asnumpy().astype(np.float64) for p in _params()]
    want = []
    for i, (p0, rate, wd) in enumerate(zip(start, [0.01, 0.1, 0.1], [0.1, 0.0, 0.0])):
        p = p0.copy()
        for t in range(3):
            p = p - rate * (_grads(t)[i] + wd * p)
        want.append(p)
    _close(got, want)


def test_group_lists_follow_order_params():
    # MindSpore's grouped optimizers keep group_params, group_lr, group_weight_decay and group_grad_centralization,
    # one entry per parameter in order_params' order, for user-written optimizers to read (the zoo's NFNet SGDAGC
    # walks group_params to pick the parameters it clips); Kiln had none of them (AttributeError). Values from
    # MindSpore 2.10; an optimizer without groups has no group_params there either.
    w, b, gamma = _params()
    groups = [
        {"params": [w], "lr": 0.01, "weight_decay": 0.1},
        {"params": [b, gamma], "weight_decay": 0.0, "grad_centralization": True},
        {"order_params": [gamma, w, b]},
    ]
    opt = nn.SGD(groups, learning_rate=0.1)
    assert [p.name for p in opt.group_params] == [gamma.name, w.name, b.name]
    assert all(p is q for p, q in zip(opt.group_params, opt.parameters, strict=True))
    assert opt.group_weight_decay == [0.0, 0.1, 0.0]
    assert opt.group_grad_centralization == [True, False, True]
    np.testing.assert_allclose([float(x.asnumpy()) for x in opt.group_lr], [0.1, 0.01, 0.1], rtol=1e-6)
    assert not hasattr(nn.SGD([w, b], learning_rate=0.1), "group_params")


def test_group_rates_per_step_must_have_one_length():
    # MindSpore 2.10 refuses per-step tables of other lengths (ValueError); Kiln took them and repeated the shorter
    # table's last rate, so the groups ran different schedules from the one the user's steps counted.
    w, b, gamma = _params()
    with pytest.raises(ValueError, match="one length"):
        nn.Momentum([{"params": [w], "lr": (0.1, 0.2, 0.3)}, {"params": [b, gamma]}], (0.1, 0.2), 0.9)
    with pytest.raises(ValueError, match="one length"):
        nn.SGD([{"params": [w], "lr": [0.1, 0.2]}, {"params": [b, gamma], "lr": [0.1, 0.2, 0.3]}])
    opt = nn.SGD([{"params": [w], "lr": [0.1, 0.2]}, {"params": [b, gamma]}], learning_rate=[0.3, 0.4])
    assert opt.dynamic_lr and opt.is_group_lr


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
@pytest.mark.parametrize("table_in_group", [False, True])
def test_fixed_group_rate_beside_rates_per_step_becomes_a_table(mode, table_in_group):
    # MindSpore 2.10 turns every fixed rate into a rate per step when another group has one: each entry of
    # `learning_rate` is then a schedule whose `learning_rate` Parameter holds the table (its
    # test_optimizer_with_parameter_groups reads `lr.learning_rate`); Kiln kept a bare Parameter for the fixed rate.
    ms.set_context(mode=mode)
    params = _params()
    w, b, gamma = params
    table, fixed = (0.1, 0.2, 0.3), 0.05
    group_lr, default_lr = (table, fixed) if table_in_group else (fixed, table)
    opt = nn.SGD([{"params": [w], "lr": group_lr}, {"params": [b, gamma]}], learning_rate=default_lr)
    assert opt.dynamic_lr and opt.is_group_lr
    rates = [table, [fixed] * 3, [fixed] * 3] if table_in_group else [[fixed] * 3, table, table]
    for source, want in zip(opt.learning_rate, rates, strict=True):
        np.testing.assert_allclose(source.learning_rate.asnumpy(), want, rtol=1e-6)
    got = _run(opt, params, 3)  # a 4th step is past the table's end (an error, as in MindSpore)
    start = [p.asnumpy().astype(np.float64) for p in _params()]
    want = []
    for i, (p, per_step) in enumerate(zip(start, rates, strict=True)):
        for t in range(3):
            p = p - per_step[t] * _grads(t)[i]
        want.append(p)
    _close(got, want)


class _Holder(nn.Cell):
    """A cell that takes an optimizer as an attribute with auto_prefix, as the zoo's TRN CustomTrainOneStepCell does."""

    def __init__(self, opt):
        super().__init__()
        self.optimizer = opt


@pytest.mark.parametrize(
    "case, want",
    [
        ("two tables", ["optimizer.learning_rate.0.learning_rate", "optimizer.learning_rate.2.learning_rate"]),
        ("table and default", ["optimizer.learning_rate.0.learning_rate", "optimizer.learning_rate.1.learning_rate"]),
        ("ordered", ["optimizer.learning_rate.0.learning_rate", "optimizer.learning_rate.2.learning_rate"]),
        ("fixed", ["optimizer.learning_rate_group_0", "optimizer.learning_rate_group_1"]),
    ],
)
def test_group_rates_per_step_are_named_by_their_first_parameter(case, want):
    # MindSpore 2.10 keeps one rate per parameter in the CellList `learning_rate` when the rates are per step, so a
    # parent cell with auto_prefix names a group's table `learning_rate.<position of its first parameter>.learning_rate`
    # (the zoo's TRN: its train cell holds SGD over five groups with lr arrays); Kiln named it
    # `learning_rate_<k>.learning_rate`, k counting the distinct rates. Names printed by MindSpore 2.10.
    net = nn.SequentialCell([nn.Dense(2, 3), nn.Dense(3, 1)])
    ps = net.trainable_params()
    table = np.array([0.1, 0.01], np.float32)
    groups = {
        "two tables": [{"params": ps[:2], "lr": table}, {"params": ps[2:], "lr": table * 2}],
        "table and default": [{"params": ps[:1], "lr": table}, {"params": ps[1:]}],
        "ordered": [{"params": ps[:2], "lr": table}, {"params": ps[2:], "lr": table * 2}, {"order_params": ps[::-1]}],
        "fixed": [{"params": ps[:1], "lr": 0.1}, {"params": ps[1:], "lr": 0.2}],
    }[case]
    opt = nn.SGD(groups, learning_rate=0.5, momentum=0.9)
    alone = [p.name for p in opt.get_parameters() if "learning_rate" in p.name]
    assert alone == {"table and default": ["learning_rate_group_0", "learning_rate"],
                     "ordered": ["learning_rate_group_1", "learning_rate_group_0"]}.get(
        case, ["learning_rate_group_0", "learning_rate_group_1"])  # fmt: skip
    assert [p.name for p in _Holder(opt).get_parameters() if "learning_rate" in p.name] == want
    if case == "ordered":
        walk = [name for name, _ in opt.cells_and_names()]
        assert walk == ["", "learning_rate", "learning_rate.0", "learning_rate.2"]
    assert isinstance(opt.learning_rate, tuple) and len(opt.learning_rate) == 4


def test_get_lr_parameter_refuses_what_is_not_a_parameter():
    # MindSpore 2.10: TypeError; Kiln failed on `1.name` (AttributeError)
    w, b, gamma = _params()
    opt = nn.SGD([{"params": [w], "weight_decay": 0.8}, {"params": [b, gamma]}])
    assert [p.name for p in opt.get_lr_parameter([w, b])] == ["learning_rate", "learning_rate"]
    with pytest.raises(TypeError, match="Parameters"):
        opt.get_lr_parameter([1, 2, 3])


def test_group_weight_decay_applies_to_gamma_when_asked():
    params = _params()
    opt = nn.Momentum([{"params": params, "weight_decay": 0.1}], 0.05, 0.9)
    assert opt.decay_flags == (True, True, True)
    got = _run(opt, params, 2)
    ps = [p.asnumpy().astype(np.float64) for p in _params()]
    acc = [np.zeros_like(p) for p in ps]
    for t in range(2):
        for i, g in enumerate(_grads(t)):
            acc[i] = 0.9 * acc[i] + g + 0.1 * ps[i]
            ps[i] = ps[i] - 0.05 * acc[i]
    _close(got, ps)


def test_grad_centralization():
    p = Parameter(Tensor(np.zeros((2, 16), np.float32)), name="w")
    g = np.arange(32, dtype=np.float32).reshape(2, 16)
    opt = nn.SGD([{"params": [p], "grad_centralization": True}], learning_rate=1.0)
    opt((Tensor(g),))
    np.testing.assert_allclose(p.asnumpy(), -(g - g.mean(axis=1, keepdims=True)), rtol=1e-6)


def test_dynamic_weight_decay():
    class WD(nn.Cell):
        def construct(self, step):
            return ops.cast(step, ms.float32) * 0.0 + 0.1

    params = _params()
    opt = nn.Momentum(params, 0.05, 0.9, weight_decay=WD())
    assert opt.dynamic_weight_decay
    _close(_run(opt, params, 3), ref_momentum(3, 0.05, 0.9, 0.1)[0])


def test_parameters_update_in_place_for_trainable_params():
    net = nn.Dense(4, 3)
    before = [p.asnumpy().copy() for p in net.trainable_params()]
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    opt(tuple(ops.ones_like(p) for p in net.trainable_params()))
    for p, b in zip(net.trainable_params(), before):
        np.testing.assert_allclose(p.asnumpy(), b - 0.1, rtol=1e-6)
    assert opt.parameters[0] is net.weight


def test_custom_optimizer_with_base_helpers():
    class MySGD(nn.Optimizer):
        def construct(self, gradients):
            grads = self.scale_grad(self.decay_weight(gradients))
            lr = self.get_lr()
            for p, g in zip(self.parameters, grads):
                ops.assign_sub(p, g * lr)
            return True

    params = _params()
    opt = MySGD(0.1, params, weight_decay=0.05)
    _close(_run(opt, params, 3), ref_sgd(3, 0.1, wd=0.05))


# -- errors ---------------------------------------------------------------------------------------------
def test_errors():
    params = _params()
    with pytest.raises(TypeError, match="momentum"):
        nn.Momentum(params, 0.1, 1)
    with pytest.raises(ValueError, match="momentum"):
        nn.Momentum(params, 0.1, -0.5)
    with pytest.raises(ValueError, match="Nesterov"):
        nn.SGD(params, momentum=0.9, dampening=0.1, nesterov=True)
    with pytest.raises(ValueError, match="beta1"):
        nn.Adam(params, beta1=1.0)
    with pytest.raises(ValueError, match="empty"):
        nn.Adam([])
    with pytest.raises(TypeError, match="learning_rate"):
        nn.Adam(params, learning_rate="fast")
    with pytest.raises(ValueError, match="learning_rate"):
        nn.Adam(params, learning_rate=-1.0)
    with pytest.raises(KeyError, match="group keys"):
        nn.Adam([{"params": params, "momentum": 0.1}])
    with pytest.raises(RuntimeError, match="more than once"):
        nn.Adam([{"params": params}, {"params": params[:1]}])
    opt = nn.Momentum(params, 0.1, 0.9)
    with pytest.raises(RuntimeError, match="2 gradients for 3 parameters"):
        opt(tuple(Tensor(g) for g in _grads(0)[:2]))
    with pytest.raises(ValueError, match="FusedMomentum.*shape"):
        opt((Tensor(np.ones((4, 3), np.float32)),) + tuple(Tensor(g) for g in _grads(0)[1:]))


# -- cost ---------------------------------------------------------------------------------------------------
def _ten_parameter_net():
    net = nn.SequentialCell(nn.Dense(8, 16), nn.Dense(16, 16), nn.Dense(16, 16), nn.Dense(16, 16), nn.Dense(16, 4))
    grads = tuple(ops.ones_like(p) for p in net.trainable_params())
    assert len(grads) == 10
    return net, grads


def test_one_backend_call_per_step(monkeypatch):
    # Op by op: with the lazy window on, whether a step reaches these kernels depends on the window's state
    # (it runs op by op after many single-use programs), which made this test depend on the tests before it.
    monkeypatch.setattr(dispatch, "LAZY", False)
    net, grads = _ten_parameter_net()
    for opt in (nn.Momentum(net.trainable_params(), 0.1, 0.9), nn.Adam(net.trainable_params())):
        opt(grads)  # compile
        calls = []
        compiled = dict(dispatch._compiled)
        for key, fn in compiled.items():
            monkeypatch.setitem(dispatch._compiled, key, lambda *a, _fn=fn, _k=key, _c=calls: _c.append(_k) or _fn(*a))
        opt(grads)
        assert len(calls) == 1, [k[0].name for k in calls]
        dispatch._compiled.update(compiled)


def test_one_op_per_step_in_the_lazy_window(monkeypatch):
    monkeypatch.setattr(dispatch, "LAZY", True)
    window, flushed = dispatch.WINDOW, []
    flush = window.flush
    monkeypatch.setattr(window, "flush", lambda: flushed.append([op[0].name for op in window.ops]) or flush())
    net, grads = _ten_parameter_net()
    for opt, name in ((nn.Momentum(net.trainable_params(), 0.1, 0.9), "FusedMomentum"),
                      (nn.Adam(net.trainable_params()), "FusedAdam")):  # fmt: skip
        window.flush()
        flushed.clear()
        opt(grads)
        window.flush()
        assert [names for names in flushed if names] == [[name]]


# -- end to end -------------------------------------------------------------------------------------------
def test_training_loop_reduces_loss():
    ms.set_seed(0)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, 4)).astype(np.float32)
    y = (np.sin(x[:, :1]) + 0.5 * x[:, 1:2] ** 2).astype(np.float32)

    class MLP(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Dense(4, 32, activation="tanh")
            self.fc2 = nn.Dense(32, 1)

        def construct(self, inp):
            return self.fc2(self.fc1(inp))

    net = MLP()
    optimizer = nn.Momentum(net.trainable_params(), learning_rate=0.05, momentum=0.9)

    def forward_fn(data, label):
        pred = net(data)
        return ops.mean((pred - label) ** 2), pred

    grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)

    def train_step(data, label):
        (loss, _), grads = grad_fn(data, label)
        optimizer(grads)
        return loss

    data, label = Tensor(x), Tensor(y)
    first = float(train_step(data, label).asnumpy())
    for _ in range(150):
        last = float(train_step(data, label).asnumpy())
    assert last < 0.1 * first, (first, last)
    assert optimizer.global_step.asnumpy().tolist() == [151]


# -- PyNative and Graph mode agree ----------------------------------------------------------------------
@pytest.mark.parametrize(
    "make",
    [lambda ps: nn.Momentum(ps, 0.05, 0.9, weight_decay=0.01, use_nesterov=True),
     lambda ps: nn.Adam(ps, learning_rate=nn.CosineDecayLR(0.0, 0.01, 4)),
     lambda ps: nn.SGD(ps, learning_rate=[0.1, 0.05, 0.02, 0.01], momentum=0.9)],
    ids=["momentum", "adam-schedule", "sgd-lr-list"],
)  # fmt: skip
def test_graph_mode_matches_pynative(make):
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(16, 4)).astype(np.float32), rng.normal(size=(16, 1)).astype(np.float32)

    def train(use_jit):
        ms.set_seed(0)
        net = nn.SequentialCell(nn.Dense(4, 8, activation="tanh"), nn.Dense(8, 1))
        opt = make(net.trainable_params())
        grad_fn = ms.value_and_grad(lambda d, l: ops.mean((net(d) - l) ** 2), None, opt.parameters)

        def step(d, label):
            loss, grads = grad_fn(d, label)
            opt(grads)
            return loss

        step = ms.jit(step) if use_jit else step
        losses = [float(step(Tensor(x), Tensor(y)).asnumpy()) for _ in range(4)]
        return losses, [p.asnumpy() for p in opt.get_parameters()]

    (l1, p1), (l2, p2) = train(False), train(True)
    np.testing.assert_allclose(l1, l2, rtol=1e-5, atol=1e-6)
    for a, b in zip(p1, p2):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_custom_optimizer_maps_mindspores_weight_decay_tensors(mode):
    # MindSpore's Optimizer keeps `weight_decay` as float32 Tensors of weight_decay * loss_scale (a tuple with groups)
    # and `use_parallel` False off Ascend: the zoo's VIT AdamW maps them through a MultitypeFuncGraph registered
    # for ("Tensor", ...) and reads `self.use_parallel` in its construct; Kiln kept Python floats (no registered
    # implementation) and had no `use_parallel`.
    step = ops.MultitypeFuncGraph("step")

    @step.register("Tensor", "Tensor", "Tensor", "Tensor", "Bool")
    def _(lr, wd, param, grad, decay):
        update = grad + wd * param if decay else grad
        return ops.assign(param, param - lr * update)

    class WDSGD(nn.Optimizer):
        def construct(self, gradients):
            out = self.hyper_map(
                ops.partial(step, self.get_lr()), self.weight_decay, self.parameters, gradients, self.decay_flags
            )
            if self.use_parallel:
                out = self.broadcast_params(out)
            return out

    params = _params()
    groups = [{"params": params[:2], "weight_decay": 0.1}, {"params": params[2:]}]
    opt = WDSGD(0.05, groups, weight_decay=0.0, loss_scale=2.0)
    assert not opt.use_parallel
    assert all(isinstance(w, Tensor) and w.dtype == ms.float32 for w in opt.weight_decay)
    np.testing.assert_allclose([w.asnumpy() for w in opt.get_weight_decay()], [0.2, 0.2, 0.0])
    single = nn.Momentum(_params(), 0.05, 0.9, weight_decay=0.1, loss_scale=4.0)
    np.testing.assert_allclose(single.get_weight_decay().asnumpy(), 0.4, rtol=1e-7)
    if mode == "graph":
        opt.construct = ms.jit(opt.construct)
    got = _run(opt, params, 3)
    ref = [p.asnumpy().astype(np.float64) for p in _params()]
    for t in range(3):
        for i, g in enumerate(_grads(t)):
            ref[i] = ref[i] - 0.05 * (g + (0.2 * ref[i] if i < 2 else 0.0))
    _close(got, ref)


# -- learning_rate that cannot give a rate for every step: refused when the optimizer is built -----------------------
# MindSpore 2.10 accepts an empty table and fails at the first step (RuntimeError from its Gather: index 0 out of
# [0, 0)); Kiln failed there too, as "Kiln failed internally" in FusedMomentum. Refused with ValueError, as
# MindSpore refuses a bad float learning_rate (its type for this argument's bad values).
EMPTY_TABLES = {
    "list": [],
    "tuple": (),
    "range": range(0),
    "numpy": np.zeros(0, np.float32),
    "Tensor": Tensor(np.zeros(0, np.float32)),
}


@pytest.mark.parametrize("opt_class", [nn.Momentum, nn.SGD, nn.Adam])
@pytest.mark.parametrize("name", list(EMPTY_TABLES))
def test_an_empty_rate_table_is_refused(opt_class, name):
    kw = {"momentum": 0.9} if opt_class is nn.Momentum else {}
    with pytest.raises(ValueError, match=r"'learning_rate' with a rate per step must hold at least one rate"):
        opt_class(_params(), learning_rate=EMPTY_TABLES[name], **kw)
    with pytest.raises(ValueError, match=rf"For '{opt_class.__name__}', 'learning_rate'"):  # a group's rate too
        opt_class([{"params": _params(), "lr": EMPTY_TABLES[name]}], learning_rate=0.1, **kw)


@pytest.mark.parametrize("lr", [[[0.1, 0.2]], ["a"], [0.1, "fast"]], ids=["nested", "text", "mixed"])
def test_a_table_that_is_not_one_number_per_step_is_refused(lr):
    with pytest.raises(ValueError, match=r"For 'SGD', a sequence 'learning_rate' must hold one number per step"):
        nn.SGD(_params(), learning_rate=lr)


@pytest.mark.parametrize("lr", [float("nan"), float("inf"), -float("inf")])
def test_a_rate_that_is_not_finite_is_refused(lr):
    # MindSpore: "the 'learning rate' must be a legal value" (ValueError); nan passed Kiln's sign check
    with pytest.raises(ValueError, match=rf"'learning_rate' must be finite, but got {lr}"):
        nn.Momentum(_params(), lr, 0.9)
    with pytest.raises(ValueError, match="'learning_rate' must be finite"):
        nn.Momentum([{"params": _params(), "lr": lr}], 0.1, 0.9)


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_a_one_step_table_still_trains(mode):
    # the smallest table the checks accept: its one rate trains one step; the second is past its end
    if mode == "graph":
        ms.set_context(mode=ms.GRAPH_MODE)
    params = _params()
    opt = nn.Momentum(params, [0.05], 0.9)
    got = _run(opt, params, 1)
    _close(got, ref_momentum(1, None, 0.9, lrs=[0.05])[0])
    with pytest.raises(IndexError, match=r"for 1 step\(s\).*step 2 \(global_step 1\)"):
        opt(tuple(Tensor(g) for g in _grads(1)))


def test_optimizers_warn_once_that_a_sparse_lookup_table_gets_a_dense_update(monkeypatch):
    """MindSpore 2.10 (GRAPH_MODE, target='CPU') gives an EmbeddingLookup(sparse=True) table a sparse gradient: FTRL
    then left the rows no batch looked up as they were (0.9, 1.0, 1.1, 1.2 after two steps on ids {1, 2, 3} and
    {0, 1}) where its sparse=False run and Kiln (dense gradient) zeroed them. Kiln says so once per optimizer class."""
    monkeypatch.setattr(unsupported, "_warned", set())  # what earlier tests warned about once
    dense = nn.EmbeddingLookup(6, 2, target="DEVICE", sparse=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nn.FTRL(dense.trainable_params(), learning_rate=0.1)  # a dense lookup: nothing to say
    sparse = nn.EmbeddingLookup(6, 2)  # MindSpore's defaults: target='CPU', sparse=True
    for make in (lambda p: nn.FTRL(p, learning_rate=0.1), lambda p: nn.Adam(p, use_lazy=True), nn.LazyAdam):
        name = type(make([Parameter(Tensor(np.ones(2, np.float32)), name="w")])).__name__
        with pytest.warns(UserWarning, match=rf"{name} trains \['embedding_table'\].*sparse=True.*dense update"):
            make(sparse.trainable_params())
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            make(sparse.trainable_params())  # once per class


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
@pytest.mark.parametrize("make", [lambda p: nn.Momentum(p, 0.1, 0.9), lambda p: nn.Adam(p, 0.01)])
def test_a_step_refuses_state_made_for_the_parameter_s_old_shape(mode, make):
    # set_data may reshape a Parameter (as MindSpore's does); the moments made with the optimizer keep the old shape.
    # MindSpore 2.10 refuses the step (ApplyMomentum: accumulate shape {2, 4} against variable {3, 5}).
    ms.set_context(mode=mode)
    w = Parameter(Tensor(np.ones((2, 4), np.float32)), name="w")
    opt = make([w])
    opt((Tensor(np.ones((2, 4), np.float32)),))
    w.set_data(Tensor(np.full((3, 5), 2.0, np.float32)))
    with pytest.raises(ValueError, match=r"state 0 of parameter 0 has shape \[2, 4\].*\[3, 5\].*old shape"):
        opt((Tensor(np.ones((3, 5), np.float32)),))
    np.testing.assert_array_equal(w.asnumpy(), np.full((3, 5), 2.0))  # nothing was written
