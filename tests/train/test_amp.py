"""Mixed precision and loss scaling (kiln/amp.py, kiln/nn/wrap/loss_scale.py, kiln/train/loss_scale_manager.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import kiln
from kiln import Tensor, amp, nn


class _Net(nn.Cell):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Dense(3, 4)
        self.norm = nn.LayerNorm((4,))
        self.out = nn.Dense(4, 2)

    def construct(self, x):
        return self.out(self.norm(self.fc(x)))


def _float_dtypes(net):
    return {name: c.__dict__.get("_float_dtype") for name, c in net.cells_and_names()}


def test_levels_mark_the_cells_as_mindspore_does():
    net = amp.auto_mixed_precision(_Net(), "O1")
    marks = _float_dtypes(net)
    assert marks["fc"] is kiln.float16 and marks["out"] is kiln.float16 and marks["norm"] is None
    o2 = amp.auto_mixed_precision(_Net(), "O2", kiln.bfloat16)
    marks = _float_dtypes(o2._backbone)
    assert marks["fc"] is kiln.bfloat16 and marks["norm"] is kiln.float32
    out = o2(Tensor(np.ones((2, 3), np.float32)))
    assert out.dtype == kiln.float32  # O2 and O3 cast the outputs back
    assert amp.auto_mixed_precision(_Net(), "O3")(Tensor(np.ones((2, 3), np.float32))).dtype == kiln.float32
    with pytest.raises(ValueError, match="not supported"):
        amp.auto_mixed_precision(_Net(), "O4")
    with pytest.raises(ValueError, match="float16 or bfloat16, not Float32"):
        amp.auto_mixed_precision(_Net(), "O1", kiln.float32)


def test_all_finite_and_static_scaler():
    assert bool(amp.all_finite((Tensor([1.0, 2.0]), Tensor([3.0]))).asnumpy())
    assert not bool(amp.all_finite((Tensor([1.0, np.nan]),)).asnumpy())
    s = amp.StaticLossScaler(8)
    np.testing.assert_allclose(s.scale(Tensor([1.0, 2.0])).asnumpy(), [8.0, 16.0])
    a, b = s.unscale((Tensor([8.0]), Tensor([16.0])))
    np.testing.assert_allclose([a.asnumpy()[0], b.asnumpy()[0]], [1.0, 2.0])


def test_dynamic_scaler_grows_after_window_and_shrinks_on_overflow():
    s = amp.DynamicLossScaler(1024, scale_factor=2, scale_window=2)
    seen = []
    for finite in (True, True, False, True):
        s.adjust(Tensor(finite))
        seen.append(float(s.scale_value.asnumpy()))
    assert seen == [1024.0, 2048.0, 1024.0, 1024.0]


def test_loss_scaled_step_skips_the_update_on_overflow_and_adjusts_the_scale():
    net = nn.Dense(2, 1, weight_init="ones", bias_init="zeros")
    opt = nn.SGD(net.trainable_params(), 0.1)
    manager = nn.DynamicLossScaleUpdateCell(loss_scale_value=4.0, scale_factor=2, scale_window=1)
    step = nn.TrainOneStepWithLossScaleCell(nn.WithLossCell(net, nn.MSELoss()), opt, scale_sense=manager)
    x, y = Tensor(np.ones((1, 2), np.float32)), Tensor(np.zeros((1, 1), np.float32))
    loss, overflow, scale = step(x, y)
    assert not bool(overflow.asnumpy())
    np.testing.assert_allclose(net.weight.asnumpy(), [[1 - 0.1 * 4.0, 1 - 0.1 * 4.0]])  # d/dw (w.x)^2 = 2 * 2 * x
    assert float(step.scale_sense.asnumpy()) == 8.0  # grown after a clean window of 1
    before = net.weight.asnumpy().copy()
    loss, overflow, _ = step(Tensor(np.full((1, 2), np.inf, np.float32)), y)
    assert bool(overflow.asnumpy())
    np.testing.assert_array_equal(net.weight.asnumpy(), before)
    assert float(step.scale_sense.asnumpy()) == 4.0


def test_managers_and_build_train_network():
    fixed = kiln.FixedLossScaleManager(64.0, drop_overflow_update=False)
    assert fixed.get_loss_scale() == 64.0 and fixed.get_update_cell() is None
    dyn = kiln.DynamicLossScaleManager(16, 2, 3)
    dyn.update_loss_scale(True)
    assert dyn.get_loss_scale() == 8
    assert isinstance(dyn.get_update_cell(), nn.DynamicLossScaleUpdateCell)
    net = nn.Dense(3, 2)
    train = amp.build_train_network(net, nn.Momentum(net.trainable_params(), 0.1, 0.9), nn.MSELoss(), level="O2")
    assert isinstance(train, nn.TrainOneStepWithLossScaleCell)
    loss, overflow, scale = train(Tensor(np.ones((4, 3), np.float32)), Tensor(np.ones((4, 2), np.float32)))
    assert loss.dtype == kiln.float32 and scale.shape == ()
    other = nn.Dense(3, 2)
    plain = amp.build_train_network(other, nn.SGD(other.trainable_params()), nn.MSELoss())
    assert isinstance(plain, nn.TrainOneStepCell) and not isinstance(plain, nn.TrainOneStepWithLossScaleCell)


GOLDEN = json.loads((Path(__file__).parent / "amp_goldens.json").read_text())  # make_amp_goldens_mindspore.py


def test_dynamic_loss_scaler_matches_mindspore():
    scaler = amp.DynamicLossScaler(1024, scale_factor=2, scale_window=2)
    scales = []
    for finite in GOLDEN["finite_sequence"]:
        scaler.adjust(Tensor(finite))
        scales.append(float(scaler.scale_value.asnumpy()))
    assert scales == GOLDEN["scales"]
    np.testing.assert_allclose(scaler.unscale((Tensor([8.0, 16.0]),))[0].asnumpy(), GOLDEN["unscaled"])
    np.testing.assert_allclose(scaler.scale(Tensor([1.0, 3.0])).asnumpy(), GOLDEN["scaled"])
    floor = amp.DynamicLossScaler(1.0, scale_factor=2, scale_window=1)
    for _ in range(3):
        floor.adjust(Tensor(False))
    assert float(floor.scale_value.asnumpy()) == GOLDEN["floor_after_overflows"]


def test_all_finite_matches_mindspore():
    assert bool(amp.all_finite((Tensor([1.0, 2.0]), Tensor([np.inf]))).asnumpy()) == GOLDEN["all_finite_with_inf"]
    assert bool(amp.all_finite((Tensor([np.nan]),)).asnumpy()) == GOLDEN["all_finite_with_nan"]
    assert bool(amp.all_finite((Tensor([1.0, 2.0]),)).asnumpy()) == GOLDEN["all_finite_clean"]


def test_listed_layers_return_the_precision_around_them():
    """O1: a white-list layer computes in float16 and returns float32; O2: a black-list layer computes in float32
    and returns float16 (MindSpore's casts around the listed layers)."""
    seen = {}

    def record(name):
        return lambda cell, inputs, out: seen.__setitem__(name, (inputs[0].dtype, out.dtype))

    o1 = amp.auto_mixed_precision(_Net(), "O1")
    o1.fc.register_forward_hook(record("O1 fc"))
    o1.norm.register_forward_hook(record("O1 norm"))
    o1(Tensor(np.ones((2, 3), np.float32)))
    # A hook sees the inputs as given and the output as returned: MindSpore's PyNative casts inside the layer, op by
    # op, not at its call (its forward hook on a to_float(float16) Dense sees a float32 input, a float16 output).
    assert seen["O1 fc"] == (kiln.float32, kiln.float32) and seen["O1 norm"] == (kiln.float32, kiln.float32)
    o2 = amp.auto_mixed_precision(_Net(), "O2")
    o2._backbone.norm.register_forward_hook(record("O2 norm"))
    o2._backbone.out.register_forward_hook(record("O2 out"))
    assert o2(Tensor(np.ones((2, 3), np.float32))).dtype == kiln.float32
    assert seen["O2 norm"] == (kiln.float16, kiln.float16) and seen["O2 out"][0] == kiln.float16
