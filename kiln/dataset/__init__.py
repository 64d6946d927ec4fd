"""Data pipelines with MindSpore's `mindspore.dataset` API, in NumPy.

Sources (MnistDataset, Cifar10Dataset, ImageFolderDataset, GeneratorDataset,
NumpySlicesDataset) are chained with lazy methods (map, batch, shuffle, ...)
and read through iterators that prefetch on a background thread.
"""

from kiln import context  # noqa: F401 (MindSpore's dataset package holds it; zoo scripts import it from there)
from kiln.dataset import audio, config, text, transforms, vision
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
from kiln.dataset.detection_sources import CocoDataset, DIV2KDataset, KITTIDataset, VOCDataset, WIDERFaceDataset
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
from kiln.dataset.image_sources import (
    Caltech256Dataset,
    Cifar10Dataset,
    Cifar100Dataset,
    EMnistDataset,
    FakeImageDataset,
    FashionMnistDataset,
    ImageFolderDataset,
    KMnistDataset,
    ManifestDataset,
    MnistDataset,
    SemeionDataset,
)
from kiln.dataset.iterators import DictIterator, TupleIterator
from kiln.dataset.mind_source import MindDataset
from kiln.dataset.misc import DatasetCache, DSCallback, PaddedDataset, RandomDataset, Schema, WaitedDSCallback
from kiln.dataset.more_sources import (
    Caltech101Dataset,
    CelebADataset,
    CMUArcticDataset,
    CoNLL2000Dataset,
    FlickrDataset,
    Flowers102Dataset,
    Food101Dataset,
    LFWDataset,
    LibriTTSDataset,
    LJSpeechDataset,
    Multi30kDataset,
    OmniglotDataset,
    PhotoTourDataset,
    Places365Dataset,
    QMnistDataset,
    RenderedSST2Dataset,
    SBDataset,
    SpeechCommandsDataset,
    SQuADDataset,
    STL10Dataset,
    SUN397Dataset,
    SVHNDataset,
    UDPOSDataset,
    USPSDataset,
    YesNoDataset,
)
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
from kiln.dataset.serialization import compare, deserialize, serialize, show
from kiln.dataset.sources import GeneratorDataset, NumpySlicesDataset, SampledSource
from kiln.dataset.text_sources import (
    AGNewsDataset,
    AmazonReviewDataset,
    CLUEDataset,
    CSVDataset,
    DBpediaDataset,
    EnWik9Dataset,
    IMDBDataset,
    PennTreebankDataset,
    Shuffle,
    SogouNewsDataset,
    SST2Dataset,
    TextFileDataset,
    WikiTextDataset,
    YahooAnswersDataset,
    YelpReviewDataset,
)
from kiln.dataset.tfrecord import TFRecordDataset
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
