"""Learning-rate schedules (Cells) and dynamic_lr lists against their formulas."""

import math
import re

import numpy as np
import pytest

from kiln import Tensor, nn

STEPS = range(10)


def _values(sched):
    return [float(sched(Tensor(np.array([s], np.int32))).asnumpy().reshape(-1)[0]) for s in STEPS]


def _check(sched, formula):
    np.testing.assert_allclose(_values(sched), [formula(s) for s in STEPS], rtol=1e-5, atol=1e-8)


def test_exponential_decay():
    _check(nn.ExponentialDecayLR(0.1, 0.9, 4), lambda s: 0.1 * 0.9 ** (s / 4))
    _check(nn.ExponentialDecayLR(0.1, 0.9, 4, True), lambda s: 0.1 * 0.9 ** math.floor(s / 4))


def test_natural_exp_decay():
    # MindSpore's computation: exponent uses the raw step (stair: rounded down to a multiple of decay_steps)
    _check(nn.NaturalExpDecayLR(0.1, 0.3, 4), lambda s: 0.1 * math.exp(-0.3 * s))
    _check(nn.NaturalExpDecayLR(0.1, 0.3, 4, True), lambda s: 0.1 * math.exp(-0.3 * (s // 4) * 4))


def test_inverse_decay():
    _check(nn.InverseDecayLR(0.1, 0.5, 4), lambda s: 0.1 / (1 + 0.5 * s / 4))
    _check(nn.InverseDecayLR(0.1, 0.5, 4, True), lambda s: 0.1 / (1 + 0.5 * math.floor(s / 4)))


def test_cosine_decay():
    _check(nn.CosineDecayLR(0.01, 0.1, 6), lambda s: 0.01 + 0.045 * (1 + math.cos(math.pi * min(s, 6) / 6)))


def test_polynomial_decay():
    _check(nn.PolynomialDecayLR(0.1, 0.01, 6, 0.5), lambda s: 0.09 * (1 - min(s, 6) / 6) ** 0.5 + 0.01)

    def restart(s):
        period = 3 * max(math.ceil(s / 3), 1)
        return 0.09 * (1 - s / period) ** 2.0 + 0.01

    _check(nn.PolynomialDecayLR(0.1, 0.01, 3, 2.0, True), restart)


def test_warmup():
    _check(nn.WarmUpLR(0.1, 3), lambda s: 0.1 * min(s, 3) / 3)


def test_scalar_step_and_output():
    out = nn.WarmUpLR(0.1, 4)(Tensor(np.int32(2)))
    assert out.shape == () and abs(float(out.asnumpy()) - 0.05) < 1e-7


def test_schedule_errors():
    with pytest.raises(ValueError, match="decay_steps"):
        nn.ExponentialDecayLR(0.1, 0.9, 0)
    with pytest.raises(TypeError, match="learning_rate"):
        nn.ExponentialDecayLR(1, 0.9, 2)
    with pytest.raises(ValueError, match="max_lr"):
        nn.CosineDecayLR(0.1, 0.01, 5)
    with pytest.raises(TypeError, match="is_stair"):
        nn.InverseDecayLR(0.1, 0.9, 2, is_stair=1)


class TestDynamicLR:
    def test_piecewise_constant(self):
        assert nn.piecewise_constant_lr([2, 5, 6], [0.1, 0.05, 0.01]) == [0.1, 0.1, 0.05, 0.05, 0.05, 0.01]
        with pytest.raises(ValueError, match="same length"):
            nn.piecewise_constant_lr([2], [0.1, 0.2])
        with pytest.raises(ValueError, match="increasing"):
            nn.piecewise_constant_lr([3, 2], [0.1, 0.2])

    def test_exponential(self):
        got = nn.exponential_decay_lr(0.1, 0.9, 10, 2, 3)
        np.testing.assert_allclose(got, [0.1 * 0.9 ** ((i // 2) / 3) for i in range(10)])
        got = nn.exponential_decay_lr(0.1, 0.9, 10, 2, 3, True)
        np.testing.assert_allclose(got, [0.1 * 0.9 ** ((i // 2) // 3) for i in range(10)])

    def test_natural_exp(self):
        got = nn.natural_exp_decay_lr(0.1, 0.5, 10, 2, 2)
        np.testing.assert_allclose(got, [0.1 * math.exp(-0.5 * (i // 2)) for i in range(10)])
        got = nn.natural_exp_decay_lr(0.1, 0.5, 10, 2, 2, True)
        np.testing.assert_allclose(got, [0.1 * math.exp(-0.5 * ((i // 2) // 2 * 2)) for i in range(10)])

    def test_inverse(self):
        got = nn.inverse_decay_lr(0.1, 0.5, 10, 2, 2)
        np.testing.assert_allclose(got, [0.1 / (1 + 0.5 * (i // 2) / 2) for i in range(10)])
        got = nn.inverse_decay_lr(0.1, 0.5, 10, 2, 2, True)
        np.testing.assert_allclose(got, [0.1 / (1 + 0.5 * ((i // 2) // 2)) for i in range(10)])

    def test_cosine(self):
        got = nn.cosine_decay_lr(0.01, 0.1, 10, 2, 3)
        want = [0.01 + 0.045 * (1 + math.cos(math.pi * min(i // 2, 3) / 3)) for i in range(10)]
        np.testing.assert_allclose(got, want)

    def test_polynomial(self):
        got = nn.polynomial_decay_lr(0.1, 0.01, 10, 2, 2, 0.5)
        np.testing.assert_allclose(got, [0.09 * (1 - min(i // 2, 2) / 2) ** 0.5 + 0.01 for i in range(10)])
        got = nn.polynomial_decay_lr(0.1, 0.01, 10, 2, 2, 0.5, True)
        want = [0.09 * (1 - (i // 2) / (2 * max(math.ceil((i // 2) / 2), 1))) ** 0.5 + 0.01 for i in range(10)]
        np.testing.assert_allclose(got, want)

    def test_warmup(self):
        np.testing.assert_allclose(nn.warmup_lr(0.1, 10, 2, 3), [0.1 * min(i // 2, 3) / 3 for i in range(10)])

    def test_errors(self):
        with pytest.raises(ValueError, match="total_step"):
            nn.exponential_decay_lr(0.1, 0.9, 0, 2, 3)
        with pytest.raises(TypeError, match="learning_rate"):
            nn.warmup_lr(1, 10, 2, 3)
        with pytest.raises(ValueError, match="max_lr"):
            nn.cosine_decay_lr(0.2, 0.1, 10, 2, 3)


# -- bad input refused with MindSpore 2.10's exception type (ValueError for a value, as its checks) -------------------
NAN, INF = float("nan"), float("inf")
# every float argument of every schedule, with the other arguments valid: (call with the bad value, its name)
FLOAT_ARGUMENTS = {
    "exponential_decay_lr": (lambda v: nn.exponential_decay_lr(v, 0.9, 4, 2, 1), "learning_rate"),
    "exponential_decay_lr rate": (lambda v: nn.exponential_decay_lr(0.1, v, 4, 2, 1), "decay_rate"),
    "natural_exp_decay_lr": (lambda v: nn.natural_exp_decay_lr(v, 0.9, 4, 2, 1), "learning_rate"),
    "inverse_decay_lr rate": (lambda v: nn.inverse_decay_lr(0.1, v, 4, 2, 1), "decay_rate"),
    "cosine_decay_lr min": (lambda v: nn.cosine_decay_lr(v, 0.1, 4, 2, 1), "min_lr"),
    "cosine_decay_lr max": (lambda v: nn.cosine_decay_lr(0.0, v, 4, 2, 1), "max_lr"),
    "polynomial_decay_lr": (lambda v: nn.polynomial_decay_lr(v, 0.01, 4, 2, 1, 1.0), "learning_rate"),
    "polynomial_decay_lr end": (lambda v: nn.polynomial_decay_lr(0.1, v, 4, 2, 1, 1.0), "end_learning_rate"),
    "polynomial_decay_lr power": (lambda v: nn.polynomial_decay_lr(0.1, 0.01, 4, 2, 1, v), "power"),
    "warmup_lr": (lambda v: nn.warmup_lr(v, 4, 2, 1), "learning_rate"),
    "piecewise_constant_lr": (lambda v: nn.piecewise_constant_lr([2, 4], [0.1, v]), "learning_rates[1]"),
    "ExponentialDecayLR": (lambda v: nn.ExponentialDecayLR(v, 0.9, 4), "learning_rate"),
    "NaturalExpDecayLR rate": (lambda v: nn.NaturalExpDecayLR(0.1, v, 4), "decay_rate"),
    "InverseDecayLR": (lambda v: nn.InverseDecayLR(v, 0.9, 4), "learning_rate"),
    "CosineDecayLR max": (lambda v: nn.CosineDecayLR(0.0, v, 4), "max_lr"),
    "CosineDecayLR min": (lambda v: nn.CosineDecayLR(v, 0.1, 4), "min_lr"),
    "PolynomialDecayLR power": (lambda v: nn.PolynomialDecayLR(0.1, 0.01, 4, v), "power"),
    "WarmUpLR": (lambda v: nn.WarmUpLR(v, 4), "learning_rate"),
}


@pytest.mark.parametrize("value", [NAN, INF], ids=["nan", "inf"])
@pytest.mark.parametrize("case", list(FLOAT_ARGUMENTS))
def test_a_rate_that_is_not_finite_is_refused(case, value):
    # MindSpore: "The '<name>' must be a legal value, but got 'nan'"; nan passed every sign check and filled the table
    call, name = FLOAT_ARGUMENTS[case]
    call(0.05)  # valid with a finite value
    with pytest.raises(ValueError, match=rf"'{re.escape(name)}' must be a finite float, but got {value}"):
        call(value)


@pytest.mark.parametrize("milestone, rates", [([], []), ((), ())])
def test_an_empty_piecewise_schedule_is_refused(milestone, rates):
    # MindSpore returns [] and the optimizer given it fails at its first step (Kiln: "failed internally")
    with pytest.raises(ValueError, match=r"'milestone' and 'learning_rates' must hold at least one segment"):
        nn.piecewise_constant_lr(milestone, rates)
