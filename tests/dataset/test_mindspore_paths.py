"""MindSpore's dataset module paths resolve to Kiln's modules under `mindspore_alias` (kiln/cli/alias.py)."""

import kiln.dataset as ds
from kiln.cli import alias


def test_dataset_module_paths_resolve():
    with alias.mindspore_alias():
        from mindspore.dataset.callback import DSCallback
        from mindspore.dataset.engine.cache_client import DatasetCache
        from mindspore.dataset.engine.datasets import Dataset
        from mindspore.dataset.engine.datasets_audio import YesNoDataset
        from mindspore.dataset.engine.datasets_standard_format import MindDataset, TFRecordDataset
        from mindspore.dataset.engine.datasets_text import TextFileDataset
        from mindspore.dataset.engine.datasets_user_defined import GeneratorDataset
        from mindspore.dataset.engine.datasets_vision import ImageFolderDataset, MnistDataset, VOCDataset
        from mindspore.dataset.engine.samplers import DistributedSampler
        from mindspore.dataset.engine.serializer_deserializer import serialize

    assert (DSCallback, DatasetCache, Dataset) == (ds.DSCallback, ds.DatasetCache, ds.Dataset)
    assert (YesNoDataset, MindDataset, TFRecordDataset) == (ds.YesNoDataset, ds.MindDataset, ds.TFRecordDataset)
    assert (TextFileDataset, GeneratorDataset) == (ds.TextFileDataset, ds.GeneratorDataset)
    assert (ImageFolderDataset, MnistDataset, VOCDataset) == (ds.ImageFolderDataset, ds.MnistDataset, ds.VOCDataset)
    assert (DistributedSampler, serialize) == (ds.DistributedSampler, ds.serialize)
