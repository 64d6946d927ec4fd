"""Audio enums and filter-bank helpers (`mindspore.dataset.audio.utils`)."""

from __future__ import annotations

import enum
import math

import numpy as np

__all__ = [
    "BorderType",
    "DensityFunction",
    "FadeShape",
    "GainType",
    "Interpolation",
    "MelType",
    "Modulation",
    "NormMode",
    "NormType",
    "ResampleMethod",
    "ScaleType",
    "WindowType",
    "create_dct",
    "linear_fbanks",
    "melscale_fbanks",
]


def _modes(name: str, doc: str, *values: str) -> type[enum.StrEnum]:
    """A str enum `name` (defined in this module) whose members are `values`, each named by its upper-case form."""
    cls = enum.StrEnum(name, [(value.upper(), value) for value in values], module=__name__)
    cls.__doc__ = doc
    return cls


# MindSpore's audio enums: name, what it lists, the values (each member named by its upper-case value).
BorderType = _modes("BorderType", "Padding modes.", "constant", "edge", "reflect", "symmetric")
DensityFunction = _modes("DensityFunction", "Noise shapes of Dither.", "TPDF", "RPDF", "GPDF")
FadeShape = _modes("FadeShape", "Fade curves.", "linear", "exponential", "logarithmic", "quarter_sine", "half_sine")
GainType = _modes("GainType", "How Vol reads its gain.", "amplitude", "power", "db")
Interpolation = _modes("Interpolation", "Interpolations of Flanger.", "linear", "quadratic")
MelType = _modes("MelType", "Mel scales.", "htk", "slaney")
Modulation = _modes("Modulation", "Modulations of Flanger.", "sinusoidal", "triangular")
NormMode = _modes("NormMode", "DCT normalizations.", "none", "ortho")
NormType = _modes("NormType", "Filter-bank normalizations.", "none", "slaney")
ResampleMethod = _modes("ResampleMethod", "Resampling kernels.", "sinc_interpolation", "kaiser_window")
ScaleType = _modes("ScaleType", "Whether a spectrogram holds magnitudes or powers.", "magnitude", "power")
WindowType = _modes("WindowType", "STFT windows.", "bartlett", "blackman", "hamming", "hann", "kaiser")


def enum_arg(cls: type[enum.StrEnum], value, name: str, op: str) -> enum.StrEnum:
    """`value` as a member of the audio enum `cls` (a member, or its string value as Kiln also takes); anything
    else is a TypeError naming the argument, the class MindSpore's argument check raises (not a ValueError)."""
    try:
        return cls(value)
    except ValueError:
        raise TypeError(f"{op}: {name} must be a {cls.__name__}, but got {value!r}.") from None


def _hz_to_mel(freq, mel_type: MelType):
    if mel_type == MelType.HTK:
        return 2595.0 * np.log10(1.0 + np.asarray(freq, dtype=np.float64) / 700.0)
    f_sp = 200.0 / 3
    freq = np.asarray(freq, dtype=np.float64)
    mels = freq / f_sp
    min_log_hz, logstep = 1000.0, math.log(6.4) / 27.0
    min_log_mel = min_log_hz / f_sp
    return np.where(freq >= min_log_hz, min_log_mel + np.log(np.maximum(freq, 1e-30) / min_log_hz) / logstep, mels)


def _mel_to_hz(mels, mel_type: MelType):
    mels = np.asarray(mels, dtype=np.float64)
    if mel_type == MelType.HTK:
        return 700.0 * (10.0 ** (mels / 2595.0) - 1.0)
    f_sp = 200.0 / 3
    min_log_hz, logstep = 1000.0, math.log(6.4) / 27.0
    min_log_mel = min_log_hz / f_sp
    return np.where(mels >= min_log_mel, min_log_hz * np.exp(logstep * (mels - min_log_mel)), f_sp * mels)


