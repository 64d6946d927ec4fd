"""WAV sources (YesNo, LJSpeech, SpeechCommands, CMUArctic, LibriTTS) on small files written here (columns,
dtypes and value scaling checked against MindSpore 2.10 on its own test data)."""

import os

import numpy as np

import kiln.dataset as ds
from tests.dataset.helpers import write_wav


def _rows(d):
    return list(d.create_tuple_iterator(num_epochs=1, output_numpy=True))


def test_yesno_and_ljspeech(tmp_path):
    write_wav(tmp_path / "0_1_1_0_0_1_1_0.wav", [0, 32767, -32767, 16384])
    rows = _rows(ds.YesNoDataset(str(tmp_path), shuffle=False))
    wave_, rate, label = rows[0]
    assert wave_.shape == (1, 4) and wave_.dtype == np.float32 and rate == 8000
    np.testing.assert_allclose(wave_[0], [0, 1, -1, 16384 / 32767], rtol=1e-6)  # divided by 32767
    assert label.tolist() == [0, 1, 1, 0, 0, 1, 1, 0]
    lj = tmp_path / "lj"
    os.makedirs(lj / "wavs")
    write_wav(lj / "wavs" / "x1.wav", [1, 2, 3], 22050)
    (lj / "metadata.csv").write_text("x1|Hello 1|Hello one\n")
    row = _rows(ds.LJSpeechDataset(str(lj)))[0]
    assert int(row[1]) == 22050 and str(row[2]) == "Hello 1" and str(row[3]) == "Hello one"


def test_speech_commands(tmp_path):
    for rel in ("bob/ab12_nohash_0.wav", "bob/cd34_nohash_2.wav", "yes/ef56_nohash_1.wav"):
        os.makedirs(tmp_path / os.path.dirname(rel), exist_ok=True)
        write_wav(tmp_path / rel, [1, 2, 3], 16000)
    os.makedirs(tmp_path / "_background_noise_")
    write_wav(tmp_path / "_background_noise_" / "noise.wav", [0])
    (tmp_path / "testing_list.txt").write_text("bob/cd34_nohash_2.wav\n")
    (tmp_path / "validation_list.txt").write_text("yes/ef56_nohash_1.wav\n")
    rows = _rows(ds.SpeechCommandsDataset(str(tmp_path), shuffle=False))
    assert [(str(r[2]), str(r[3]), int(r[4])) for r in rows] == [
        ("bob", "ab12", 0),
        ("bob", "cd34", 2),
        ("yes", "ef56", 1),
    ]
    assert rows[0][1].dtype == np.int32 and rows[0][4].dtype == np.int32
    assert [str(r[3]) for r in _rows(ds.SpeechCommandsDataset(str(tmp_path), "train", shuffle=False))] == ["ab12"]
    assert [str(r[3]) for r in _rows(ds.SpeechCommandsDataset(str(tmp_path), "test", shuffle=False))] == ["cd34"]


def test_cmu_arctic_and_libritts(tmp_path):
    base = tmp_path / "cmu_us_aew_arctic"
    os.makedirs(base / "etc")
    os.makedirs(base / "wav")
    (base / "etc" / "txt.done.data").write_text('( arctic_a0001 "Dog." )\n( arctic_b0002 "A cat, here." )\n')
    write_wav(base / "wav" / "arctic_a0001.wav", [5])
    write_wav(base / "wav" / "arctic_b0002.wav", [6, 7])
    rows = _rows(ds.CMUArcticDataset(str(tmp_path), shuffle=False))
    assert [(str(r[2]), str(r[3])) for r in rows] == [("Dog.", "a0001"), ("A cat, here.", "b0002")]
    assert rows[0][1].dtype == np.uint32
    chapter = tmp_path / "libri" / "train-clean-100" / "19" / "198"
    os.makedirs(chapter)
    (chapter / "19_198.trans.tsv").write_text("19_198_000001_000000\thi there\tHi there.\n")
    write_wav(chapter / "19_198_000001_000000.wav", [1, 2], 24000)
    row = _rows(ds.LibriTTSDataset(str(tmp_path / "libri")))[0]
    assert (str(row[2]), str(row[3]), int(row[4]), int(row[5]), str(row[6])) == (
        "hi there",
        "Hi there.",
        19,
        198,
        "19_198_000001_000000",
    )
    assert row[4].dtype == np.uint32
