"""`Model` passes amp_level, loss_scale_manager, boost_level and keep_batchnorm_fp32 to `amp.build_train_network`
(kiln/train/model.py, kiln/train/amp.py): MindSpore 2.10's weights after its loss-scaled recipes, replayed from the
golden script itself under `kiln run`'s module alias, in PyNative and GRAPH_MODE; the dynamic manager against a
hand-derived reference with a skipped overflow step; unknown keywords."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

import kiln as ms
from kiln import Tensor, nn
from kiln.cli import alias
from kiln.dataset import NumpySlicesDataset
from kiln.train import DynamicLossScaleManager, FixedLossScaleManager, Model

HERE = Path(__file__).parent
GOLDEN = json.loads((HERE / "model_loss_scale_goldens_mindspore.json").read_text())


def _recipe_script():
    """make_model_loss_scale_goldens_mindspore.py imported with `mindspore` resolving to Kiln."""
    spec = importlib.util.spec_from_file_location(
        "_model_loss_scale_recipes", HERE / "make_model_loss_scale_goldens_mindspore.py"
    )
    module = importlib.util.module_from_spec(spec)
    with alias.mindspore_alias():
        spec.loader.exec_module(module)
    return module


RECIPES = _recipe_script()


@pytest.mark.parametrize("mode", ["pynative", "graph"])
@pytest.mark.parametrize("recipe", sorted(GOLDEN["recipes"]))
def test_loss_scaled_recipes_give_mindspores_weights(recipe, mode):
    got = RECIPES.run(recipe, ms.PYNATIVE_MODE if mode == "pynative" else ms.GRAPH_MODE)
    want = GOLDEN["recipes"][recipe][mode]
    assert RECIPES.RECIPES[recipe][3] == GOLDEN["recipes"][recipe]["amp_level"]
    assert sorted(got) == sorted(want)
    initial = dict(zip(("fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"), RECIPES.data()[3], strict=True))
    # A tolerance far below the distance training moves the weights (about 0.01 to 0.1), and below the float16
    # rounding of the amp-level recipes (MindSpore's own two modes differ by 4e-5 in O1).
    for name, value in want.items():
        np.testing.assert_allclose(got[name], value, rtol=2e-4, atol=2e-5, err_msg=name)
        if name.endswith("weight"):  # trained visibly (a bias before BatchNorm gets almost no gradient)
            assert np.abs(np.asarray(value) - initial[name]).max() > 5e-3


class _Scaled(nn.Cell):
    """w * x, summed: the gradient of w is the sum of x, so a step is easy to derive by hand."""

    def __init__(self) -> None:
        super().__init__()
        self.w = ms.Parameter(Tensor(np.array([1.0, 2.0], np.float32)), name="w")

    def construct(self, x, y):
        return (self.w * x).sum() + y.sum() * 0


def _dynamic_reference(batches, lr, scale, factor, window):
    """SGD with a dynamic loss scale, by hand: the update uses grad*scale/scale; an overflow (a non-finite scaled
    gradient) skips the update and divides the scale (not below 1); `window` clean steps in a row multiply it."""
    w = np.array([1.0, 2.0], np.float64)
    clean, scales = 0, []
    for x in batches:
        grad = x.sum(axis=0) * scale
        if np.all(np.isfinite(grad)):
            w = w - lr * grad / scale
            clean += 1
            if clean == window:
                scale, clean = scale * factor, 0
        else:
            scale, clean = max(scale / factor, 1.0), 0
        scales.append(scale)
    return w, scales


@pytest.mark.parametrize("way", ["pynative", "graph", "jit"])
def test_dynamic_manager_skips_an_overflowing_step(way):
    ms.set_context(mode=ms.GRAPH_MODE if way == "graph" else ms.PYNATIVE_MODE)
    rows = np.array([[1.0, 0.5], [0.25, 1.0], [np.inf, 1.0], [0.5, 0.5], [2.0, 1.0], [1.0, 1.0]], np.float32)
    batches = [rows[i : i + 1] for i in range(len(rows))]
    net = _Scaled()
    manager = DynamicLossScaleManager(init_loss_scale=8.0, scale_factor=2, scale_window=2)
    model = Model(net, optimizer=nn.SGD(net.trainable_params(), 0.1), loss_scale_manager=manager)
    assert isinstance(model.train_network, nn.TrainOneStepWithLossScaleCell)
    step = model.train_network
    if way == "jit":
        step = ms.jit(lambda x, y: model.train_network(x, y))
    scales = []
    for x in batches:
        step(Tensor(x), Tensor(np.zeros(1, np.float32)))
        scales.append(float(model.train_network.scale_sense.asnumpy()))
    want_w, want_scales = _dynamic_reference(batches, 0.1, 8.0, 2.0, 2)
    np.testing.assert_allclose(net.w.asnumpy(), want_w, rtol=1e-6)
    assert scales == want_scales
    assert want_scales[2] < want_scales[1]  # the inf batch overflowed and was skipped


@pytest.mark.parametrize("sink", [False, True])
@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_fixed_manager_with_drop_skips_an_overflowing_step(mode, sink):
    ms.set_context(mode=mode)
    net = _Scaled()
    model = Model(net, optimizer=nn.SGD(net.trainable_params(), 0.1), loss_scale_manager=FixedLossScaleManager(4.0))
    data = NumpySlicesDataset(
        {"x": np.array([[1.0, 1.0], [np.inf, 0.0], [0.5, 2.0]], np.float32), "y": np.zeros((3, 1), np.float32)},
        shuffle=False,
    ).batch(1)
    model.train(1, data, dataset_sink_mode=sink, sink_size=3 if sink else -1)
    np.testing.assert_allclose(net.w.asnumpy(), [1.0 - 0.1 * 1.5, 2.0 - 0.1 * 3.0], rtol=1e-6)


def test_model_keywords():
    net = nn.Dense(2, 1)
    with pytest.raises(TypeError, match="loss_scale_manger"):
        Model(net, nn.MSELoss(), nn.SGD(net.trainable_params()), loss_scale_manger=FixedLossScaleManager())
    with pytest.raises(ValueError, match="optimizer"):
        Model(net, nn.MSELoss(), amp_level="O2")
    with pytest.raises(TypeError, match="loss_scale_manager"):
        Model(net, nn.MSELoss(), nn.SGD(net.trainable_params()), loss_scale_manager=1024.0)
    with pytest.warns(UserWarning, match="boost"):
        Model(net, nn.MSELoss(), nn.SGD(net.trainable_params()), boost_level="O1")
    o2 = Model(nn.Dense(2, 1), nn.MSELoss(), nn.Momentum(net.trainable_params(), 0.1, 0.9), amp_level="O2")
    assert isinstance(o2.train_network, nn.TrainOneStepWithLossScaleCell)  # O2's default dynamic manager
    kept = nn.SequentialCell([nn.Dense(2, 2), nn.BatchNorm1d(2)])
    Model(kept, nn.MSELoss(), nn.Momentum(kept.trainable_params(), 0.1, 0.9), amp_level="O3", keep_batchnorm_fp32=True)
    assert kept[1].__dict__.get("_float_dtype") is ms.float32 and kept[0].__dict__.get("_float_dtype") is ms.float16
    plain = nn.SequentialCell([nn.Dense(2, 2), nn.BatchNorm1d(2)])
    Model(plain, nn.MSELoss(), nn.Momentum(plain.trainable_params(), 0.1, 0.9), amp_level="O3")
    assert plain[1].__dict__.get("_float_dtype") is ms.float16
