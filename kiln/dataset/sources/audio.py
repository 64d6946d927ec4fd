"""Audio sources of PCM WAV files: YesNo, LJSpeech, SpeechCommands, CMUArctic and LibriTTS ("waveform" float32
(channels, samples) and "sample_rate" int32 first, as MindSpore 2.10)."""

from __future__ import annotations

import os
import wave

import numpy as np

from kiln.dataset.sources.base import SampledSource, check_dir, check_usage, require_file


def read_wav(path: str) -> tuple[np.ndarray, int]:
    """A PCM WAV file as float32 (channels, samples) and its sample rate; samples are divided by the largest
    positive value of their width (32767 for 16 bits), as MindSpore does."""
    with wave.open(path, "rb") as w:
        channels, width, rate, n = w.getnchannels(), w.getsampwidth(), w.getframerate(), w.getnframes()
        raw = w.readframes(n)
    if width == 1:
        data = (np.frombuffer(raw, dtype=np.uint8).astype(np.float32) - 128) / 127
    elif width == 2:
        data = (np.frombuffer(raw, dtype="<i2").astype(np.float64) / 32767).astype(np.float32)
    elif width == 4:
        data = (np.frombuffer(raw, dtype="<i4").astype(np.float64) / 2147483647).astype(np.float32)
    else:
        raise RuntimeError(f"read_wav: {path!r} has {8 * width}-bit samples; 8, 16 and 32-bit PCM are supported.")
    return np.ascontiguousarray(data.reshape(-1, channels).T), rate


class YesNoDataset(SampledSource):
    """YesNo recordings (*.wav named by their 8 labels): "waveform" float32 (1, n), "sample_rate" int32,
    "label" int32 (8,).

    Args:
        dataset_dir: the folder holding the .wav files.
        num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache: as for MnistDataset.
    """

    def _open(self, dataset_dir) -> None:
        root = check_dir(dataset_dir, "YesNoDataset")
        self._files = sorted(os.path.join(root, f) for f in os.listdir(root) if f.lower().endswith(".wav"))

    def get_col_names(self) -> list[str]:
        return ["waveform", "sample_rate", "label"]

    def _num_rows(self) -> int:
        return len(self._files)

    def _read(self, index: int) -> tuple:
        path = self._files[index]
        data, rate = read_wav(path)
        labels = [int(x) for x in os.path.splitext(os.path.basename(path))[0].split("_")]
        return data, np.array(rate, dtype=np.int32), np.array(labels, dtype=np.int32)


class LJSpeechDataset(SampledSource):
    """LJSpeech: "waveform" float32 (1, n), "sample_rate" int32, "transcription" and "normalized_transcription" str.

    Args:
        dataset_dir: the folder holding metadata.csv and wavs/.
        num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache: as for MnistDataset.
    """

    def _open(self, dataset_dir) -> None:
        root = check_dir(dataset_dir, "LJSpeechDataset")
        meta = os.path.join(root, "metadata.csv")
        require_file(meta, "LJSpeech metadata")
        with open(meta, encoding="utf-8") as f:
            self._items = [ln.rstrip("\n").split("|") for ln in f if ln.strip()]
        self._root = root

    def get_col_names(self) -> list[str]:
        return ["waveform", "sample_rate", "transcription", "normalized_transcription"]

    def _num_rows(self) -> int:
        return len(self._items)

    def _read(self, index: int) -> tuple:
        name, text, norm = (self._items[index] + ["", ""])[:3]
        data, rate = read_wav(os.path.join(self._root, "wavs", name + ".wav"))
        return data, np.array(rate, dtype=np.int32), np.array(text), np.array(norm)


class _WavFiles(SampledSource):
    """A mappable source over a list of items, each read from one WAV file."""

    _items: list  # the rows' items, set by `_open`

    def _num_rows(self) -> int:
        return len(self._items)


class SpeechCommandsDataset(_WavFiles):
    """Speech Commands: "waveform" float32 (1, n), "sample_rate" int32, "label" str, "speaker_id" str,
    "utterance_number" int32; files label/speaker_nohash_N.wav (_background_noise_ excluded).

    Args:
        dataset_dir: the folder holding the label folders, testing_list.txt and validation_list.txt.
        usage: "train", "valid", "test" or "all" (None: all).
        num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache: as for MnistDataset.
    """

    def _open(self, dataset_dir, usage=None) -> None:
        root = check_dir(dataset_dir, "SpeechCommandsDataset")
        usage = check_usage(usage, ("train", "valid", "test", "all"), "SpeechCommandsDataset")
        files = []
        for label in sorted(os.listdir(root)):
            folder = os.path.join(root, label)
            if label == "_background_noise_" or not os.path.isdir(folder):
                continue
            files += [f"{label}/{f}" for f in sorted(os.listdir(folder)) if f.lower().endswith(".wav")]

        def listed(name: str) -> set:
            path = os.path.join(root, name)
            if not os.path.isfile(path):
                return set()
            with open(path, encoding="utf-8") as f:
                return {ln.strip() for ln in f if ln.strip()}

        test, valid = listed("testing_list.txt"), listed("validation_list.txt")
        if usage == "test":
            files = [f for f in files if f in test]
        elif usage == "valid":
            files = [f for f in files if f in valid]
        elif usage == "train":
            files = [f for f in files if f not in test and f not in valid]
        self._root, self._items = root, files

    def get_col_names(self) -> list[str]:
        return ["waveform", "sample_rate", "label", "speaker_id", "utterance_number"]

    def _read(self, index: int) -> tuple:
        rel = self._items[index]
        label, name = rel.split("/")
        speaker, _, number = os.path.splitext(name)[0].split("_")
        data, rate = read_wav(os.path.join(self._root, rel))
        return data, np.array(rate, np.int32), np.array(label), np.array(speaker), np.array(int(number), np.int32)


