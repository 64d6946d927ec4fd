"""Data pipelines with MindSpore's `mindspore.dataset` API, in NumPy.

Sources (MnistDataset, Cifar10Dataset, ImageFolderDataset, GeneratorDataset,
NumpySlicesDataset) are chained with lazy methods (map, batch, shuffle, ...)
and read through iterators that prefetch on a background thread.
"""

from kiln import context  # noqa: F401 (MindSpore's dataset package holds it; zoo scripts import it from there)
from kiln.dataset import audio, config, text, transforms, vision
from kiln.dataset.cache import DatasetCache
from kiln.dataset.callbacks import DSCallback, WaitedDSCallback
from kiln.dataset.config import (
    ErrorSamplesMode,
    get_callback_timeout,
    get_debug_mode,
    get_enable_watchdog,
    get_error_samples_mode,
    get_multiprocessing_start_method,
    get_multiprocessing_timeout_interval,
    get_num_parallel_workers,
    get_seed,
    get_video_backend,
    set_seed,
    set_video_backend,
)
from kiln.dataset.engine import (
    BatchDataset,
    BatchInfo,
    BucketBatchDataset,
    ConcatDataset,
    Dataset,
    FilterDataset,
    FlatMapDataset,
    MapDataset,
    ProjectDataset,
    RenameDataset,
    RepeatDataset,
    ShuffleDataset,
    SkipDataset,
    SyncWaitDataset,
    TakeDataset,
    ZipDataset,
)
from kiln.dataset.engine import zip_datasets as zip  # MindSpore's name for it
from kiln.dataset.iterators import DictIterator, TupleIterator
from kiln.dataset.sampler import (
    BuiltinSampler,
    DistributedSampler,
    IterSampler,
    PKSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    SubsetSampler,
    WeightedRandomSampler,
)
from kiln.dataset.schema import Schema
from kiln.dataset.serialization import compare, deserialize, serialize, show
from kiln.dataset.sources.audio import (
    CMUArcticDataset,
    LibriTTSDataset,
    LJSpeechDataset,
    SpeechCommandsDataset,
    YesNoDataset,
)
from kiln.dataset.sources.base import SampledSource, Shuffle
from kiln.dataset.sources.detection import (
    CocoDataset,
    DIV2KDataset,
    KITTIDataset,
    SBDataset,
    VOCDataset,
    WIDERFaceDataset,
)
from kiln.dataset.sources.image_arrays import (
    Cifar10Dataset,
    Cifar100Dataset,
    EMnistDataset,
    FakeImageDataset,
    FashionMnistDataset,
    KMnistDataset,
    MnistDataset,
    PhotoTourDataset,
    QMnistDataset,
    SemeionDataset,
    STL10Dataset,
    SVHNDataset,
    USPSDataset,
)
from kiln.dataset.sources.image_files import (
    Caltech101Dataset,
    Caltech256Dataset,
    CelebADataset,
    FlickrDataset,
    Flowers102Dataset,
    Food101Dataset,
    ImageFolderDataset,
    LFWDataset,
    ManifestDataset,
    OmniglotDataset,
    Places365Dataset,
    RenderedSST2Dataset,
    SUN397Dataset,
)
from kiln.dataset.sources.mindrecord import MindDataset
from kiln.dataset.sources.python import GeneratorDataset, NumpySlicesDataset, PaddedDataset, RandomDataset
from kiln.dataset.sources.text import (
    AGNewsDataset,
    AmazonReviewDataset,
    CLUEDataset,
    CoNLL2000Dataset,
    CSVDataset,
    DBpediaDataset,
    EnWik9Dataset,
    IMDBDataset,
    Multi30kDataset,
    PennTreebankDataset,
    SogouNewsDataset,
    SQuADDataset,
    SST2Dataset,
    TextFileDataset,
    UDPOSDataset,
    WikiTextDataset,
    YahooAnswersDataset,
    YelpReviewDataset,
)
from kiln.dataset.sources.tfrecord import TFRecordDataset
from kiln.dataset.utils import LineReader

