"""The AdaSum wrappers import (zoo train cells test `isinstance(optimizer, (nn.AdaSumByGradWrapCell, ...))`) and
refuse to be built, as MindSpore 2.10 refuses them outside a 16-device auto-parallel job."""

import pytest

from kiln import nn


@pytest.mark.parametrize("name", ["AdaSumByGradWrapCell", "AdaSumByDeltaWeightWrapCell"])
def test_adasum_wrappers_import_and_refuse_construction(name):
    cls = getattr(nn, name)
    optimizer = nn.Momentum(nn.Dense(2, 1).trainable_params(), 0.1, 0.9)
    assert not isinstance(optimizer, cls) and issubclass(cls, nn.Cell)
    with pytest.raises(NotImplementedError, match=f"nn.{name} is not available in Kiln: .*pass the optimizer itself"):
        cls(optimizer)
