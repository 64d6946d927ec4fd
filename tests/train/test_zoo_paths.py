"""Names zoo training scripts import from MindSpore's train modules: serialization helpers, train_thor, the
callback package's private names, and train.model's ParallelMode."""

import numpy as np
import pytest

import kiln
from kiln import nn
from kiln.parallel import ParallelMode
from kiln.train import Model, serialization
from kiln.train import callback as cb
from kiln.train import model as model_module
from kiln.train.callback._checkpoint import _get_cur_net
from kiln.train.train_thor import ConvertModelUtils


def test_update_param_writes_in_place_and_checks():
    param = kiln.Parameter(kiln.Tensor(np.zeros((2, 2), np.float32)), name="w")
    serialization._update_param(param, kiln.Tensor(np.ones((2, 2), np.float64)))  # float64 into float32: cast
    np.testing.assert_array_equal(param.asnumpy(), np.ones((2, 2), np.float32))
    assert param.dtype == kiln.float32
    with pytest.raises(RuntimeError, match="shape"):
        serialization._update_param(param, kiln.Tensor(np.ones(3, np.float32)))
    with pytest.raises(RuntimeError, match="strict_load"):
        serialization._update_param(param, kiln.Tensor(np.ones((2, 2), np.float16)), strict_load=True)
    with pytest.raises(RuntimeError, match="dtype"):
        serialization._update_param(param, kiln.Tensor(np.ones((2, 2), np.int32)))


def test_checkpoint_type_names():
    assert serialization.tensor_to_ms_type["Float16"] == kiln.float16
    assert serialization.tensor_to_np_type("Int32") == np.int32
    assert serialization.tensor_to_np_type("NoSuchType") is None
    assert serialization.context is kiln.context and serialization.Tensor is kiln.Tensor
    with pytest.raises(NotImplementedError, match="build_searched_strategy"):
        serialization.build_searched_strategy("strategy.ckpt")


def test_convert_to_thor_model_keeps_a_first_order_model():
    net = nn.Dense(2, 1)
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    model = Model(net, nn.MSELoss(), opt)
    assert ConvertModelUtils.convert_to_thor_model(model, network=net, loss_fn=nn.MSELoss(), optimizer=opt) is model
    with pytest.raises(NotImplementedError, match="nn.optim.thor"):
        nn.optim.thor(net, 0.1, 0.03, 0.9)


def test_callback_private_names_and_parallel_mode():
    assert cb._InternalCallbackParam(a=1).a == 1
    assert issubclass(cb._CallbackManager, cb.Callback)
    net = nn.Dense(2, 1)
    cb._set_cur_net(net)
    assert _get_cur_net() is net
    with pytest.raises(TypeError):
        cb._set_cur_net("net")
    assert model_module.ParallelMode is ParallelMode
