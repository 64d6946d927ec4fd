"""The zoo's fused optimizer Primitives (ops.FusedWeightScaleApplyMomentum, AdamNoUpdateParam, FusedAdaFactor, ...)
against MindSpore 2.10 goldens (make_fused_momentum_goldens_mindspore.py, make_fused_adam_goldens_mindspore.py,
make_fused_ada_factor_goldens_mindspore.py) and float64 NumPy, in PyNative and GRAPH_MODE."""

import base64
import json
import pathlib
import sys

import numpy as np
import pytest

import kiln as ms
from kiln import Parameter, Tensor, nn, ops
from kiln.ops import operations as P

HERE = pathlib.Path(__file__).parent
sys.path.insert(0, str(HERE))
import fused_ada_factor_cases  # noqa: E402
import fused_adam_cases  # noqa: E402

N = 64
WEIGHT_DECAY, LOSS_SCALE, LR, MOMENTUM = 0.0001, 0.125, 0.1, 0.9


def _golden(name: str) -> dict:
    data = json.loads((HERE / name).read_text())
    return {k: np.frombuffer(base64.b64decode(v), np.float32) for k, v in data.items() if k != "mindspore"}


def _inputs():
    # as make_fused_momentum_goldens_mindspore.py draws them
    rng = np.random.default_rng(30)
    var = rng.standard_normal(N).astype(np.float32)
    acc = rng.standard_normal(N).astype(np.float32)
    grads = rng.standard_normal((2, N)).astype(np.float32) * np.float32(8.0)
    return var, acc, grads


class _ResNetMomentumStep(nn.Cell):
    """One parameter's step of the zoo's Momentum (official/cv/ResNet/src/momentum.py)."""

    def __init__(self, var, acc):
        super().__init__()
        self.var, self.acc = Parameter(Tensor(var), name="var"), Parameter(Tensor(acc), name="acc")
        self.opt = ops.FusedWeightScaleApplyMomentum()

    def construct(self, wd, scale, lr, grad, mom):
        return self.opt(wd, scale, self.var, self.acc, lr, grad, mom)


def _kernel_float64(var, acc, grads):
    """The GPU kernel's lines, each computed in float64 and stored as float32."""
    f32 = np.float32
    for g in grads:
        d = f32(var.astype(np.float64) * f32(WEIGHT_DECAY) + g)
        d = f32(d * np.float64(f32(LOSS_SCALE)))
        acc = f32(np.float64(f32(MOMENTUM)) * acc + d)
        var = f32(var - np.float64(f32(LR)) * acc)
    return var, acc


def _exact(var, acc, grads):
    """The recurrence in float64 throughout (its inputs as float32 values)."""
    f = lambda x: float(np.float32(x))  # noqa: E731
    var, acc = var.astype(np.float64), acc.astype(np.float64)
    for g in grads:
        acc = f(MOMENTUM) * acc + (var * f(WEIGHT_DECAY) + g) * f(LOSS_SCALE)
        var = var - f(LR) * acc
    return var, acc


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_fused_weight_scale_apply_momentum_against_mindspore(mode):
    ms.set_context(mode=mode)
    var, acc, grads = _inputs()
    net = _ResNetMomentumStep(var, acc)
    f = lambda x: Tensor(np.float32(x))  # noqa: E731
    for g in grads:
        out = net(f(WEIGHT_DECAY), f(LOSS_SCALE), f(LR), Tensor(g), f(MOMENTUM))
    np.testing.assert_array_equal(out.asnumpy(), net.var.asnumpy())
    # bit-equal to the kernel's lines each rounded once (float64 NumPy)
    want_var, want_acc = _kernel_float64(var, acc, grads)
    np.testing.assert_array_equal(net.var.asnumpy(), want_var)
    np.testing.assert_array_equal(net.acc.asnumpy(), want_acc)
    # MindSpore runs the kernel on GPU only; its CPU build's ops computing the same lines (rounding each product
    # too) and Kiln are both within 2 ulp of the largest value of the exact float64 recurrence (measured: Kiln
    # 1.2e-7 and 2.1e-7 off, MindSpore 1.2e-7 and 2.6e-7, for variable and accumulation)
    golden = _golden("fused_momentum_goldens_mindspore.json")
    exact_var, exact_acc = _exact(var, acc, grads)
    for got, want, exact in [(net.var, golden["variable"], exact_var), (net.acc, golden["accumulation"], exact_acc)]:
        bound = 2 * np.spacing(np.float32(np.abs(exact).max()))
        assert np.abs(got.asnumpy() - exact).max() <= bound
        assert np.abs(want - exact).max() <= bound