__all__ = [
    "PhotoTourDataset",
    "LFWDataset",
    "Places365Dataset",
    "WIDERFaceDataset",
    "KITTIDataset",
    "DIV2KDataset",
    "SBDataset",
    "Flowers102Dataset",
    "SVHNDataset",
    "sync_wait_for_dataset",
    "set_video_backend",
    "set_seed",
    "get_video_backend",
    "get_seed",
    "get_num_parallel_workers",
    "get_multiprocessing_timeout_interval",
    "get_multiprocessing_start_method",
    "get_error_samples_mode",
    "get_enable_watchdog",
    "get_debug_mode",
    "get_callback_timeout",
    "VisionBaseDataset",
    "UnionBaseDataset",
    "TextBaseDataset",
    "SourceDataset",
    "PaddedBatchDataset",
    "OBSMindDataset",
    "MappableDataset",
    "LineReader",
    "IterSampler",
    "ErrorSamplesMode",
    "BuiltinSampler",
    "BucketBatchByLengthDataset",
    "AudioBaseDataset",
    "CLUEDataset",
    "FlickrDataset",
    "RenderedSST2Dataset",
    "SUN397Dataset",
    "Food101Dataset",
    "Caltech101Dataset",
    "TFRecordDataset",
    "VOCDataset",
    "CocoDataset",
    "SQuADDataset",
    "SpeechCommandsDataset",
    "OmniglotDataset",
    "LibriTTSDataset",
    "CMUArcticDataset",
    "YesNoDataset",
    "USPSDataset",
    "UDPOSDataset",
    "STL10Dataset",
    "QMnistDataset",
    "Multi30kDataset",
    "LJSpeechDataset",
    "CoNLL2000Dataset",
    "CelebADataset",
    "AGNewsDataset",
    "AmazonReviewDataset",
    "audio",
    "BatchDataset",
    "BatchInfo",
    "BucketBatchDataset",
    "Caltech256Dataset",
    "Cifar100Dataset",
    "Cifar10Dataset",
    "compare",
    "ConcatDataset",
    "config",
    "CSVDataset",
    "Dataset",
    "DatasetCache",
    "DBpediaDataset",
    "deserialize",
    "DictIterator",
    "DistributedSampler",
    "DSCallback",
    "EMnistDataset",
    "EnWik9Dataset",
    "FakeImageDataset",
    "FashionMnistDataset",
    "FilterDataset",
    "FlatMapDataset",
    "GeneratorDataset",
    "ImageFolderDataset",
    "IMDBDataset",
    "KMnistDataset",
    "ManifestDataset",
    "MapDataset",
    "MindDataset",
    "MnistDataset",
    "NumpySlicesDataset",
    "PaddedDataset",
    "PennTreebankDataset",
    "PKSampler",
    "ProjectDataset",
    "RandomDataset",
    "RandomSampler",
    "RenameDataset",
    "RepeatDataset",
    "Sampler",
    "Schema",
    "SemeionDataset",
    "SequentialSampler",
    "serialize",
    "show",
    "Shuffle",
    "ShuffleDataset",
    "SkipDataset",
    "SogouNewsDataset",
    "SST2Dataset",
    "SubsetRandomSampler",
    "SubsetSampler",
    "SyncWaitDataset",
    "TakeDataset",
    "text",
    "TextFileDataset",
    "transforms",
    "TupleIterator",
    "vision",
    "WaitedDSCallback",
    "WeightedRandomSampler",
    "WikiTextDataset",
    "YahooAnswersDataset",
    "YelpReviewDataset",
    "zip",
    "ZipDataset",
]


# Base classes under MindSpore's names (for isinstance checks): sources that read row i on demand are mappable.
MappableDataset = SampledSource
SourceDataset = SampledSource
TextBaseDataset = VisionBaseDataset = AudioBaseDataset = UnionBaseDataset = Dataset
PaddedBatchDataset = BatchDataset  # padded_batch builds a BatchDataset with pad_info
BucketBatchByLengthDataset = BucketBatchDataset


def sync_wait_for_dataset(rank_id, rank_size, current_epoch, obs_runtime=None):
    """MindSpore's barrier for OBSMindDataset downloads (Huawei Cloud OBS); not available in Kiln."""
    raise NotImplementedError(
        "sync_wait_for_dataset synchronizes OBSMindDataset downloads from Huawei Cloud OBS, which Kiln does not "
        "support; download the MindRecord files and read them with MindDataset."
    )


class OBSMindDataset:
    """MindSpore's MindDataset streamed from Huawei Cloud OBS; not available in Kiln."""

    def __init__(self, *args, **kwargs) -> None:
        raise NotImplementedError(
            "OBSMindDataset reads from Huawei Cloud OBS, which Kiln does not support; download the MindRecord files "
            "and read them with MindDataset."
        )
