"""The base of every source: `SampledSource` (row `i` on demand, with MindSpore's sampling arguments),
`RowFilesSource` (rows of a list of files, MindSpore's non-mappable sharding) and the argument checks
the sources share (dataset folders, files, `usage`, column names)."""

from __future__ import annotations

import copy
import glob
import inspect
import math
import os
from collections.abc import Sequence
from enum import StrEnum

import numpy as np

from kiln.dataset import config
from kiln.dataset.engine import Dataset
from kiln.dataset.iterators import Run, ordered_map
from kiln.dataset.sampler import SampleContext, SubsetRandomSampler, SubsetSampler, as_sampler, resolve_sampler

# The parameters MindSpore's sources share (the tail of their signatures), with their usual defaults and types.
# `cache` is accepted and not read: a DatasetCache server only saves reading rows again, and Kiln reads them
# again (tools/unused_params_allowlist.txt says so); the others are read by SampledSource.
SHARED_PARAMETERS: dict[str, tuple[object, str]] = {
    "num_samples": (None, "int | None"),
    "num_parallel_workers": (None, "int | None"),
    "shuffle": (None, "bool | Shuffle | None"),
    "sampler": (None, "Sampler | Sequence[int] | None"),
    "num_shards": (None, "int | None"),
    "shard_id": (None, "int | None"),
    "cache": (None, "DatasetCache | None"),
    "decrypt": (None, "Callable[[str], bytes] | None"),
}

# The shared parameters of MindSpore's mappable sources, in their order (non-mappable ones have no sampler).
MAPPABLE_SHARED = ("num_samples", "num_parallel_workers", "shuffle", "sampler", "num_shards", "shard_id", "cache")
FILES_SHARED = ("num_samples", "num_parallel_workers", "shuffle", "num_shards", "shard_id", "cache")


def _source_signature(cls: type) -> tuple[inspect.Signature, list[str]]:
    """The public signature of a source built from `_open`: its own parameters (those of `_open`), then the shared
    ones of `cls._SHARED`; an own parameter named in `_AFTER` follows the parameter given there instead (MindSpore
    puts `decode` after `shuffle`, for one), and a class whose order fits neither names it whole in `_ORDER`. The
    shared defaults are overridden by `_DEFAULTS` along the class's bases.

    Returns:
        The signature (with `self`) and the names of the own parameters.
    """
    opened = list(inspect.signature(cls._open).parameters.values())
    own = {p.name: p for p in opened[1:]}
    defaults: dict = {}
    for klass in reversed(cls.__mro__):
        defaults.update(klass.__dict__.get("_DEFAULTS", {}))
    order = cls.__dict__.get("_ORDER")
    if order is None:
        order = [n for n in own if n not in cls._AFTER] + list(cls._SHARED)
        for name, anchor in cls._AFTER.items():
            if name not in own or anchor not in order:
                raise TypeError(f"{cls.__name__}._AFTER: {name!r} after {anchor!r} names no parameter of the source.")
            order.insert(order.index(anchor) + 1, name)
    unknown = [n for n in order if n not in own and n not in SHARED_PARAMETERS]
    missing = [n for n in own if n not in order]
    if unknown or missing:
        raise TypeError(f"{cls.__name__}._ORDER: unknown names {unknown}, own parameters left out {missing}.")
    params = [opened[0]]
    for name in order:
        if name in own:
            params.append(own[name])
        else:
            default, annotation = SHARED_PARAMETERS[name]
            kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
            params.append(inspect.Parameter(name, kind, default=defaults.get(name, default), annotation=annotation))
    return inspect.Signature(params, return_annotation="None"), list(own)


def _source_init(cls: type):
    """An `__init__` for `cls` with its full MindSpore signature (what `inspect.signature` shows) that binds the
    arguments and hands them to `_start` split into the source's own and the shared ones."""
    signature, own_names = _source_signature(cls)

    def __init__(self, *args, **kwargs) -> None:
        try:
            bound = signature.bind(self, *args, **kwargs)
        except TypeError as exc:
            raise TypeError(f"{cls.__name__}: {exc}") from None
        bound.apply_defaults()
        values = bound.arguments
        shared = {n: v for n, v in values.items() if n in SHARED_PARAMETERS and n not in own_names}
        self._start({n: values[n] for n in own_names}, shared)

    __init__.__signature__ = signature
    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    __init__.__module__ = cls.__module__
    __init__.__doc__ = f"Open a {cls.__name__}; the arguments are those of the class docstring."
    return __init__


