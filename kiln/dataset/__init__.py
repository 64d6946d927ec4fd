"""Data pipelines with MindSpore's `mindspore.dataset` API, in NumPy.

Sources (MnistDataset, Cifar10Dataset, ImageFolderDataset, GeneratorDataset,
NumpySlicesDataset) are chained with lazy methods (map, batch, shuffle, ...)
and read through iterators that prefetch on a background thread.
"""

from kiln.dataset import config, transforms, vision
from kiln.dataset.engine import (
    BatchDataset,
    ConcatDataset,
    Dataset,
    FilterDataset,
    MapDataset,
    ProjectDataset,
    RenameDataset,
    RepeatDataset,
    ShuffleDataset,
    SkipDataset,
    TakeDataset,
    ZipDataset,
)
from kiln.dataset.engine import zip_datasets as zip  # MindSpore's name for it
from kiln.dataset.image_sources import Cifar10Dataset, ImageFolderDataset, MnistDataset
from kiln.dataset.iterators import DictIterator, TupleIterator
from kiln.dataset.sampler import DistributedSampler
from kiln.dataset.sources import GeneratorDataset, NumpySlicesDataset

__all__ = [
    "BatchDataset",
    "Cifar10Dataset",
    "ConcatDataset",
    "Dataset",
    "DictIterator",
    "DistributedSampler",
    "FilterDataset",
    "GeneratorDataset",
    "ImageFolderDataset",
    "MapDataset",
    "MnistDataset",
    "NumpySlicesDataset",
    "ProjectDataset",
    "RenameDataset",
    "RepeatDataset",
    "ShuffleDataset",
    "SkipDataset",
    "TakeDataset",
    "TupleIterator",
    "ZipDataset",
    "config",
    "transforms",
    "vision",
    "zip",
]