def test_fused_weight_scale_apply_momentum_is_both_faces_and_checks_shapes():
    assert P.FusedWeightScaleApplyMomentum is ops.FusedWeightScaleApplyMomentum
    var = Parameter(Tensor(np.ones(3, np.float32)), name="v")
    acc = Parameter(Tensor(np.zeros(3, np.float32)), name="a")
    one = Tensor(np.float32(1.0))
    with pytest.raises(ValueError, match="FusedWeightScaleApplyMomentum"):
        ops.FusedWeightScaleApplyMomentum()(one, one, var, acc, one, Tensor(np.ones(4, np.float32)), one)


FUSED_ADAM = np.load(HERE / "fused_adam_goldens_mindspore.npz")


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
@pytest.mark.parametrize("case", ["adam_no_update_param", "adam_no_update_param_nesterov"])
def test_adam_no_update_param_is_bit_equal_to_mindspore(case, mode):
    # two steps: the delta, m and v after each (the zoo's SPADE AdamOffload adds the delta to the parameter)
    got = fused_adam_cases.run(ms, case, mode)
    for k, value in enumerate(got):
        want = FUSED_ADAM[f"{case}/{k}"]
        assert value.dtype == want.dtype
        np.testing.assert_array_equal(value, want, err_msg=f"{case} output {k}")


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
@pytest.mark.parametrize(
    "case",
    ["fused_cast_adam_f32_f16", "fused_cast_adam_f16_f16", "fused_cast_adam_f32_f32", "fused_cast_adam_tiny_norm"],
)
def test_fused_cast_adam_weight_decay_is_bit_equal_to_mindspore(case, mode):
    # two steps: var (float32 or float16), m and v after each
    got = fused_adam_cases.run(ms, case, mode)
    for k, value in enumerate(got):
        want = FUSED_ADAM[f"{case}/{k}"]
        assert value.dtype == want.dtype, (k, value.dtype, want.dtype)
        np.testing.assert_array_equal(value, want, err_msg=f"{case} array {k}")


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
@pytest.mark.parametrize("case", ["fused_sparse_adam", "fused_sparse_adam_out_of_range", "fused_sparse_adam_nesterov"])
def test_fused_sparse_adam_is_bit_equal_to_mindspore(case, mode):
    # two steps: var, m and v after each, with repeated indices and rows no index names
    got = fused_adam_cases.run(ms, case, mode)
    for k, value in enumerate(got):
        np.testing.assert_array_equal(value, FUSED_ADAM[f"{case}/{k}"], err_msg=f"{case} array {k}")


def test_fused_sparse_adam_checks_shapes():
    var = Parameter(Tensor(np.ones((4, 2), np.float32)), name="var")
    m = Parameter(Tensor(np.zeros((4, 2), np.float32)), name="m")
    v = Parameter(Tensor(np.zeros((4, 2), np.float32)), name="v")
    one = Tensor(np.float32(0.5))
    with pytest.raises(ValueError, match=r"FusedSparseAdam.*grad \[2, 3\]"):
        P.FusedSparseAdam()(var, m, v, one, one, one, one, one, one, Tensor(np.ones((2, 3), np.float32)),
                            Tensor(np.array([0, 1], np.int32)))  # fmt: skip


FUSED_ADA_FACTOR = np.load(HERE / "fused_ada_factor_goldens_mindspore.npz")


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
@pytest.mark.parametrize("case", sorted(fused_ada_factor_cases.CASES))
def test_fused_ada_factor_is_bit_equal_to_mindspore(case, mode):
    # three steps; the parameter, exp_avg and the three second-moment states after them
    got = fused_ada_factor_cases.run(ms, case, mode)
    for k, value in enumerate(got):
        np.testing.assert_array_equal(value, FUSED_ADA_FACTOR[f"{case}/{k}"], err_msg=f"{case} output {k}")


def test_fused_ada_factor_checks_its_state_shapes():
    def state(shape):
        return Parameter(Tensor(np.zeros(shape, np.float32)))

    grad, param = Tensor(np.ones((2, 3), np.float32)), state((2, 3))
    opt = ops.FusedAdaFactor()
    args = ((1e-30, 1e-3), 1.0, 0.9, 0.8, 0.0, 0.1, grad, param, state((2, 3)))
    with pytest.raises(ValueError, match="exp_avg_sq_row"):
        opt(*args, state((3,)), state((3,)), state((1,)))  # the row state of a (2, 3) parameter has 2 entries
    with pytest.raises(ValueError, match="epsilon"):
        opt((1e-30,), *args[1:], state((2,)), state((3,)), state((1,)))
