"""Eager cases of `dataset.transforms`, `dataset.text` and `dataset.audio` ops, shared by Kiln's tests and the
MindSpore golden script (tests/dataset/make_goldens_ops.py).

Each case is `name -> (build, inputs)`: `build(m)` makes the op from a namespace `m` holding `T` (transforms),
`text`, `audio` and `ms` (the root package) of either framework; the op is called with `inputs`. The golden is the
output (a tuple becomes name#0, name#1, ...) or the name of the exception type raised.
"""

import numpy as np

_rs = np.random.RandomState(7)
WAVE = _rs.uniform(-1, 1, (2, 64)).astype(np.float32)
WAVE64 = _rs.uniform(-1, 1, (1, 40)).astype(np.float64)
SPEC = _rs.uniform(0, 3, (1, 9, 12)).astype(np.float32)
CPLX = _rs.uniform(-2, 2, (2, 5, 7, 2)).astype(np.float32)

TRANSFORMS = {
    "fill_float": (lambda m: m.T.Fill(3), (np.array([1.5, 2.0]),)),
    "fill_int_trunc": (lambda m: m.T.Fill(3.7), (np.array([1, 2]),)),
    "fill_str": (lambda m: m.T.Fill("a"), (np.array(["x", "y"]),)),
    "fill_mismatch": (lambda m: m.T.Fill(3), (np.array(["x", "y"]),)),
    "fill_scalar": (lambda m: m.T.Fill(3), (np.array(5),)),
    "mask_ge": (lambda m: m.T.Mask(m.T.Relational.GE, 2), (np.array([1, 2, 3]),)),
    "mask_eq_int32": (lambda m: m.T.Mask(m.T.Relational.EQ, 2, m.ms.int32), (np.array([1, 2, 3]),)),
    "mask_str": (lambda m: m.T.Mask(m.T.Relational.NE, "b"), (np.array(["a", "b"]),)),
    "mask_cast_const": (lambda m: m.T.Mask(m.T.Relational.EQ, 2.5), (np.array([1, 2, 3]),)),
    "mask_lt_f32": (lambda m: m.T.Mask(m.T.Relational.LT, 2, m.ms.float32), (np.array([1, 2, 3]),)),
    "mask_mismatch": (lambda m: m.T.Mask(m.T.Relational.EQ, "b"), (np.array([1, 2]),)),
    "padend": (lambda m: m.T.PadEnd([5], 0), (np.array([1, 2, 3]),)),
    "padend_2d": (lambda m: m.T.PadEnd([2, 3]), (np.array([[1], [2]]),)),
    "padend_cut": (lambda m: m.T.PadEnd([2]), (np.array([1, 2, 3]),)),
    "padend_str": (lambda m: m.T.PadEnd([4], "z"), (np.array(["a"]),)),
    "padend_str_default": (lambda m: m.T.PadEnd([4]), (np.array(["a"]),)),
    "padend_rank": (lambda m: m.T.PadEnd([4]), (np.array([[1]]),)),
    "slice_slice": (lambda m: m.T.Slice(slice(1, 3)), (np.array([1, 2, 3, 4]),)),
    "slice_list": (lambda m: m.T.Slice([0, 2]), (np.array([1, 2, 3, 4]),)),
    "slice_int": (lambda m: m.T.Slice(1), (np.array([1, 2, 3, 4]),)),
    "slice_neg": (lambda m: m.T.Slice(-1), (np.array([1, 2, 3, 4]),)),
    "slice_none": (lambda m: m.T.Slice(None), (np.array([1, 2, 3, 4]),)),
    "slice_ellipsis": (lambda m: m.T.Slice(Ellipsis, 1), (np.array([[1, 2], [3, 4]]),)),
    "slice_mixed": (lambda m: m.T.Slice(0, [1]), (np.array([[1, 2], [3, 4]]),)),
    "slice_lists": (lambda m: m.T.Slice([1, 0], [1, 0]), (np.array([[1, 2], [3, 4]]),)),
    "slice_oob": (lambda m: m.T.Slice(5), (np.array([1, 2]),)),
    "slice_rank": (lambda m: m.T.Slice(slice(0, 1), slice(0, 1)), (np.array([1, 2]),)),
    "unique_2d": (lambda m: m.T.Unique(), (np.array([[5, 3], [5, 1]]),)),
    "unique_float": (lambda m: m.T.Unique(), (np.array([[1.5, 1.5], [2, 3]]),)),
    "unique_str": (lambda m: m.T.Unique(), (np.array([["b", "a"]]),)),
    "duplicate": (lambda m: m.T.Duplicate(), (np.array([1, 2]),)),
    "duplicate_two": (lambda m: m.T.Duplicate(), (np.array([1]), np.array([2]))),
    "concat_mismatch": (lambda m: m.T.Concatenate(0, np.array([1])), (np.array([2.0]),)),
    "concat_both": (lambda m: m.T.Concatenate(0, np.array([1.0]), np.array([7.0])), (np.array([2.0]),)),
    "concat_str": (lambda m: m.T.Concatenate(0, np.array(["a"])), (np.array(["b"]),)),
    "concat_cols": (lambda m: m.T.Concatenate(-1, np.array([0])), (np.array([1, 2]), np.array([3]))),
    "typecast": (lambda m: m.T.TypeCast(m.ms.float16), (np.array([1, 2]),)),
    "onehot": (lambda m: m.T.OneHot(3), (np.array([1, 2]),)),
    "compose": (lambda m: m.T.Compose([m.T.Duplicate(), m.T.Concatenate()]), (np.array([1, 2]),)),
    "random_apply_1": (lambda m: m.T.RandomApply([m.T.Fill(0)], prob=1.0), (np.array([1, 2]),)),
    "random_apply_0": (lambda m: m.T.RandomApply([m.T.Fill(0)], prob=0.0), (np.array([1, 2]),)),
    "random_choice_1": (lambda m: m.T.RandomChoice([m.T.Slice([0])]), (np.array([4, 2]),)),
    "random_order_1": (lambda m: m.T.RandomOrder([m.T.PadEnd([3], 9)]), (np.array([4, 2]),)),
}