class SampledSource(Dataset):
    """A source that reads row `i` on demand, with MindSpore's sampling arguments.

    Args:
        num_samples: rows per epoch at most (after sharding); all when None.
        shuffle: read rows in a random order, new every epoch; None means True.
        num_shards: split the rows into this many shards ...
        shard_id: ... and read this one; row `i` of the shuffled order goes to shard `i % num_shards`.
            Sharded shuffles use the dataset seed (`config.get_seed()`), so every shard agrees on the order.
        num_parallel_workers: threads reading rows (worth it when reading is slow I/O).
        sampler: a sampler (`SequentialSampler`, `RandomSampler`, `DistributedSampler`, `SubsetSampler`,
            `SubsetRandomSampler`, `WeightedRandomSampler`, `PKSampler`, a user `Sampler`) or a list of
            row indices, instead of shuffle/num_shards/shard_id/num_samples.

    A public source defines `_open(self, <its own parameters>)` instead of `__init__`: the class gets an `__init__`
    whose signature is MindSpore's (own parameters, then the shared ones of `_SHARED`, or the order `_ORDER`
    names) and that checks the shared arguments here before `_open` runs (`_start`).
    """

    _reads_by_index = True

    # The signature of a source built from `_open` (see `_source_signature`):
    _SHARED: tuple[str, ...] = MAPPABLE_SHARED
    _AFTER: dict[str, str] = {}  # own parameter -> the parameter it follows, where MindSpore mixes them
    _ORDER: tuple[str, ...] | None = None  # the whole order, where `_AFTER` cannot say it (read from the class only)
    _DEFAULTS: dict = {}  # shared parameters whose default differs from SHARED_PARAMETERS'
    _DECRYPTS = False  # whether `decrypt` applies: the source reads one image file per image

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        if "_open" in cls.__dict__ and "__init__" not in cls.__dict__:
            cls.__init__ = _source_init(cls)

    def __init__(
        self, num_samples=None, shuffle=None, num_shards=None, shard_id=None, num_parallel_workers=None, sampler=None
    ):
        super().__init__()
        self.sampler = resolve_sampler(type(self).__name__, sampler, num_samples, shuffle, num_shards, shard_id)
        workers = 1 if num_parallel_workers is None else num_parallel_workers
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ValueError(f"num_parallel_workers must be a positive int, but got {num_parallel_workers!r}.")
        self._read_workers = workers

    def _init_sampling(self, shared: dict) -> None:
        """Check and keep the shared arguments: sampling, workers and `decrypt` (`cache` changes no row)."""
        decrypt = shared.get("decrypt")
        if decrypt is not None:
            if not self._DECRYPTS:
                raise NotImplementedError(
                    f"{type(self).__name__}: decrypt= decrypts image files as they are read, and this source keeps "
                    "its images in archive files; decrypt the files before reading them."
                )
            if not callable(decrypt):
                raise TypeError(f"{type(self).__name__}: decrypt must be a callable, but got {type(decrypt).__name__}.")
        self._decrypt = decrypt
        SampledSource.__init__(
            self,
            shared.get("num_samples"),
            shared.get("shuffle"),
            shared.get("num_shards"),
            shared.get("shard_id"),
            shared.get("num_parallel_workers"),
            shared.get("sampler"),
        )

    def _start(self, own: dict, shared: dict) -> None:
        """The shared arguments are checked first, then the source opens its data with its own arguments."""
        self._init_sampling(shared)
        self._open(**own)

    def _open(self, *args, **kwargs) -> None:
        """Check the source's own arguments and index its data (what a public source defines)."""
        raise NotImplementedError

    def _check_choice(self, name: str, value, choices: Sequence):
        """`value` when it is one of `choices`, else ValueError naming this source, its argument `name` and the
        choices."""
        if value not in choices:
            listed = ", ".join(repr(c) for c in choices[:-1]) + f" or {choices[-1]!r}"
            raise ValueError(f"{type(self).__name__}: {name} must be {listed}, but got {value!r}.")
        return value

    def _image_file(self, path: str) -> np.ndarray:
        """The bytes of an image file as a writable 1-D uint8 array, through `decrypt(path)` when one was given."""
        decrypt = getattr(self, "_decrypt", None)
        if decrypt is None:
            with open(path, "rb") as f:
                data = f.read()
        else:
            data = decrypt(path)
            if not isinstance(data, bytes | bytearray | memoryview | np.ndarray):
                raise TypeError(
                    f"{type(self).__name__}: decrypt({path!r}) must return bytes, not {type(data).__name__}."
                )
        return np.frombuffer(bytearray(data), dtype=np.uint8)

    @property
    def num_samples(self):
        return self.sampler.get_num_samples()

    def _num_rows(self) -> int:
        raise NotImplementedError

    def _read(self, index: int) -> tuple:
        raise NotImplementedError

    def _labels(self) -> np.ndarray:
        """One label per row, for PKSampler: the "label" column (subclasses may know it without reading)."""
        names = self.get_col_names()
        column = getattr(self.sampler, "class_column", "label")
        if column not in names:
            raise RuntimeError(f"{type(self).__name__}: PKSampler needs a column {column!r}; the columns are {names}.")
        k = names.index(column)
        return np.asarray([np.asarray(self._read(i)[k]).reshape(-1)[0] for i in range(self._num_rows())])

    def _static_size(self):
        return self.sampler.size(self._num_rows())

    def _indices(self, run, epoch) -> np.ndarray:
        # Shards (possibly in other processes) must draw the same permutation: a fixed seed, as MindSpore.
        seed = config.get_seed() if self.sampler.is_sharded() else run.seed
        return self.sampler.indices(self._num_rows(), SampleContext(seed, epoch, self._labels))

    def _rows(self, run, epoch):
        indices = self._indices(run, epoch)
        yield from ordered_map(lambda i: self._read(int(i)), indices, self._read_workers)

    def _split_by_sampler(self, sizes: list[int], perm: np.ndarray, randomize: bool) -> tuple:
        """`split` of a source: each part is a copy reading its rows through a subset sampler."""
        base = self._indices(Run(self, config.get_seed()), (0,))
        out, start = [], 0
        for n in sizes:
            part = copy.copy(self)
            picked = base[perm[start : start + n]] if not randomize else base[np.sort(perm[start : start + n])]
            cls = SubsetRandomSampler if randomize else SubsetSampler
            part.sampler = cls(picked.tolist())
            part._counted_size = None
            out.append(part)
            start += n
        return tuple(out)

    def use_sampler(self, new_sampler) -> None:
        """Read with `new_sampler` from now on (it replaces the current sampler).

        Args:
            new_sampler: a sampler or a list of row indices.
        """
        self.sampler = as_sampler(new_sampler)
        self._counted_size = None

    def add_sampler(self, new_sampler) -> None:
        """Put `new_sampler` on top of the current sampler (the current one becomes its child).

        Args:
            new_sampler: a sampler.
        """
        new = as_sampler(new_sampler)
        new.add_child(self.sampler)
        self.sampler = new
        self._counted_size = None

    def is_shuffled(self) -> bool:
        return self.sampler.is_shuffled() or super().is_shuffled()

    def is_sharded(self) -> bool:
        return self.sampler.is_sharded() or super().is_sharded()


