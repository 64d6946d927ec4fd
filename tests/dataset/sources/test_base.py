"""The source base: public constructors show MindSpore's keyword signatures and bind arguments like a function."""

import inspect

import pytest

import kiln.dataset as ds
from kiln.dataset.sources.base import SampledSource


def _params(cls):
    return [(p.name, p.default) for p in inspect.signature(cls).parameters.values()]


def test_signatures_are_the_real_parameters():
    assert _params(ds.MnistDataset) == [
        ("dataset_dir", inspect.Parameter.empty), ("usage", None), ("num_samples", None),
        ("num_parallel_workers", None), ("shuffle", None), ("sampler", None), ("num_shards", None),
        ("shard_id", None), ("cache", None), ("decrypt", None),
    ]  # fmt: skip
    assert [n for n, _ in _params(ds.ImageFolderDataset)] == [
        "dataset_dir", "num_samples", "num_parallel_workers", "shuffle", "sampler", "extensions", "class_indexing",
        "decode", "num_shards", "shard_id", "cache", "decrypt",
    ]  # fmt: skip
    assert _params(ds.TextFileDataset) == [
        ("dataset_files", inspect.Parameter.empty), ("num_samples", None), ("num_parallel_workers", None),
        ("shuffle", ds.Shuffle.GLOBAL), ("num_shards", None), ("shard_id", None), ("cache", None),
    ]  # fmt: skip
    assert dict(_params(ds.SVHNDataset))["num_parallel_workers"] == 1 and "cache" not in dict(_params(ds.SVHNDataset))
    assert [n for n, _ in _params(ds.Food101Dataset)][4:6] == ["shuffle", "decode"]
    for name in ds.__all__:
        cls = getattr(ds, name)
        if isinstance(cls, type) and issubclass(cls, SampledSource):
            kinds = {p.kind for p in inspect.signature(cls).parameters.values()}
            assert kinds <= {inspect.Parameter.POSITIONAL_OR_KEYWORD}, name  # no *args / **kwargs shown


def test_arguments_bind_as_for_a_function(tmp_path):
    with pytest.raises(TypeError, match="MnistDataset: .*unexpected keyword argument 'num_sample'"):
        ds.MnistDataset(str(tmp_path), num_sample=3)
    with pytest.raises(TypeError, match="YesNoDataset: missing a required argument: 'dataset_dir'"):
        ds.YesNoDataset()
    with pytest.raises(TypeError, match="too many positional arguments"):
        ds.YesNoDataset(str(tmp_path), None, None, None, None, None, None, None, None)