# Building these raises; the golden is the exception type.
TRANSFORMS_BUILD_ERRORS = {
    "concat_axis": lambda m: m.T.Concatenate(2),
    "concat_prepend_2d": lambda m: m.T.Concatenate(0, np.array([["a"]])),
    "random_apply_empty": lambda m: m.T.RandomApply([]),
    "random_apply_uncallable": lambda m: m.T.RandomApply([1]),
    "random_apply_prob": lambda m: m.T.RandomApply([abs], 2),
    "compose_empty": lambda m: m.T.Compose([]),
    "fill_list": lambda m: m.T.Fill([1]),
    "padend_int": lambda m: m.T.PadEnd(3),
}

_VB = ["want", "##want", "##ed", "runn", "##ing", "un", "##aff", "##able", "[UNK]"]
_S = np.array

TEXT = {
    "whitespace_offsets": (lambda m: m.text.WhitespaceTokenizer(True), (_S("hello  world\tfoo "),)),
    "unicode_char_offsets": (lambda m: m.text.UnicodeCharTokenizer(True), (_S("a\u00e9\u4e2d"),)),
    "basic": (lambda m: m.text.BasicTokenizer(), (_S("Hello, World! \u4e2d\u56fd [CLS] don't\u00e9"),)),
    "basic_lower": (lambda m: m.text.BasicTokenizer(lower_case=True), (_S("H\u00e9llo, WORLD!"),)),
    "basic_ws_offsets": (
        lambda m: m.text.BasicTokenizer(keep_whitespace=True, with_offsets=True),
        (_S("a  b,c"),),
    ),
    "ngram": (lambda m: m.text.Ngram([2, 3], ("_", 1), ("_", 1), "-"), (_S(["a", "b", "c"]),)),
    "ngram_empty": (lambda m: m.text.Ngram(4), (_S(["a", "b", "c"]),)),
    "sliding_window": (lambda m: m.text.SlidingWindow(2), (_S([1, 2, 3, 4]),)),
    "to_number_int": (lambda m: m.text.ToNumber(m.ms.int32), (_S(["1", "-2"]),)),
    "to_number_overflow": (lambda m: m.text.ToNumber(m.ms.int8), (_S(["1000"]),)),
    "to_number_invalid": (lambda m: m.text.ToNumber(m.ms.float32), (_S(["1.5", "x"]),)),
    "truncate_2d": (lambda m: m.text.Truncate(2), (_S([[1, 2, 3], [4, 5, 6]]),)),
    "add_token_end": (lambda m: m.text.AddToken("X", False), (_S(["a", "b"]),)),
    "regex_replace": (lambda m: m.text.RegexReplace(r"\s+", "_"), (_S("a  b c"),)),
    "regex_replace_first": (lambda m: m.text.RegexReplace(r"\s+", "_", False), (_S("a  b c"),)),
    "regex_tokenizer_keep": (lambda m: m.text.RegexTokenizer(r"\s+", r"\s+", True), (_S("a  b c"),)),
    "regex_tokenizer": (lambda m: m.text.RegexTokenizer(r"\s+|,"), (_S("a, b c"),)),
    "case_fold": (lambda m: m.text.CaseFold(), (_S("ABC\u00df\u03a3"),)),
    "normalize_nfkc": (lambda m: m.text.NormalizeUTF8(), (_S("\uff48\uff45\uff4c\uff4c\uff4f \ufb01"),)),
    "normalize_nfd": (lambda m: m.text.NormalizeUTF8(m.text.NormalizeForm.NFD), (_S(["\u00e9"]),)),
    "lookup_unk": (
        lambda m: m.text.Lookup(m.text.Vocab.from_list(["a", "b", "c"], ["<pad>", "<unk>"]), "<unk>"),
        (_S(["a", "zz"]),),
    ),
    "lookup_missing": (lambda m: m.text.Lookup(m.text.Vocab.from_list(["a"])), (_S(["a", "zz"]),)),
    "lookup_int64": (
        lambda m: m.text.Lookup(m.text.Vocab.from_list(["a", "b", "c"]), data_type=m.ms.int64),
        (_S(["a", "c"]),),
    ),
    "wordpiece": (
        lambda m: m.text.WordpieceTokenizer(m.text.Vocab.from_list(_VB)),
        (_S(["unwanted", "running", "xyz", "unaffable"]),),
    ),
    "wordpiece_keep_offsets": (
        lambda m: m.text.WordpieceTokenizer(m.text.Vocab.from_list(_VB), unknown_token="", with_offsets=True),
        (_S(["unwanted", "xyz"]),),
    ),
    "bert_lower": (
        lambda m: m.text.BertTokenizer(m.text.Vocab.from_list(_VB), lower_case=True),
        (_S("UNwanted running, xyz"),),
    ),
    "bert_offsets": (
        lambda m: m.text.BertTokenizer(m.text.Vocab.from_list(_VB), with_offsets=True),
        (_S("unwanted [CLS] running"),),
    ),
    "to_str": (lambda m: m.text.to_str, (_S([b"ab", b"c"]),)),
    "to_bytes": (lambda m: m.text.to_bytes, (_S(["ab", "c"]),)),
    "truncate_pair": (lambda m: m.text.TruncateSequencePair(3), (_S([1, 2, 3]), _S([4, 5]))),
    "python_tokenizer": (lambda m: m.text.PythonTokenizer(lambda s: s.split("-")), (_S("a-b-c"),)),
    "unicode_script": (lambda m: m.text.UnicodeScriptTokenizer(), (_S("abc 123 \u4e2d\u6587, d\u00e9f!"),)),
    "unicode_script_ws": (lambda m: m.text.UnicodeScriptTokenizer(True, True), (_S("ab  cd"),)),
}


