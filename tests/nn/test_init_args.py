"""cell_attr_register / opt_init_args_register record constructor arguments; `_Loss` is LossBase's older name."""

import numpy as np

import kiln
from kiln import nn
from kiln.nn.init_args import cell_attr_register, opt_init_args_register
from kiln.nn.loss.loss import LossBase, _Loss
from kiln.nn.optim.optimizer import opt_init_args_register as from_optimizer_module


class _Scale(nn.Cell):
    @cell_attr_register
    def __init__(self, factor, bias=0.0):
        super().__init__()
        self.factor = factor
        self.bias = bias

    def construct(self, x):
        return x * self.factor + self.bias


class _Picked(nn.Cell):
    @cell_attr_register(attrs=["factor"])
    def __init__(self, factor, bias=0.0):
        super().__init__()

    def construct(self, x):
        return x


def test_cell_attr_register_records_arguments_and_keeps_init():
    cell = _Scale(2.0)
    assert cell.cell_init_args == "_Scale(factor=2.0, bias=0.0)"
    assert _Picked(3, bias=1).cell_init_args == "_Picked(factor=3)"
    out = cell(kiln.Tensor(np.array([1.0, 2.0], np.float32)))
    np.testing.assert_allclose(out.asnumpy(), [2.0, 4.0])


def test_opt_init_args_register_records_arguments():
    assert from_optimizer_module is opt_init_args_register

    class Recorded(nn.Momentum):
        @opt_init_args_register
        def __init__(self, params, learning_rate, momentum, weight_decay=0.0):
            super().__init__(params, learning_rate, momentum, weight_decay=weight_decay)

    net = nn.Dense(2, 1)
    opt = Recorded(net.trainable_params(), 0.1, 0.9)
    assert set(opt.init_args) == {"params", "learning_rate", "momentum", "weight_decay"}
    assert opt.init_args["learning_rate"] == 0.1 and opt.init_args["weight_decay"] == 0.0


def test_old_loss_base_name_is_a_loss_base():
    class L1(_Loss):
        def construct(self, logits, labels):
            return self.get_loss(kiln.ops.abs(logits - labels))

    assert issubclass(_Loss, LossBase)
    loss = L1()(kiln.Tensor(np.array([1.0, -1.0], np.float32)), kiln.Tensor(np.zeros(2, np.float32)))
    assert float(loss.asnumpy()) == 1.0