def require_file(path: str, what: str) -> None:
    """FileNotFoundError naming `path` when it is not a file."""
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{what} not found: {path!r} does not exist or is not a file.")


def check_dir(dataset_dir, cls: str) -> str:
    if not isinstance(dataset_dir, str | os.PathLike):
        raise TypeError(f"{cls}: dataset_dir must be a path, but got {type(dataset_dir).__name__}.")
    path = os.fspath(dataset_dir)
    if not os.path.isdir(path):
        raise FileNotFoundError(f"{cls}: dataset_dir {path!r} does not exist or is not a directory.")
    return path


def require_dir(dataset_dir, what: str) -> str:
    path = os.fspath(dataset_dir)
    if not os.path.isdir(path):
        raise ValueError(f"{what}: dataset_dir {path!r} does not exist or is not a directory.")
    return path


def check_usage(usage, allowed: Sequence[str], what: str) -> str:
    usage = "all" if usage is None else usage
    if usage not in allowed:
        raise ValueError(f"{what}: usage must be one of {list(allowed)}, but got {usage!r}.")
    return usage


class Shuffle(StrEnum):
    """How non-mappable sources shuffle: GLOBAL (all rows), FILES (file order), INFILE (rows in files)."""

    GLOBAL = "global"
    FILES = "files"
    INFILE = "infile"