def _speckw(m) -> dict:
    return {
        "n_fft": 16,
        "win_length": 16,
        "hop_length": 8,
        "pad": 0,
        "window": m.audio.WindowType.HANN,
        "power": 2.0,
        "normalized": False,
        "center": True,
        "pad_mode": m.audio.BorderType.REFLECT,
        "onesided": True,
    }


def _melkw(m) -> dict:
    kw = {**_speckw(m), "f_min": 0.0, "f_max": 8000.0, "n_mels": 6}
    kw.update(norm=m.audio.NormType.NONE, mel_scale=m.audio.MelType.HTK)
    return kw


_W2 = np.array([[0.1, 0.2, 0.3, -0.4, 0.5], [0.4, 0.5, 0.6, -0.9, 0.05]], dtype=np.float64)

AUDIO = {
    "allpass": (lambda m: m.audio.AllpassBiquad(44100, 200.0, 0.5), (WAVE,)),
    "band": (lambda m: m.audio.BandBiquad(44100, 200.0), (WAVE,)),
    "band_noise": (lambda m: m.audio.BandBiquad(16000, 800.0, 0.9, True), (WAVE,)),
    "bandpass": (lambda m: m.audio.BandpassBiquad(44100, 200.0), (WAVE,)),
    "bandpass_skirt": (lambda m: m.audio.BandpassBiquad(16000, 900.0, 0.6, True), (WAVE,)),
    "bandreject": (lambda m: m.audio.BandrejectBiquad(44100, 200.0, 0.707), (_W2,)),
    "bass": (lambda m: m.audio.BassBiquad(44100, 10.0, 300.0), (WAVE,)),
    "treble": (lambda m: m.audio.TrebleBiquad(44100, -6.0, 2000.0), (WAVE,)),
    "equalizer": (lambda m: m.audio.EqualizerBiquad(44100, 1500.0, 5.5, 0.7), (WAVE,)),
    "highpass": (lambda m: m.audio.HighpassBiquad(16000, 1000.0), (WAVE,)),
    "lowpass": (lambda m: m.audio.LowpassBiquad(16000, 1000.0), (WAVE64,)),
    "deemph_44100": (lambda m: m.audio.DeemphBiquad(44100), (_W2,)),
    "deemph_48000": (lambda m: m.audio.DeemphBiquad(48000), (WAVE,)),
    "riaa": (lambda m: m.audio.RiaaBiquad(88200), (WAVE,)),
    "biquad": (lambda m: m.audio.Biquad(0.3, 0.2, 0.1, 1.0, -0.2, 0.05), (WAVE,)),
    "lfilter": (lambda m: m.audio.LFilter([1.0, -0.5, 0.1], [0.4, 0.2, 0.1]), (WAVE,)),
    "lfilter_noclamp": (lambda m: m.audio.LFilter([1.0, -0.9], [2.0, 1.0], False), (WAVE,)),
    "filtfilt": (lambda m: m.audio.Filtfilt([1.0, -0.5, 0.1], [0.4, 0.2, 0.1]), (WAVE,)),
    "contrast": (lambda m: m.audio.Contrast(50.0), (WAVE,)),
    "dcshift": (lambda m: m.audio.DCShift(0.3), (WAVE,)),
    "gain": (lambda m: m.audio.Gain(3.5), (WAVE,)),
    "vol_amp": (lambda m: m.audio.Vol(1.5), (WAVE,)),
    "vol_db": (lambda m: m.audio.Vol(-3.0, m.audio.GainType.DB), (WAVE,)),
    "vol_power": (lambda m: m.audio.Vol(2.0, m.audio.GainType.POWER), (WAVE,)),
    "mulaw_enc": (lambda m: m.audio.MuLawEncoding(), (WAVE,)),
    "mulaw_enc_16": (lambda m: m.audio.MuLawEncoding(16), (WAVE64,)),
    "mulaw_dec": (lambda m: m.audio.MuLawDecoding(), (np.array([[0, 10, 128, 200, 255]], dtype=np.int32),)),
    "db_to_amp": (lambda m: m.audio.DBToAmplitude(0.5, 0.5), (SPEC,)),
    "amp_to_db": (lambda m: m.audio.AmplitudeToDB(), (SPEC,)),
    "amp_to_db_mag": (lambda m: m.audio.AmplitudeToDB(m.audio.ScaleType.MAGNITUDE, 2.0, 1e-5, 10.0), (SPEC,)),
    "complex_norm": (lambda m: m.audio.ComplexNorm(), (CPLX,)),
    "complex_norm_3": (lambda m: m.audio.ComplexNorm(3.0), (CPLX,)),
    "angle": (lambda m: m.audio.Angle(), (CPLX,)),
    "magphase": (lambda m: m.audio.Magphase(2.0), (CPLX,)),
    "deltas": (lambda m: m.audio.ComputeDeltas(), (SPEC,)),
    "deltas_7": (lambda m: m.audio.ComputeDeltas(7), (SPEC,)),
    "mask_axis_time": (lambda m: m.audio.MaskAlongAxis(2, 3, 9.0, 2), (SPEC,)),
    "mask_axis_freq": (lambda m: m.audio.MaskAlongAxis(1, 2, -1.0, 1), (SPEC,)),
    "spectrogram": (lambda m: m.audio.Spectrogram(n_fft=16), (WAVE,)),
    "spectrogram_opts": (
        lambda m: m.audio.Spectrogram(16, 12, 5, 2, m.audio.WindowType.HAMMING, 1.0, True, False),
        (WAVE,),
    ),
    "spectrogram_f64": (lambda m: m.audio.Spectrogram(n_fft=8, power=1.5), (WAVE64,)),
    "spectral_centroid": (lambda m: m.audio.SpectralCentroid(16000, n_fft=8), (WAVE,)),
    "melscale": (lambda m: m.audio.MelScale(4, 16000, n_stft=9), (SPEC,)),
    "melscale_slaney": (
        lambda m: m.audio.MelScale(4, 16000, 100.0, 6000.0, 9, m.audio.NormType.SLANEY, m.audio.MelType.SLANEY),
        (SPEC,),
    ),
    "melspectrogram": (lambda m: m.audio.MelSpectrogram(16000, n_fft=16, n_mels=5), (WAVE,)),
    "mfcc": (lambda m: m.audio.MFCC(16000, 4, melkwargs=_melkw(m)), (WAVE,)),
    "mfcc_log": (
        lambda m: m.audio.MFCC(16000, 4, log_mels=True, norm=m.audio.NormMode.NONE, melkwargs=_melkw(m)),
        (WAVE,),
    ),
    "lfcc": (lambda m: m.audio.LFCC(16000, 6, 4, speckwargs=_speckw(m)), (WAVE,)),
    "time_stretch": (lambda m: m.audio.TimeStretch(4, 5, 1.3), (CPLX,)),
    "time_stretch_slow": (lambda m: m.audio.TimeStretch(None, 5, 0.8), (CPLX,)),
    "phase_vocoder": (
        lambda m: m.audio.PhaseVocoder(1.5, np.linspace(0, 3.0, 5)[:, None].astype(np.float32)),
        (CPLX,),
    ),
    "phase_vocoder_dtype": (lambda m: m.audio.PhaseVocoder(1.5, np.linspace(0, 3.0, 5)[:, None]), (CPLX,)),
    "fade_linear": (lambda m: m.audio.Fade(10, 20), (WAVE,)),
    "fade_qsine": (lambda m: m.audio.Fade(10, 5, m.audio.FadeShape.QUARTER_SINE), (WAVE,)),
    "fade_hsine": (lambda m: m.audio.Fade(10, 5, m.audio.FadeShape.HALF_SINE), (WAVE,)),
    "fade_log": (lambda m: m.audio.Fade(10, 5, m.audio.FadeShape.LOGARITHMIC), (WAVE,)),
    "fade_exp": (lambda m: m.audio.Fade(10, 5, m.audio.FadeShape.EXPONENTIAL), (WAVE,)),
    "overdrive": (lambda m: m.audio.Overdrive(10.0, 30.0), (WAVE,)),
    "inverse_spectrogram": (lambda m: m.audio.InverseSpectrogram(n_fft=8), (CPLX[:, :5],)),
    "inverse_spectrogram_len": (lambda m: m.audio.InverseSpectrogram(length=20, n_fft=8, hop_length=2), (CPLX[:, :5],)),
    "griffin_lim": (
        lambda m: m.audio.GriffinLim(n_fft=16, n_iter=4, momentum=0.0, rand_init=False),
        (np.abs(SPEC[0, :, :9]),),
    ),
    "resample_down": (lambda m: m.audio.Resample(16000, 8000), (WAVE,)),
    "resample_up": (lambda m: m.audio.Resample(3, 5), (WAVE,)),
    "resample_kaiser": (
        lambda m: m.audio.Resample(44100, 16000, m.audio.ResampleMethod.KAISER_WINDOW, 4, 0.9),
        (WAVE,),
    ),
    "sliding_window_cmn": (lambda m: m.audio.SlidingWindowCmn(6, 3), (SPEC,)),
    "sliding_window_cmn_center_vars": (lambda m: m.audio.SlidingWindowCmn(5, 7, True, True), (SPEC,)),
    "detect_pitch": (lambda m: m.audio.DetectPitchFrequency(8000, 0.002, 3, 400, 3000), (WAVE,)),
    "phaser": (lambda m: m.audio.Phaser(8000), (WAVE,)),
    "phaser_triangle": (lambda m: m.audio.Phaser(16000, 0.8, 0.9, 2.0, 0.5, 1.0, False), (WAVE64,)),
    "flanger": (lambda m: m.audio.Flanger(8000), (WAVE,)),
    "flanger_quadratic": (
        lambda m: m.audio.Flanger(
            8000, 2.0, 5.0, 30.0, 50.0, 2.0, 50.0, m.audio.Modulation.TRIANGULAR, m.audio.Interpolation.QUADRATIC
        ),
        (WAVE,),
    ),
    "dither_tpdf": (lambda m: m.audio.Dither(), (WAVE,)),
    "dither_shaped": (lambda m: m.audio.Dither(m.audio.DensityFunction.TPDF, True), (WAVE64,)),
    "pitch_shift": (lambda m: m.audio.PitchShift(8000, 4, 12, 16), (WAVE,)),
    "pitch_shift_down": (lambda m: m.audio.PitchShift(16000, -3, 24, 16, 12, 3), (WAVE64,)),
    "melscale_fbanks": (lambda m: m.audio.melscale_fbanks, (9, 0.0, 4000.0, 4, 8000)),
    "linear_fbanks": (lambda m: m.audio.linear_fbanks, (9, 10.0, 4000.0, 4, 8000)),
    "create_dct": (lambda m: m.audio.create_dct, (4, 6)),
    "create_dct_ortho": (lambda m: lambda a, b: m.audio.create_dct(a, b, m.audio.NormMode.ORTHO), (4, 6)),
}

ALL = {"transforms": TRANSFORMS, "text": TEXT, "audio": AUDIO}
ALL_BUILD_ERRORS = {"transforms": TRANSFORMS_BUILD_ERRORS}


def run_case(build, inputs, m) -> dict:
    """Golden entries of one case: {key: array} or {key: "!ExceptionName"}."""
    try:
        out = build(m)(*inputs)
    except Exception as exc:  # noqa: BLE001  (the exception type is the golden)
        return {"": "!" + type(exc).__name__}
    if isinstance(out, tuple):
        return {f"#{i}": np.asarray(o) for i, o in enumerate(out)}
    return {"": np.asarray(out)}


def build_error(build, m) -> str:
    try:
        build(m)
    except Exception as exc:  # noqa: BLE001
        return type(exc).__name__
    return "no error"
