"""The names kiln.train resolves from other layers (amp, export/load, the distributed-checkpoint helpers)."""

import kiln as ms
from kiln import train


def test_reexports():
    import kiln.amp  # noqa: PLC0415

    assert train.build_train_network is kiln.amp.build_train_network
    assert train.export is ms.export and train.load is ms.load
    assert {"merge_sliced_parameter", "ReduceLROnPlateau", "absolute_import"} <= set(dir(train))