class CMUArcticDataset(_WavFiles):
    """CMU Arctic: "waveform" float32 (1, n), "sample_rate" uint32, "transcript" str, "utterance_id" str.

    Args:
        dataset_dir: the folder holding cmu_us_<name>_arctic/.
        name: which of the 18 Arctic voices to read, by its three-letter code (listed in `_NAMES`);
            None reads "aew".
        num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache: as for MnistDataset.
    """

    _NAMES = ("aew", "ahw", "aup", "awb", "axb", "bdl", "clb", "eey", "fem", "gka", "jmk", "ksp", "ljm", "lnh",
              "rms", "rxr", "slp", "slt")  # fmt: skip

    def _open(self, dataset_dir, name=None) -> None:
        root = check_dir(dataset_dir, "CMUArcticDataset")
        name = check_usage(name or "aew", self._NAMES, "CMUArcticDataset")
        self._base = os.path.join(root, f"cmu_us_{name}_arctic")
        meta = os.path.join(self._base, "etc", "txt.done.data")
        require_file(meta, "CMU Arctic transcript file")
        items = []
        with open(meta, encoding="utf-8") as f:
            for line in f:
                line = line.strip()
                if not line.startswith("("):
                    continue
                body = line.strip("() ")
                utt, _, text = body.partition(" ")
                items.append((utt, text.strip().strip('"')))
        self._items = items

    def get_col_names(self) -> list[str]:
        return ["waveform", "sample_rate", "transcript", "utterance_id"]

    def _read(self, index: int) -> tuple:
        utt, text = self._items[index]
        data, rate = read_wav(os.path.join(self._base, "wav", f"{utt}.wav"))
        return data, np.array(rate, np.uint32), np.array(text), np.array(utt.split("_", 1)[1])


class LibriTTSDataset(_WavFiles):
    """LibriTTS: "waveform" float32 (1, n), "sample_rate" uint32, "original_text", "normalized_text" str,
    "speaker_id", "chapter_id" uint32, "utterance_id" str.

    Args:
        dataset_dir: the folder holding the usage folders (train-clean-100/<speaker>/<chapter>/...).
        usage: one of the seven LibriTTS subsets (named in `_USAGES`, e.g. "dev-clean"), or "all";
            None reads all of them.
        num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache: as for MnistDataset.
    """

    _USAGES = ("dev-clean", "dev-other", "test-clean", "test-other", "train-clean-100", "train-clean-360",
               "train-other-500")  # fmt: skip

    def _open(self, dataset_dir, usage=None) -> None:
        root = check_dir(dataset_dir, "LibriTTSDataset")
        usage = check_usage(usage, (*self._USAGES, "all"), "LibriTTSDataset")
        parts = [u for u in self._USAGES if os.path.isdir(os.path.join(root, u))] if usage == "all" else [usage]
        items = []
        for part in parts:
            base = os.path.join(root, part)
            for speaker in sorted(os.listdir(base)):
                for chapter in sorted(os.listdir(os.path.join(base, speaker))):
                    folder = os.path.join(base, speaker, chapter)
                    tsv = os.path.join(folder, f"{speaker}_{chapter}.trans.tsv")
                    if not os.path.isfile(tsv):
                        continue
                    with open(tsv, encoding="utf-8") as f:
                        for line in f:
                            fields = line.rstrip("\r\n").split("\t")
                            if len(fields) >= 3:
                                items.append((folder, fields[0], fields[1], fields[2], int(speaker), int(chapter)))
        self._items = items

    def get_col_names(self) -> list[str]:
        return ["waveform", "sample_rate", "original_text", "normalized_text", "speaker_id", "chapter_id",
                "utterance_id"]  # fmt: skip

    def _read(self, index: int) -> tuple:
        folder, utt, original, normalized, speaker, chapter = self._items[index]
        data, rate = read_wav(os.path.join(folder, f"{utt}.wav"))
        return (data, np.array(rate, np.uint32), np.array(original), np.array(normalized),
                np.array(speaker, np.uint32), np.array(chapter, np.uint32), np.array(utt))  # fmt: skip
