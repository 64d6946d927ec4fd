"""MindSpore's module paths of the wrapper package resolve to kiln/nn/wrap/ under `kiln run`'s alias."""

import numpy as np

import kiln
from kiln.cli import alias


def test_wrap_submodules_resolve():
    with alias.mindspore_alias():
        from mindspore.nn.wrap.cell_wrapper import PipelineCell, TrainOneStepCell, _VirtualDatasetCell
        from mindspore.nn.wrap.grad_reducer import DistributedGradReducer, PipelineGradReducer
        from mindspore.nn.wrap.loss_scale import DynamicLossScaleUpdateCell, TrainOneStepWithLossScaleCell

    assert TrainOneStepCell is kiln.nn.TrainOneStepCell and PipelineCell is kiln.nn.PipelineCell
    assert DistributedGradReducer is kiln.nn.DistributedGradReducer
    net = kiln.nn.Dense(2, 1)
    x = kiln.Tensor(np.ones((1, 2), np.float32))
    np.testing.assert_array_equal(_VirtualDatasetCell(net)(x).asnumpy(), net(x).asnumpy())
    assert PipelineGradReducer is kiln.nn.PipelineGradReducer
    assert DynamicLossScaleUpdateCell is kiln.nn.DynamicLossScaleUpdateCell
    assert TrainOneStepWithLossScaleCell is kiln.nn.TrainOneStepWithLossScaleCell