def _triangular(all_freqs: np.ndarray, f_pts: np.ndarray) -> np.ndarray:
    f_diff = f_pts[1:] - f_pts[:-1]
    slopes = f_pts[None, :] - all_freqs[:, None]
    down = -slopes[:, :-2] / f_diff[:-1]
    up = slopes[:, 2:] / f_diff[1:]
    return np.maximum(0.0, np.minimum(down, up))


_INT32_MAX = 2**31 - 1


def _check_fbank_args(op: str, n_freqs, f_min, f_max, filters: tuple[str, object], sample_rate) -> None:
    # `filters` is (the caller's argument name, its value): a message names the argument the user passed
    for name, v in (("n_freqs", n_freqs), filters, ("sample_rate", sample_rate)):
        if isinstance(v, bool) or not isinstance(v, int):
            raise TypeError(f"{op}: {name} must be an int, but got {type(v).__name__}.")
        if not 1 <= v <= _INT32_MAX:
            raise ValueError(f"{op}: {name} must be in [1, {_INT32_MAX}], but got {v}.")
    for name, v in (("f_min", f_min), ("f_max", f_max)):
        if isinstance(v, bool) or not isinstance(v, int | float):
            raise TypeError(f"{op}: {name} must be a number, but got {type(v).__name__}.")
    if f_min > f_max:
        raise ValueError(f"{op}: f_min ({f_min}) must not exceed f_max ({f_max}).")


def melscale_fbanks(n_freqs, f_min, f_max, n_mels, sample_rate, norm=NormType.NONE, mel_type=MelType.HTK):
    """Triangular mel filter bank, shape (n_freqs, n_mels), float32.

    Args:
        n_freqs: frequency bins of the spectrogram (n_fft // 2 + 1).
        f_min, f_max: the frequency range in Hz.
        n_mels: mel filters.
        sample_rate: the sample rate of the audio.
        norm: NormType.SLANEY divides each filter by its width (area normalization).
        mel_type: MelType.HTK or MelType.SLANEY.
    """
    _check_fbank_args("melscale_fbanks", n_freqs, f_min, f_max, ("n_mels", n_mels), sample_rate)
    norm = enum_arg(NormType, norm, "norm", "melscale_fbanks")
    mel_type = enum_arg(MelType, mel_type, "mel_type", "melscale_fbanks")
    all_freqs = np.linspace(0, sample_rate // 2, n_freqs)
    m_pts = np.linspace(_hz_to_mel(f_min, mel_type), _hz_to_mel(f_max, mel_type), n_mels + 2)
    f_pts = _mel_to_hz(m_pts, mel_type)
    fb = _triangular(all_freqs, f_pts)
    if norm == NormType.SLANEY:
        fb *= (2.0 / (f_pts[2 : n_mels + 2] - f_pts[:n_mels]))[None, :]
    return fb.astype(np.float32)


def linear_fbanks(n_freqs, f_min, f_max, n_filter, sample_rate):
    """Triangular filter bank with linearly spaced centers, shape (n_freqs, n_filter), float32."""
    _check_fbank_args("linear_fbanks", n_freqs, f_min, f_max, ("n_filter", n_filter), sample_rate)
    all_freqs = np.linspace(0, sample_rate // 2, n_freqs)
    f_pts = np.linspace(f_min, f_max, n_filter + 2)
    return _triangular(all_freqs, f_pts).astype(np.float32)


def create_dct(n_mfcc, n_mels, norm=NormMode.NONE):
    """DCT-II matrix of shape (n_mels, n_mfcc), float32 (NormMode.ORTHO makes it orthonormal)."""
    n = np.arange(n_mels, dtype=np.float64)
    k = np.arange(n_mfcc, dtype=np.float64)[:, None]
    dct = np.cos(math.pi / n_mels * (n + 0.5) * k)
    if enum_arg(NormMode, norm, "norm", "create_dct") == NormMode.NONE:
        dct *= 2.0
    else:
        dct[0] *= 1.0 / math.sqrt(2.0)
        dct *= math.sqrt(2.0 / n_mels)
    return dct.T.astype(np.float32)