def file_list(dataset_files, what: str) -> list[str]:
    if isinstance(dataset_files, str | os.PathLike):
        pattern = os.fspath(dataset_files)
        files = sorted(glob.glob(pattern)) if any(ch in pattern for ch in "*?[") else [pattern]
    else:
        files = [os.fspath(f) for f in dataset_files]
    if not files:
        raise ValueError(f"{what}: dataset_files is empty.")
    for f in files:
        if not os.path.isfile(f):
            raise ValueError(f"{what}: the file {f!r} does not exist or is not a file.")
    return sorted(files)


class RowFilesSource(SampledSource):
    """Rows read from a list of files, with MindSpore's non-mappable sharding and shuffling."""

    _SORT_FILES = True  # MindSpore reads most multi-file sources in name order
    _SHARED = FILES_SHARED
    _DEFAULTS = {"shuffle": Shuffle.GLOBAL}

    def __init__(self, files, num_samples, shuffle, num_shards, shard_id, num_parallel_workers) -> None:
        if isinstance(shuffle, Shuffle):
            shuffle = True
        super().__init__(num_samples, shuffle, num_shards, shard_id, num_parallel_workers)
        self._files = sorted(files) if self._SORT_FILES else list(files)
        self._shard = (num_shards, shard_id)
        self._cache: list[tuple] | None = None

    def _start(self, own: dict, shared: dict) -> None:
        """The source's own arguments are checked first (`_open` returns the files to read), then the shared ones."""
        files = self._open(**own)
        num_samples = shared.get("num_samples")
        RowFilesSource.__init__(
            self,
            files,
            self._default_num_samples() if num_samples is None else num_samples,
            shared.get("shuffle"),
            shared.get("num_shards"),
            shared.get("shard_id"),
            shared.get("num_parallel_workers"),
        )

    def _default_num_samples(self) -> int | None:
        """The rows per epoch when `num_samples` is None, known once `_open` ran: all of them (None) here."""
        return None

    def _read_file(self, path: str) -> list[tuple]:
        raise NotImplementedError

    def _all_rows(self) -> list[tuple]:
        if self._cache is None:
            num_shards, shard_id = self._shard
            files = self._files
            if num_shards is not None and len(files) >= num_shards:
                files = files[shard_id::num_shards]
            rows = [row for f in files for row in self._read_file(f)]
            if num_shards is not None and len(self._files) < num_shards and rows:
                per = math.ceil(len(rows) / num_shards)
                rows = [rows[(shard_id * per + j) % len(rows)] for j in range(per)]
            self._cache = rows
        return self._cache

    def _num_rows(self) -> int:
        return len(self._all_rows())

    def _read(self, index: int) -> tuple:
        return self._all_rows()[index]

    def _static_size(self):
        n = self._num_rows()
        return n if self.num_samples is None else min(n, self.num_samples)

    def _indices(self, run, epoch):
        n = self._num_rows()
        count = self._static_size()
        if self.sampler.is_shuffled():
            seed = config.get_seed() if self._shard[0] is not None else run.seed
            return np.random.default_rng([seed, 0x7E7, *epoch]).permutation(n)[:count]
        return np.arange(count)

    def is_sharded(self) -> bool:
        return self._shard[0] is not None


def loadmat(path: str) -> dict:
    """The variables of a MATLAB .mat file (SVHN, Flowers102, SBD), or FileNotFoundError naming `path`."""
    require_file(path, "MATLAB file")
    import scipy.io  # noqa: PLC0415  (optional here: about 0.6 s to import, and only the .mat sources need it)

    return scipy.io.loadmat(path)
