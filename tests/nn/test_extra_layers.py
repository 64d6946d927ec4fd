"""Layers of kiln/nn/layer/extra.py beyond the MindSpore goldens: channel dropout statistics, argument checks."""

from __future__ import annotations

import numpy as np
import pytest

from kiln import Tensor, nn


@pytest.mark.parametrize(("cls", "shape"), [(nn.Dropout1d, (8, 64, 5)), (nn.Dropout2d, (8, 64, 3, 3)),
                                            (nn.Dropout3d, (4, 64, 2, 2, 2))])  # fmt: skip
def test_channel_dropout_zeroes_whole_channels_and_rescales(cls, shape):
    layer = cls(p=0.25)
    layer.set_train(True)
    out = layer(Tensor(np.ones(shape, np.float32))).asnumpy()
    per_channel = out.reshape(shape[0], shape[1], -1)
    assert np.all((per_channel == 0).all(-1) | np.isclose(per_channel, 1 / 0.75).all(-1))
    dropped = (per_channel == 0).all(-1).mean()
    assert 0.1 < dropped < 0.4
    layer.set_train(False)
    np.testing.assert_array_equal(layer(Tensor(np.ones(shape, np.float32))).asnumpy(), np.ones(shape))


def test_argument_checks():
    # MindSpore pads as many trailing axes as pairs are given ((1, 2) pads W only); an odd length is a ValueError
    assert nn.ReflectionPad2d((1, 2))(Tensor(np.ones((1, 2, 3, 4), np.float32))).shape == (1, 2, 3, 7)
    with pytest.raises(ValueError, match="must be even"):
        nn.ReflectionPad2d((1, 2, 3))
    with pytest.raises(ValueError, match="'p' must be a number in"):
        nn.Dropout2d(1.5)
    with pytest.raises(ValueError, match="'groups' must be a positive int"):
        nn.ChannelShuffle(0)
