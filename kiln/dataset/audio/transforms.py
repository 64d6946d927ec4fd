"""Audio transforms (`mindspore.dataset.audio.transforms`), in NumPy, with torchaudio's formulas (which
MindSpore's follow).

Waveforms are (..., time); spectrograms (..., freq, time); complex spectrograms (..., freq, time, 2). Results
keep a float input's dtype (float16 and integer inputs give float32). Filters clamp their output to [-1, 1]
where MindSpore's do.
"""

from __future__ import annotations

import math

import numpy as np

from kiln.dataset import _rng
from kiln.dataset.audio.utils import (
    BorderType,
    DensityFunction,
    FadeShape,
    GainType,
    Interpolation,
    MelType,
    Modulation,
    NormMode,
    NormType,
    ResampleMethod,
    ScaleType,
    WindowType,
    create_dct,
    enum_arg,
    linear_fbanks,
    melscale_fbanks,
)

__all__ = [
    "AllpassBiquad",
    "AmplitudeToDB",
    "Angle",
    "BandBiquad",
    "BandpassBiquad",
    "BandrejectBiquad",
    "BassBiquad",
    "Biquad",
    "ComplexNorm",
    "ComputeDeltas",
    "Contrast",
    "DBToAmplitude",
    "DCShift",
    "DeemphBiquad",
    "EqualizerBiquad",
    "Fade",
    "Filtfilt",
    "FrequencyMasking",
    "Gain",
    "HighpassBiquad",
    "LFCC",
    "LFilter",
    "LowpassBiquad",
    "MFCC",
    "Magphase",
    "MaskAlongAxis",
    "MaskAlongAxisIID",
    "MelScale",
    "MelSpectrogram",
    "MuLawDecoding",
    "MuLawEncoding",
    "Overdrive",
    "PhaseVocoder",
    "RiaaBiquad",
    "SpectralCentroid",
    "Spectrogram",
    "TimeMasking",
    "TimeStretch",
    "TrebleBiquad",
    "Vol",
]


def _float(x, op: str) -> np.ndarray:
    arr = np.asarray(x)
    if arr.dtype.kind not in "iufb":
        raise RuntimeError(f"{op}: the input must be numeric, but got {arr.dtype}.")
    return arr


def _out_dtype(arr: np.ndarray):
    return arr.dtype if arr.dtype in (np.float32, np.float64) else np.float32


def _num(value, name: str, op: str, low=None, high=None, low_open=False, integer=False):
    types = (int,) if integer else (int, float)
    if isinstance(value, bool) or not isinstance(value, types):
        kind = "an int" if integer else "a number"
        raise TypeError(f"{op}: {name} must be {kind}, but got {type(value).__name__}.")
    if low is not None and (value < low or (low_open and value == low)):
        raise ValueError(f"{op}: {name} must be {'>' if low_open else '>='} {low}, but got {value}.")
    if high is not None and value > high:
        raise ValueError(f"{op}: {name} must be <= {high}, but got {value}.")
    return value


def _sample_rate(sr, op: str) -> int:
    _num(sr, "sample_rate", op, integer=True)
    if sr == 0:
        raise ValueError(f"{op}: sample_rate must not be 0.")
    return sr


def _q(q, op: str) -> float:
    _num(q, "Q", op)
    if not 0 < q <= 1:
        raise ValueError(f"{op}: Q must be in (0, 1], but got {q}.")
    return float(q)


# -- filters -----------------------------------------------------------------------------------------------------


def _lfilter(x: np.ndarray, a, b, clamp: bool) -> np.ndarray:
    """Direct-form I IIR filter along the last axis, coefficients normalized by a[0]."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    a0 = a[0]
    a, b = a / a0, b / a0
    order = len(a)
    flat = x.reshape(-1, x.shape[-1]).astype(np.float64)
    n = flat.shape[1]
    padded = np.concatenate([np.zeros((flat.shape[0], order - 1)), flat], axis=1)
    y = np.zeros_like(padded)
    b_rev, a_rev = b[::-1], a[:0:-1]
    for t in range(n):
        window = padded[:, t : t + order]
        y[:, t + order - 1] = window @ b_rev - y[:, t : t + order - 1] @ a_rev
    out = y[:, order - 1 :]
    if clamp:
        out = np.clip(out, -1.0, 1.0)
    return out.reshape(x.shape)


class _Filter:
    clamp = True

    def _coeffs(self) -> tuple[list, list]:
        raise NotImplementedError

    def __call__(self, waveform):
        arr = _float(waveform, type(self).__name__)
        if arr.ndim < 1:
            raise RuntimeError(f"{type(self).__name__}: the waveform must have at least one dimension.")
        a, b = self._coeffs()
        return _lfilter(arr, a, b, self.clamp).astype(_out_dtype(arr))


class Biquad(_Filter):
    """Second-order IIR filter with coefficients b0, b1, b2 (numerator) and a0, a1, a2 (denominator)."""

    def __init__(self, b0, b1, b2, a0, a1, a2) -> None:
        for name, v in zip(("b0", "b1", "b2", "a0", "a1", "a2"), (b0, b1, b2, a0, a1, a2)):
            _num(v, name, "Biquad")
        if a0 == 0:
            raise ValueError("Biquad: a0 must not be 0.")
        self.b, self.a = [b0, b1, b2], [a0, a1, a2]

    def _coeffs(self):
        return self.a, self.b


class LFilter(_Filter):
    """IIR filter along time with denominator `a_coeffs` and numerator `b_coeffs` (same length)."""

    def __init__(self, a_coeffs, b_coeffs, clamp: bool = True) -> None:
        if len(a_coeffs) != len(b_coeffs) or not len(a_coeffs):
            raise ValueError("LFilter: a_coeffs and b_coeffs must be non-empty and of the same length.")
        if a_coeffs[0] == 0:
            raise ValueError("LFilter: a_coeffs[0] must not be 0.")
        self.a, self.b, self.clamp = list(a_coeffs), list(b_coeffs), bool(clamp)

    def _coeffs(self):
        return self.a, self.b


class Filtfilt(LFilter):
    """LFilter applied forward, then backward (zero phase)."""

    def __call__(self, waveform):
        arr = _float(waveform, "Filtfilt")
        fwd = _lfilter(arr, self.a, self.b, False)
        out = _lfilter(fwd[..., ::-1], self.a, self.b, self.clamp)[..., ::-1]
        return out.astype(_out_dtype(arr))


class _RateFilter(_Filter):
    """A biquad designed from a sample rate, a quality factor Q and frequencies or gains."""

    def _keep(self, sample_rate, Q, **values) -> None:  # noqa: N803  (MindSpore's name)
        """Check and keep the sample rate, each of `values` (a frequency or gain, by name) and Q, in that order."""
        op = type(self).__name__
        self.sample_rate = _sample_rate(sample_rate, op)
        for name, value in values.items():
            setattr(self, name, _num(value, name, op))
        self.Q = _q(Q, op)

    def _w0_alpha(self, freq, q):
        w0 = 2 * math.pi * freq / self.sample_rate
        return w0, math.sin(w0) / 2 / q


class _TwoPoleBiquad(_RateFilter):
    """A two-pole biquad of the audio-EQ cookbook: the denominator is [1 + alpha, -2 cos(w0), 1 - alpha] at the
    frequency held in the attribute `_FREQ`; the subclass gives the numerator."""

    _FREQ = "central_freq"

    def _numerator(self, w0: float, alpha: float) -> list:
        raise NotImplementedError

    def _coeffs(self):
        w0, alpha = self._w0_alpha(getattr(self, self._FREQ), self.Q)
        return [1 + alpha, -2 * math.cos(w0), 1 - alpha], self._numerator(w0, alpha)


class _CentralTwoPoleBiquad(_TwoPoleBiquad):
    """A two-pole biquad centered on `central_freq`."""

    def __init__(self, sample_rate, central_freq, Q=0.707) -> None:  # noqa: N803  (MindSpore's name)
        self._keep(sample_rate, Q, central_freq=central_freq)


class _CutoffTwoPoleBiquad(_TwoPoleBiquad):
    """A two-pole biquad with the cutoff `cutoff_freq`."""

    _FREQ = "cutoff_freq"

    def __init__(self, sample_rate, cutoff_freq, Q=0.707) -> None:  # noqa: N803  (MindSpore's name)
        self._keep(sample_rate, Q, cutoff_freq=cutoff_freq)


class AllpassBiquad(_CentralTwoPoleBiquad):
    """Two-pole all-pass filter centered on `central_freq`."""

    def _numerator(self, w0: float, alpha: float) -> list:
        return [1 - alpha, -2 * math.cos(w0), 1 + alpha]


class BandBiquad(_RateFilter):
    """Two-pole band filter (noise=True suits unpitched audio)."""

    def __init__(self, sample_rate, central_freq, Q=0.707, noise=False) -> None:  # noqa: N803
        self._keep(sample_rate, Q, central_freq=central_freq)
        self.noise = bool(noise)

    def _coeffs(self):
        w0 = 2 * math.pi * self.central_freq / self.sample_rate
        bw_hz = self.central_freq / self.Q
        a2 = math.exp(-2 * math.pi * bw_hz / self.sample_rate)
        a1 = -4 * a2 / (1 + a2) * math.cos(w0)
        if self.noise:
            b0 = math.sqrt(((1 + a2) ** 2 - a1**2) * (1 - a2) / (1 + a2))
        else:
            b0 = math.sqrt(1 - a1**2 / (4 * a2)) * (1 - a2)
        return [1.0, a1, a2], [b0, 0.0, 0.0]


class BandpassBiquad(_TwoPoleBiquad):
    """Two-pole band-pass filter (constant skirt gain, or constant 0 dB peak gain)."""

    def __init__(self, sample_rate, central_freq, Q=0.707, const_skirt_gain=False) -> None:  # noqa: N803
        self._keep(sample_rate, Q, central_freq=central_freq)
        self.const_skirt_gain = bool(const_skirt_gain)

    def _numerator(self, w0: float, alpha: float) -> list:
        temp = math.sin(w0) / 2 if self.const_skirt_gain else alpha
        return [temp, 0.0, -temp]


class BandrejectBiquad(_CentralTwoPoleBiquad):
    """Two-pole band-reject (notch) filter."""

    def _numerator(self, w0: float, alpha: float) -> list:
        return [1.0, -2 * math.cos(w0), 1.0]


class _ShelfBiquad(_RateFilter):
    _bass = True

    def __init__(self, sample_rate, gain, central_freq, Q=0.707) -> None:  # noqa: N803
        self._keep(sample_rate, Q, gain=gain, central_freq=central_freq)

    def _coeffs(self):
        w0, alpha = self._w0_alpha(self.central_freq, self.Q)
        big_a = math.exp(self.gain / 40 * math.log(10))
        t1 = 2 * math.sqrt(big_a) * alpha
        t2 = (big_a - 1) * math.cos(w0)
        t3 = (big_a + 1) * math.cos(w0)
        if self._bass:
            b = [big_a * ((big_a + 1) - t2 + t1), 2 * big_a * ((big_a - 1) - t3), big_a * ((big_a + 1) - t2 - t1)]
            a = [(big_a + 1) + t2 + t1, -2 * ((big_a - 1) + t3), (big_a + 1) + t2 - t1]
        else:
            b = [big_a * ((big_a + 1) + t2 + t1), -2 * big_a * ((big_a - 1) + t3), big_a * ((big_a + 1) + t2 - t1)]
            a = [(big_a + 1) - t2 + t1, 2 * ((big_a - 1) - t3), (big_a + 1) - t2 - t1]
        return a, b


class BassBiquad(_ShelfBiquad):
    """Low-shelf filter: boost or cut (gain, in dB) below `central_freq`."""

    def __init__(self, sample_rate, gain, central_freq=100.0, Q=0.707) -> None:  # noqa: N803
        super().__init__(sample_rate, gain, central_freq, Q)


class TrebleBiquad(_ShelfBiquad):
    """High-shelf filter: boost or cut (gain, in dB) above `central_freq`."""

    _bass = False

    def __init__(self, sample_rate, gain, central_freq=3000.0, Q=0.707) -> None:  # noqa: N803
        super().__init__(sample_rate, gain, central_freq, Q)


class EqualizerBiquad(_RateFilter):
    """Peaking equalizer: `gain` dB around `center_freq`."""

    def __init__(self, sample_rate, center_freq, gain, Q=0.707) -> None:  # noqa: N803
        self._keep(sample_rate, Q, center_freq=center_freq, gain=gain)

    def _coeffs(self):
        w0, alpha = self._w0_alpha(self.center_freq, self.Q)
        big_a = math.exp(self.gain / 40.0 * math.log(10))
        c = math.cos(w0)
        return [1 + alpha / big_a, -2 * c, 1 - alpha / big_a], [1 + alpha * big_a, -2 * c, 1 - alpha * big_a]


class HighpassBiquad(_CutoffTwoPoleBiquad):
    """Two-pole high-pass filter."""

    def _numerator(self, w0: float, alpha: float) -> list:
        c = math.cos(w0)
        return [(1 + c) / 2, -1 - c, (1 + c) / 2]


class LowpassBiquad(_CutoffTwoPoleBiquad):
    """Two-pole low-pass filter."""

    def _numerator(self, w0: float, alpha: float) -> list:
        c = math.cos(w0)
        return [(1 - c) / 2, 1 - c, (1 - c) / 2]


class DeemphBiquad(_Filter):
    """ISO 908 CD de-emphasis shelving filter (sample rate 44100 or 48000)."""

    def __init__(self, sample_rate) -> None:
        _num(sample_rate, "sample_rate", "DeemphBiquad", integer=True)
        if sample_rate not in (44100, 48000):
            raise ValueError(f"DeemphBiquad: sample_rate must be 44100 or 48000, but got {sample_rate}.")
        self.sample_rate = sample_rate

    def _coeffs(self):
        if self.sample_rate == 44100:
            central_freq, width_slope, gain = 5283, 0.4845, -9.477
        else:
            central_freq, width_slope, gain = 5356, 0.479, -9.62
        w0 = 2 * math.pi * central_freq / self.sample_rate
        big_a = math.exp(gain / 40.0 * math.log(10))
        alpha = math.sin(w0) / 2 * math.sqrt((big_a + 1 / big_a) * (1 / width_slope - 1) + 2)
        t1 = 2 * math.sqrt(big_a) * alpha
        t2 = (big_a - 1) * math.cos(w0)
        t3 = (big_a + 1) * math.cos(w0)
        b = [big_a * ((big_a + 1) + t2 + t1), -2 * big_a * ((big_a - 1) + t3), big_a * ((big_a + 1) + t2 - t1)]
        a = [(big_a + 1) - t2 + t1, 2 * ((big_a - 1) - t3), (big_a + 1) - t2 - t1]
        return a, b


_RIAA = {
    44100: ([-0.2014898, 0.9233820], [0.7083149, 0.9924091]),
    48000: ([-0.1766069, 0.9321590], [0.7396325, 0.9931330]),
    88200: ([-0.1168735, 0.9648312], [0.8590646, 0.9964002]),
    96000: ([-0.1141486, 0.9676817], [0.8699137, 0.9966946]),
}


class RiaaBiquad(_Filter):
    """RIAA vinyl playback equalization (sample rate 44100, 48000, 88200 or 96000)."""

    def __init__(self, sample_rate) -> None:
        _num(sample_rate, "sample_rate", "RiaaBiquad", integer=True)
        if sample_rate not in _RIAA:
            raise ValueError(f"RiaaBiquad: sample_rate must be one of {sorted(_RIAA)}, but got {sample_rate}.")
        self.sample_rate = sample_rate

    def _coeffs(self):
        zeros, poles = _RIAA[self.sample_rate]
        b = [1.0, -(zeros[0] + zeros[1]), zeros[0] * zeros[1]]
        a = [1.0, -(poles[0] + poles[1]), poles[0] * poles[1]]
        y = 2 * math.pi * 1000 / self.sample_rate
        b_re = b[0] + b[1] * math.cos(-y) + b[2] * math.cos(-2 * y)
        a_re = a[0] + a[1] * math.cos(-y) + a[2] * math.cos(-2 * y)
        b_im = b[1] * math.sin(-y) + b[2] * math.sin(-2 * y)
        a_im = a[1] * math.sin(-y) + a[2] * math.sin(-2 * y)
        g = 1 / math.sqrt((b_re**2 + b_im**2) / (a_re**2 + a_im**2))
        return a, [v * g for v in b]


# -- amplitude and level ---------------------------------------------------------------------------------------


class Contrast:
    """Contrast enhancement (like SoX `contrast`), amount in [0, 100]."""

    def __init__(self, enhancement_amount=75.0) -> None:
        _num(enhancement_amount, "enhancement_amount", "Contrast", 0, 100)
        self.enhancement_amount = float(enhancement_amount)

    def __call__(self, waveform):
        arr = _float(waveform, "Contrast")
        x = arr.astype(np.float64) * (math.pi / 2)
        out = np.sin(x + self.enhancement_amount / 750.0 * np.sin(x * 4))
        return out.astype(_out_dtype(arr))


class DCShift:
    """Add `shift` to the waveform; with `limiter_gain`, peaks are limited instead of clipped."""

    def __init__(self, shift, limiter_gain=None) -> None:
        _num(shift, "shift", "DCShift", -2, 2)
        if limiter_gain is not None:
            _num(limiter_gain, "limiter_gain", "DCShift")
        self.shift, self.limiter_gain = float(shift), limiter_gain

    def __call__(self, waveform):
        arr = _float(waveform, "DCShift")
        x = arr.astype(np.float64)
        shift = self.shift
        if self.limiter_gain is not None and shift > 0:
            thr = self.limiter_gain
            mask = x > thr
            x = np.where(mask, (x - thr) * (1 - thr - shift) / (1 - thr) + thr + shift, x + shift)
        elif self.limiter_gain is not None and shift < 0:
            thr = -self.limiter_gain
            mask = x < thr
            x = np.where(mask, (x - thr) * (1 + thr - shift) / (1 + thr) + thr + shift, x + shift)
        else:
            x = x + shift
        return np.clip(x, -1, 1).astype(_out_dtype(arr))


class Gain:
    """Scale the waveform by `gain_db` decibels."""

    def __init__(self, gain_db=1.0) -> None:
        self.gain_db = float(_num(gain_db, "gain_db", "Gain"))

    def __call__(self, waveform):
        arr = _float(waveform, "Gain")
        return (arr.astype(np.float64) * 10 ** (self.gain_db / 20)).astype(_out_dtype(arr))


class Vol:
    """Scale the waveform by `gain` (an amplitude ratio, a power ratio or decibels), then clip to [-1, 1]."""

    def __init__(self, gain, gain_type=GainType.AMPLITUDE) -> None:
        _num(gain, "gain", "Vol")
        gain_type = enum_arg(GainType, gain_type, "gain_type", "Vol")
        if gain_type in (GainType.AMPLITUDE, GainType.POWER) and gain < 0:
            raise ValueError(f"Vol: gain must be >= 0 for gain_type {gain_type.name}, but got {gain}.")
        if gain_type == GainType.POWER and gain == 0:
            raise ValueError("Vol: gain must be > 0 for gain_type POWER.")
        self.gain, self.gain_type = float(gain), gain_type

    def __call__(self, waveform):
        arr = _float(waveform, "Vol")
        x = arr.astype(np.float64)
        if self.gain_type == GainType.AMPLITUDE:
            x = x * self.gain
        elif self.gain_type == GainType.DB:
            x = x * 10 ** (self.gain / 20)
        else:
            x = x * 10 ** (10 * math.log10(self.gain) / 20)
        return np.clip(x, -1, 1).astype(_out_dtype(arr))


class Overdrive:
    """Non-linear distortion (like SoX `overdrive`): gain and color in [0, 100]."""

    def __init__(self, gain=20.0, color=20.0) -> None:
        self.gain = float(_num(gain, "gain", "Overdrive", 0, 100))
        self.color = float(_num(color, "color", "Overdrive", 0, 100))

    def __call__(self, waveform):
        arr = _float(waveform, "Overdrive")
        x = arr.astype(np.float64)
        gain = 10 ** (self.gain / 20)
        color = self.color / 200
        temp = x * gain + color
        temp = np.where(temp < -1, -2.0 / 3.0, np.where(temp > 1, 2.0 / 3.0, temp - temp**3 / 3))
        flat = temp.reshape(-1, temp.shape[-1])
        out = np.zeros_like(flat)
        last_in = np.zeros(flat.shape[0])
        last_out = np.zeros(flat.shape[0])
        for t in range(flat.shape[1]):
            last_out = flat[:, t] - last_in + 0.995 * last_out
            last_in = flat[:, t]
            out[:, t] = x.reshape(-1, x.shape[-1])[:, t] * 0.5 + last_out * 0.75
        return np.clip(out.reshape(x.shape), -1, 1).astype(_out_dtype(arr))


class Fade:
    """Fade in over the first `fade_in_len` samples and out over the last `fade_out_len`."""

    def __init__(self, fade_in_len=0, fade_out_len=0, fade_shape=FadeShape.LINEAR) -> None:
        self.fade_in_len = _num(fade_in_len, "fade_in_len", "Fade", 0, integer=True)
        self.fade_out_len = _num(fade_out_len, "fade_out_len", "Fade", 0, integer=True)
        self.fade_shape = FadeShape(fade_shape)

    def _curve(self, t: np.ndarray) -> np.ndarray:
        s = self.fade_shape
        if s == FadeShape.LINEAR:
            return t
        if s == FadeShape.EXPONENTIAL:
            return t * 2 ** (t - 1)  # MindSpore's exponential curve (torchaudio's differs)
        if s == FadeShape.LOGARITHMIC:
            return np.log10(0.1 + t) + 1
        if s == FadeShape.QUARTER_SINE:
            return np.sin(t * math.pi / 2)
        return np.sin(t * math.pi - math.pi / 2) / 2 + 0.5

    def __call__(self, waveform):
        arr = _float(waveform, "Fade")
        n = arr.shape[-1]
        if self.fade_in_len > n or self.fade_out_len > n:
            raise RuntimeError(f"Fade: fade lengths must not exceed the waveform length {n}.")
        gain = np.ones(n)
        if self.fade_in_len:
            t = np.linspace(0, 1, self.fade_in_len)
            gain[: self.fade_in_len] = self._curve(t)
        if self.fade_out_len:
            t = np.linspace(0, 1, self.fade_out_len)
            gain[n - self.fade_out_len :] *= self._curve(t)[::-1]
        return (arr.astype(np.float64) * gain).astype(_out_dtype(arr))


class _MuLaw:
    """The mu-law transforms' one argument: how many integer levels the companded signal has."""

    def __init__(self, quantization_channels=256) -> None:
        self.quantization_channels = _num(
            quantization_channels, "quantization_channels", type(self).__name__, 1, integer=True
        )

    def _input(self, x) -> tuple[np.ndarray, float]:
        """`x` as float64 and mu (the number of levels less one)."""
        return _float(x, type(self).__name__).astype(np.float64), self.quantization_channels - 1.0


class MuLawEncoding(_MuLaw):
    """mu-law companding of a waveform in [-1, 1] into ints in [0, quantization_channels) (int32)."""

    def __call__(self, waveform):
        arr, mu = self._input(waveform)
        x_mu = np.sign(arr) * np.log1p(mu * np.abs(arr)) / np.log1p(mu)
        return ((x_mu + 1) / 2 * mu + 0.5).astype(np.int32)


class MuLawDecoding(_MuLaw):
    """Inverse of MuLawEncoding: ints in [0, quantization_channels) to a waveform in [-1, 1] (float32)."""

    def __call__(self, x_mu):
        arr, mu = self._input(x_mu)
        x = arr / mu * 2 - 1.0
        out = np.sign(x) * (np.exp(np.abs(x) * np.log1p(mu)) - 1.0) / mu
        return out.astype(np.float32 if np.asarray(x_mu).dtype != np.float64 else np.float64)


class DBToAmplitude:
    """Decibels to amplitude: ref * (10 ** (x / 10)) ** power."""

    def __init__(self, ref, power) -> None:
        self.ref = float(_num(ref, "ref", "DBToAmplitude"))
        self.power = float(_num(power, "power", "DBToAmplitude"))

    def __call__(self, x):
        arr = _float(x, "DBToAmplitude")
        out = self.ref * np.power(np.power(10.0, 0.1 * arr.astype(np.float64)), self.power)
        return out.astype(_out_dtype(arr))


class AmplitudeToDB:
    """Power (or magnitude) spectrogram to decibels, floored at `top_db` below the maximum."""

    def __init__(self, stype=ScaleType.POWER, ref_value=1.0, amin=1e-10, top_db=80.0) -> None:
        self.stype = enum_arg(ScaleType, stype, "stype", "AmplitudeToDB")
        self.ref_value = float(_num(ref_value, "ref_value", "AmplitudeToDB", 0, low_open=True))
        self.amin = float(_num(amin, "amin", "AmplitudeToDB", 0, low_open=True))
        self.top_db = None if top_db is None else float(_num(top_db, "top_db", "AmplitudeToDB", 0, low_open=True))

    def __call__(self, x):
        arr = _float(x, "AmplitudeToDB")
        mult = 10.0 if self.stype == ScaleType.POWER else 20.0
        db = mult * np.log10(np.maximum(arr.astype(np.float64), self.amin))
        db -= mult * math.log10(max(self.amin, self.ref_value))
        if self.top_db is not None:
            if db.ndim >= 3:
                flat = db.reshape(-1, *db.shape[-3:])
                floor = flat.max(axis=(-3, -2, -1), keepdims=True) - self.top_db
                db = np.maximum(flat, floor).reshape(db.shape)
            else:
                db = np.maximum(db, db.max() - self.top_db)
        return db.astype(_out_dtype(arr))


def _complex_parts(x, op: str):
    arr = _float(x, op)
    if arr.ndim < 1 or arr.shape[-1] != 2:
        raise RuntimeError(f"{op}: the input must be a complex tensor of shape (..., 2), but got {arr.shape}.")
    return arr, arr[..., 0].astype(np.float64), arr[..., 1].astype(np.float64)


class ComplexNorm:
    """The norm of complex values (..., 2), raised to `power`."""

    def __init__(self, power=1.0) -> None:
        self.power = float(_num(power, "power", "ComplexNorm", 0))

    def __call__(self, x):
        arr, re_, im = _complex_parts(x, "ComplexNorm")
        sq = re_ * re_ + im * im
        out = np.sqrt(sq) if self.power == 1.0 else np.power(sq, self.power / 2)
        return out.astype(_out_dtype(arr))


class Angle:
    """The angle of complex values (..., 2)."""

    def __call__(self, x):
        arr, re_, im = _complex_parts(x, "Angle")
        return np.arctan2(im, re_).astype(_out_dtype(arr))


class Magphase:
    """Split complex values (..., 2) into their magnitude (raised to `power`) and phase."""

    def __init__(self, power=1.0) -> None:
        self.power = float(_num(power, "power", "Magphase", 0))

    def __call__(self, x):
        arr, re_, im = _complex_parts(x, "Magphase")
        mag = np.power(np.sqrt(re_ * re_ + im * im), self.power)
        return mag.astype(_out_dtype(arr)), np.arctan2(im, re_).astype(_out_dtype(arr))


class ComputeDeltas:
    """Delta coefficients of a spectrogram (..., freq, time) along time."""

    def __init__(self, win_length=5, pad_mode=BorderType.EDGE) -> None:
        self.win_length = _num(win_length, "win_length", "ComputeDeltas", 3, integer=True)
        self.pad_mode = enum_arg(BorderType, pad_mode, "pad_mode", "ComputeDeltas")

    def __call__(self, x):
        arr = _float(x, "ComputeDeltas")
        n = (self.win_length - 1) // 2
        denom = n * (n + 1) * (2 * n + 1) / 3
        pad = [(0, 0)] * (arr.ndim - 1) + [(n, n)]
        padded = np.pad(arr.astype(np.float64), pad, mode=self.pad_mode.value)
        t = arr.shape[-1]
        out = sum(k * padded[..., n + k : n + k + t] for k in range(-n, n + 1)) / denom
        return out.astype(_out_dtype(arr))


# -- masking -----------------------------------------------------------------------------------------------------


def _mask(arr: np.ndarray, axis: int, start: int, width: int, value: float) -> np.ndarray:
    out = arr.copy()
    index = [slice(None)] * arr.ndim
    index[axis] = slice(start, start + width)
    out[tuple(index)] = value
    return out


class _MaskOnGivenAxis:
    """A mask filled with `mask_value` along the input axis `axis` (1 frequency, 2 time) of (..., freq, time)."""

    def _keep_value_and_axis(self, mask_value, axis) -> None:
        op = type(self).__name__
        self.mask_value = float(_num(mask_value, "mask_value", op))
        self.axis = _num(axis, "axis", op, 1, 2, integer=True)

    def _input_and_axis(self, x) -> tuple[np.ndarray, int]:
        """The input as a float array, and the index of the masked axis in it."""
        arr = _float(x, type(self).__name__)
        return arr, arr.ndim - 3 + self.axis


class MaskAlongAxis(_MaskOnGivenAxis):
    """Set `mask_width` entries from `mask_start` along `axis` (1 frequency, 2 time) to `mask_value`."""

    def __init__(self, mask_start, mask_width, mask_value, axis) -> None:
        self.mask_start = _num(mask_start, "mask_start", "MaskAlongAxis", 0, integer=True)
        self.mask_width = _num(mask_width, "mask_width", "MaskAlongAxis", 1, integer=True)
        self._keep_value_and_axis(mask_value, axis)

    def __call__(self, x):
        arr, ax = self._input_and_axis(x)
        if self.mask_start + self.mask_width > arr.shape[ax]:
            raise RuntimeError(
                f"MaskAlongAxis: mask_start + mask_width ({self.mask_start + self.mask_width}) exceeds the size "
                f"{arr.shape[ax]} of axis {self.axis}."
            )
        return _mask(arr, ax, self.mask_start, self.mask_width, self.mask_value)


def _random_masks(arr, ax: int, param: int, value: float, iid: bool):
    """torchaudio's mask_along_axis(_iid): width = U*param, start = U*(size - width), floored."""
    gen = _rng.generator()
    size = arr.shape[ax]
    out = arr.copy()
    lead = arr.shape[: max(arr.ndim - 2, 0)] if iid else ()
    for idx in np.ndindex(*lead) if lead else [()]:
        width = gen.random() * param
        low = gen.random() * (size - width)
        start, end = int(math.floor(low)), int(math.floor(low + width))
        index = list(idx) + [slice(None)] * (arr.ndim - len(idx))
        index[ax] = slice(start, end)
        out[tuple(index)] = value
    return out


class MaskAlongAxisIID(_MaskOnGivenAxis):
    """A random mask (width uniform in [0, mask_param)) along `axis` (1 frequency, 2 time), drawn independently
    for every example and channel of a (..., channel, freq, time) input."""

    def __init__(self, mask_param, mask_value, axis) -> None:
        self.mask_param = _num(mask_param, "mask_param", "MaskAlongAxisIID", 0, integer=True)
        self._keep_value_and_axis(mask_value, axis)

    def __call__(self, x):
        arr, ax = self._input_and_axis(x)
        return _random_masks(arr, ax, self.mask_param, self.mask_value, True)


class _AxisMasking:
    _axis = -1

    def __init__(self, iid_masks=False, mask_param=0, mask_start=0, mask_value=0.0) -> None:
        op = type(self).__name__
        self.iid_masks = bool(iid_masks)
        self.mask_param = _num(mask_param, "mask_param", op, 0, integer=True)
        self.mask_start = _num(mask_start, "mask_start", op, 0, integer=True)
        self.mask_value = float(_num(mask_value, "mask_value", op))

    def __call__(self, x):
        arr = _float(x, type(self).__name__)
        ax = arr.ndim + self._axis
        if self.iid_masks:
            return _random_masks(arr, ax, self.mask_param, self.mask_value, True)
        width = int(_rng.generator().integers(0, self.mask_param + 1)) if self.mask_param else 0
        if self.mask_start + width > arr.shape[ax]:
            raise RuntimeError(f"{type(self).__name__}: mask_start + the mask width exceeds the axis size.")
        return _mask(arr, ax, self.mask_start, width, self.mask_value)


class TimeMasking(_AxisMasking):
    """Mask consecutive time steps (width uniform in [0, time_mask_param]) of a spectrogram."""

    def __init__(self, iid_masks=False, time_mask_param=0, mask_start=0, mask_value=0.0) -> None:
        super().__init__(iid_masks, time_mask_param, mask_start, mask_value)


class FrequencyMasking(_AxisMasking):
    """Mask consecutive frequency bins (width uniform in [0, freq_mask_param]) of a spectrogram."""

    _axis = -2

    def __init__(self, iid_masks=False, freq_mask_param=0, mask_start=0, mask_value=0.0) -> None:
        super().__init__(iid_masks, freq_mask_param, mask_start, mask_value)


# -- spectrograms --------------------------------------------------------------------------------------------------


def _window(kind: WindowType, length: int) -> np.ndarray:
    """Periodic windows (as torch's defaults)."""
    kind = WindowType(kind)
    if length == 1:
        return np.ones(1)
    n = np.arange(length)
    if kind == WindowType.HANN:
        return 0.5 - 0.5 * np.cos(2 * math.pi * n / length)
    if kind == WindowType.HAMMING:
        return 0.54 - 0.46 * np.cos(2 * math.pi * n / length)
    if kind == WindowType.BLACKMAN:
        return 0.42 - 0.5 * np.cos(2 * math.pi * n / length) + 0.08 * np.cos(4 * math.pi * n / length)
    if kind == WindowType.BARTLETT:
        return 1 - np.abs(2 * n / length - 1)
    return np.kaiser(length + 1, 12.0)[:-1]


def _stft(x: np.ndarray, n_fft, hop, win_length, window, center, pad_mode, onesided) -> np.ndarray:
    win = _window(window, win_length)
    if win_length < n_fft:
        left = (n_fft - win_length) // 2
        win = np.pad(win, (left, n_fft - win_length - left))
    if center:
        pad = [(0, 0)] * (x.ndim - 1) + [(n_fft // 2, n_fft // 2)]
        x = np.pad(x, pad, mode=BorderType(pad_mode).value)
    frames = 1 + (x.shape[-1] - n_fft) // hop
    if frames < 1:
        raise RuntimeError(f"Spectrogram: the waveform ({x.shape[-1]} samples after padding) is shorter than n_fft.")
    idx = np.arange(n_fft)[None, :] + hop * np.arange(frames)[:, None]
    seg = x[..., idx] * win
    spec = np.fft.rfft(seg, axis=-1) if onesided else np.fft.fft(seg, axis=-1)
    return np.swapaxes(spec, -1, -2), win


def _window_and_hop(n_fft: int, win_length, hop_length, op: str, window_fits: bool = False) -> tuple[int, int]:
    """The checked (win_length, hop_length) of an STFT: the window defaults to n_fft, the hop to half the window;
    with `window_fits`, a window longer than n_fft is refused."""
    win = n_fft if win_length is None else _num(win_length, "win_length", op, 1, integer=True)
    if window_fits and win > n_fft:
        raise ValueError(f"{op}: win_length ({win}) must not exceed n_fft ({n_fft}).")
    hop = win // 2 if hop_length is None else _num(hop_length, "hop_length", op, 1, integer=True)
    return win, hop


class Spectrogram:
    """Spectrogram (..., n_fft // 2 + 1, frames) of a waveform: |STFT| ** power."""

    def __init__(
        self,
        n_fft=400,
        win_length=None,
        hop_length=None,
        pad=0,
        window=WindowType.HANN,
        power=2.0,
        normalized=False,
        center=True,
        pad_mode=BorderType.REFLECT,
        onesided=True,
    ) -> None:
        self.n_fft = _num(n_fft, "n_fft", "Spectrogram", 1, integer=True)
        self.win_length, self.hop_length = _window_and_hop(self.n_fft, win_length, hop_length, "Spectrogram", True)
        self.pad = _num(pad, "pad", "Spectrogram", 0, integer=True)
        _num(power, "power", "Spectrogram", 0)
        self.window = enum_arg(WindowType, window, "window", "Spectrogram")
        self.power, self.normalized = power, bool(normalized)
        self.center, self.onesided = bool(center), bool(onesided)
        self.pad_mode = enum_arg(BorderType, pad_mode, "pad_mode", "Spectrogram")

    def _complex(self, arr):
        x = arr.astype(np.float64)
        if self.pad:
            x = np.pad(x, [(0, 0)] * (x.ndim - 1) + [(self.pad, self.pad)])
        spec, win = _stft(
            x, self.n_fft, self.hop_length, self.win_length, self.window, self.center, self.pad_mode, self.onesided
        )
        if self.normalized:
            spec = spec / math.sqrt(float((win**2).sum()))
        return spec

    def __call__(self, waveform):
        arr = _float(waveform, type(self).__name__)
        spec = self._complex(arr)
        mag = np.abs(spec)
        out = mag if self.power == 1.0 else mag**self.power
        return out.astype(_out_dtype(arr))


class SpectralCentroid(Spectrogram):
    """The spectral centroid of every frame, shape (..., 1, frames)."""

    def __init__(self, sample_rate, n_fft=400, win_length=None, hop_length=None, pad=0, window=WindowType.HANN):
        self.sample_rate = _num(sample_rate, "sample_rate", "SpectralCentroid", 0, integer=True)
        super().__init__(n_fft, win_length, hop_length, pad, window, power=1.0)

    def __call__(self, waveform):
        arr = _float(waveform, "SpectralCentroid")
        spec = np.abs(self._complex(arr))
        freqs = np.linspace(0, self.sample_rate // 2, 1 + self.n_fft // 2)[:, None]
        out = (freqs * spec).sum(axis=-2, keepdims=True) / spec.sum(axis=-2, keepdims=True)
        return out.astype(_out_dtype(arr))


def _along_frequency(spec: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    """`matrix` (freq, k) applied to the frequency axis of `spec` (..., freq, time): (..., k, time)."""
    return np.swapaxes(np.swapaxes(spec, -1, -2) @ matrix, -1, -2)


def _check_dct_type(dct_type, op: str) -> None:
    if dct_type != 2:
        raise ValueError(f"{op}: only dct_type 2 is supported, but got {dct_type}.")


class _Cepstrum:
    """The last step of MFCC and LFCC: log (or dB) of a filter-bank spectrogram, then its DCT over the filters."""

    def __init__(self, op: str, coefficients: tuple[str, int], filters: tuple[str, int], norm, use_log: bool) -> None:
        """`coefficients` and `filters`: (argument name, count) of the output coefficients and the filter bank;
        there may not be more coefficients than filters."""
        (coefficients_name, n_coefficients), (filters_name, n_filters) = coefficients, filters
        if n_coefficients > n_filters:
            raise ValueError(
                f"{op}: {coefficients_name} ({n_coefficients}) must not exceed {filters_name} ({n_filters})."
            )
        self._dct = create_dct(n_coefficients, n_filters, norm).astype(np.float64)
        self._use_log = bool(use_log)
        self._db = AmplitudeToDB(ScaleType.POWER, 1.0, 1e-10, 80.0)

    def __call__(self, filtered: np.ndarray) -> np.ndarray:
        filtered = np.log(filtered + 1e-6) if self._use_log else self._db(filtered)
        return _along_frequency(filtered, self._dct)


class MelScale:
    """A spectrogram (..., n_stft, time) on the mel scale (..., n_mels, time)."""

    def __init__(
        self, n_mels=128, sample_rate=16000, f_min=0.0, f_max=None, n_stft=201, norm=NormType.NONE, mel_type=MelType.HTK
    ) -> None:
        self.n_mels = _num(n_mels, "n_mels", "MelScale", 1, integer=True)
        self.sample_rate = _num(sample_rate, "sample_rate", "MelScale", 1, integer=True)
        self.f_min = float(f_min)
        self.f_max = float(sample_rate // 2 if f_max is None else f_max)
        self.n_stft = _num(n_stft, "n_stft", "MelScale", 1, integer=True)
        self.norm = enum_arg(NormType, norm, "norm", "MelScale")
        self.mel_type = enum_arg(MelType, mel_type, "mel_type", "MelScale")
        self._fb = melscale_fbanks(
            self.n_stft, self.f_min, self.f_max, self.n_mels, self.sample_rate, self.norm, self.mel_type
        ).astype(np.float64)

    def __call__(self, spec):
        arr = _float(spec, "MelScale")
        return _along_frequency(arr.astype(np.float64), self._fb).astype(_out_dtype(arr))


class MelSpectrogram:
    """Spectrogram followed by MelScale."""

    def __init__(
        self,
        sample_rate=16000,
        n_fft=400,
        win_length=None,
        hop_length=None,
        f_min=0.0,
        f_max=None,
        pad=0,
        n_mels=128,
        window=WindowType.HANN,
        power=2.0,
        normalized=False,
        center=True,
        pad_mode=BorderType.REFLECT,
        onesided=True,
        norm=NormType.NONE,
        mel_scale=MelType.HTK,
    ) -> None:
        self._spec = Spectrogram(
            n_fft, win_length, hop_length, pad, window, power, normalized, center, pad_mode, onesided
        )
        self._mel = MelScale(n_mels, sample_rate, f_min, f_max, n_fft // 2 + 1, norm, mel_scale)

    def __call__(self, waveform):
        return self._mel(self._spec(waveform))


class MFCC:
    """Mel-frequency cepstral coefficients (..., n_mfcc, time): DCT of the (log or dB) mel spectrogram."""

    def __init__(
        self, sample_rate=16000, n_mfcc=40, dct_type=2, norm=NormMode.ORTHO, log_mels=False, melkwargs=None
    ) -> None:
        _check_dct_type(dct_type, "MFCC")
        kwargs = dict(melkwargs or {})
        kwargs.setdefault("sample_rate", sample_rate)
        self._mel = MelSpectrogram(**kwargs)
        n_mels = self._mel._mel.n_mels
        self._cepstrum = _Cepstrum("MFCC", ("n_mfcc", n_mfcc), ("n_mels", n_mels), norm, log_mels)
        self.log_mels = bool(log_mels)

    def __call__(self, waveform):
        arr = _float(waveform, "MFCC")
        return self._cepstrum(self._mel(arr.astype(np.float64))).astype(_out_dtype(arr))


class LFCC:
    """Linear-frequency cepstral coefficients (..., n_lfcc, time)."""

    def __init__(
        self,
        sample_rate=16000,
        n_filter=128,
        n_lfcc=40,
        f_min=0.0,
        f_max=None,
        dct_type=2,
        norm=NormMode.ORTHO,
        log_lf=False,
        speckwargs=None,
    ) -> None:
        _check_dct_type(dct_type, "LFCC")
        kwargs = dict(speckwargs or {})
        self._spec = Spectrogram(**kwargs)
        f_max = float(sample_rate // 2 if f_max is None else f_max)
        self._fb = linear_fbanks(self._spec.n_fft // 2 + 1, f_min, f_max, n_filter, sample_rate).astype(np.float64)
        self._cepstrum = _Cepstrum("LFCC", ("n_lfcc", n_lfcc), ("n_filter", n_filter), norm, log_lf)
        self.log_lf = bool(log_lf)

    def __call__(self, waveform):
        arr = _float(waveform, "LFCC")
        linear = _along_frequency(self._spec(arr.astype(np.float64)), self._fb)
        return self._cepstrum(linear).astype(_out_dtype(arr))


def _phase_vocoder(arr: np.ndarray, rate: float, phase_advance: np.ndarray) -> np.ndarray:
    spec = arr[..., 0].astype(np.float64) + 1j * arr[..., 1].astype(np.float64)
    if rate == 1.0:
        return arr.copy()
    t = spec.shape[-1]
    steps = np.arange(0, t, rate)
    alphas = np.mod(steps, 1.0)
    phase_0 = np.angle(spec[..., :1])
    spec = np.concatenate([spec, np.zeros(spec.shape[:-1] + (2,))], axis=-1)
    c0 = spec[..., steps.astype(np.int64)]
    c1 = spec[..., (steps + 1).astype(np.int64)]
    phase = np.angle(c1) - np.angle(c0) - phase_advance
    phase = phase - 2 * math.pi * np.round(phase / (2 * math.pi))
    phase = phase + phase_advance
    phase = np.concatenate([phase_0, phase[..., :-1]], axis=-1)
    acc = np.cumsum(phase, axis=-1)
    mag = alphas * np.abs(c1) + (1 - alphas) * np.abs(c0)
    out = mag * np.exp(1j * acc)
    return np.stack([out.real, out.imag], axis=-1)


class PhaseVocoder:
    """Speed a complex spectrogram (..., freq, time, 2) up by `rate` without changing its pitch."""

    def __init__(self, rate, phase_advance) -> None:
        self.rate = float(_num(rate, "rate", "PhaseVocoder", 0, low_open=True))
        if not isinstance(phase_advance, np.ndarray):
            raise TypeError(f"PhaseVocoder: phase_advance must be a numpy.ndarray, got {type(phase_advance).__name__}.")
        self._dtype = phase_advance.dtype
        self.phase_advance = phase_advance.astype(np.float64)

    def __call__(self, x):
        arr, _, _ = _complex_parts(x, "PhaseVocoder")
        if self._dtype != arr.dtype:
            raise RuntimeError(
                f"PhaseVocoder: phase_advance ({self._dtype}) and the input ({arr.dtype}) must have the same dtype."
            )
        return _phase_vocoder(arr, self.rate, self.phase_advance.reshape(-1, 1)).astype(_out_dtype(arr))


class TimeStretch:
    """PhaseVocoder with torchaudio's phase advance for `n_freq` bins and `hop_length` (default n_fft // 2)."""

    def __init__(self, hop_length=None, n_freq=201, fixed_rate=None) -> None:
        self.n_freq = _num(n_freq, "n_freq", "TimeStretch", 1, integer=True)
        n_fft = (self.n_freq - 1) * 2
        self.hop_length = (
            n_fft // 2 if hop_length is None else _num(hop_length, "hop_length", "TimeStretch", 1, integer=True)
        )
        if fixed_rate is not None:
            _num(fixed_rate, "fixed_rate", "TimeStretch", 0, low_open=True)
        self.fixed_rate = 1.0 if fixed_rate is None else float(fixed_rate)
        self._advance = np.linspace(0, math.pi * self.hop_length, self.n_freq)[:, None]

    def __call__(self, x):
        arr, _, _ = _complex_parts(x, "TimeStretch")
        if arr.ndim < 3 or arr.shape[-3] != self.n_freq:
            raise RuntimeError(
                f"TimeStretch: the input must be (..., {self.n_freq}, time, 2), but got shape {arr.shape}."
            )
        return _phase_vocoder(arr, self.fixed_rate, self._advance).astype(_out_dtype(arr))


def _padded_window(window, win_length: int, n_fft: int) -> np.ndarray:
    win = _window(window, win_length)
    if win_length < n_fft:
        left = (n_fft - win_length) // 2
        win = np.pad(win, (left, n_fft - win_length - left))
    return win


def _istft(spec: np.ndarray, n_fft: int, hop: int, win: np.ndarray, center: bool, length, onesided: bool):
    """Inverse STFT of a complex (..., freq, frames) array by windowed overlap-add (torch.istft's algorithm)."""
    frames = np.fft.irfft(spec, n=n_fft, axis=-2) if onesided else np.fft.ifft(spec, n=n_fft, axis=-2).real
    frames = frames * win[:, None]
    count = frames.shape[-1]
    total = n_fft + hop * (count - 1)
    out = np.zeros(frames.shape[:-2] + (total,))
    env = np.zeros(total)
    for k in range(count):
        out[..., k * hop : k * hop + n_fft] += frames[..., k]
        env[k * hop : k * hop + n_fft] += win**2
    start = n_fft // 2 if center else 0
    end = total - (n_fft // 2 if center else 0) if length is None else start + length
    out, env = out[..., start:end], env[start:end]
    out = np.where(env > 1e-11, out / np.where(env > 1e-11, env, 1.0), out)
    if length is not None and out.shape[-1] < length:
        out = np.pad(out, [(0, 0)] * (out.ndim - 1) + [(0, length - out.shape[-1])])
    return out


class InverseSpectrogram:
    """Waveform (..., time) from a complex spectrogram (..., freq, frames, 2): inverse STFT by overlap-add.

    Args: as Spectrogram, plus length (the output length; None: from the frames).
    """

    def __init__(self, length=None, n_fft=400, win_length=None, hop_length=None, pad=0, window=WindowType.HANN,
                 normalized=False, center=True, pad_mode=BorderType.REFLECT, onesided=True) -> None:  # fmt: skip
        self.length = None if length is None else _num(length, "length", "InverseSpectrogram", 0, integer=True)
        self.n_fft = _num(n_fft, "n_fft", "InverseSpectrogram", 1, integer=True)
        self.win_length, self.hop_length = _window_and_hop(self.n_fft, win_length, hop_length, "InverseSpectrogram")
        self.pad = _num(pad, "pad", "InverseSpectrogram", 0, integer=True)
        self.window = enum_arg(WindowType, window, "window", "InverseSpectrogram")
        self.normalized, self.center = bool(normalized), bool(center)
        self.pad_mode = enum_arg(BorderType, pad_mode, "pad_mode", "InverseSpectrogram")
        self.onesided = bool(onesided)

    def __call__(self, x):
        arr, re_, im = _complex_parts(x, "InverseSpectrogram")
        spec = re_ + 1j * im
        win = _padded_window(self.window, self.win_length, self.n_fft)
        if self.normalized:
            spec = spec * math.sqrt(float((win**2).sum()))
        length = None if self.length is None else self.length + 2 * self.pad
        out = _istft(spec, self.n_fft, self.hop_length, win, self.center, length, self.onesided)
        if self.pad:
            out = out[..., self.pad : -self.pad]
        return out.astype(_out_dtype(arr))


class GriffinLim:
    """Waveform from a magnitude or power spectrogram (..., freq, frames) by the Griffin-Lim phase recovery.

    Args:
        n_fft, win_length, hop_length, window_type: the STFT of the spectrogram.
        n_iter: iterations.
        power: the spectrogram's exponent (1 magnitude, 2 power).
        momentum: the fast Griffin-Lim momentum, in [0, 1).
        length: the output length (None: from the frames).
        rand_init: start from random phases (else zero phases).
    """

    def __init__(self, n_fft=400, n_iter=32, win_length=None, hop_length=None, window_type=WindowType.HANN,
                 power=2.0, momentum=0.99, length=None, rand_init=True) -> None:  # fmt: skip
        self.n_fft = _num(n_fft, "n_fft", "GriffinLim", 1, integer=True)
        self.n_iter = _num(n_iter, "n_iter", "GriffinLim", 1, integer=True)
        self.win_length, self.hop_length = _window_and_hop(self.n_fft, win_length, hop_length, "GriffinLim")
        self.window = enum_arg(WindowType, window_type, "window_type", "GriffinLim")
        self.power = float(_num(power, "power", "GriffinLim", 0, low_open=True))
        self.momentum = float(_num(momentum, "momentum", "GriffinLim", 0))
        self.length = None if length is None else _num(length, "length", "GriffinLim", 0, integer=True)
        self.rand_init = bool(rand_init)

    def __call__(self, x):
        arr = _float(x, "GriffinLim")
        if arr.shape[-2] != self.n_fft // 2 + 1:
            raise RuntimeError(f"GriffinLim: the spectrogram must have n_fft // 2 + 1 = {self.n_fft // 2 + 1} "
                               f"frequency bins, but got {arr.shape[-2]}.")  # fmt: skip
        mag = np.power(arr.astype(np.float64), 1.0 / self.power)
        win = _padded_window(self.window, self.win_length, self.n_fft)
        if self.rand_init:
            angles = np.exp(2j * math.pi * _rng.generator().random(mag.shape))
        else:
            angles = np.ones(mag.shape, dtype=np.complex128)
        prev = np.zeros(mag.shape, dtype=np.complex128)
        for _ in range(self.n_iter):
            wave_ = _istft(mag * angles, self.n_fft, self.hop_length, win, True, None, True)  # length: at the end
            rebuilt, _ = _stft(wave_, self.n_fft, self.hop_length, self.win_length, self.window, True,
                               BorderType.REFLECT, True)  # fmt: skip
            angles = rebuilt - prev * (self.momentum / (1 + self.momentum)) if self.momentum else rebuilt
            angles = angles / (np.abs(angles) + 1e-16)
            prev = rebuilt
        out = _istft(mag * angles, self.n_fft, self.hop_length, win, True, self.length, True)
        return out.astype(_out_dtype(arr))


class Resample:
    """Change the sample rate by band-limited (windowed sinc) interpolation, as torchaudio's resample.

    Args:
        orig_freq, new_freq: the sample rates.
        resample_method: ResampleMethod.SINC_INTERPOLATION (Hann window) or KAISER_WINDOW.
        lowpass_filter_width: the filter's half width in zero crossings.
        rolloff: the cutoff as a fraction of the lower Nyquist frequency.
        beta: the Kaiser window's shape (default 14.769656459379492).
    """

    def __init__(self, orig_freq=16000, new_freq=16000, resample_method=None, lowpass_filter_width=6,
                 rolloff=0.99, beta=None) -> None:  # fmt: skip
        self.orig_freq = _num(orig_freq, "orig_freq", "Resample", 0, low_open=True)
        self.new_freq = _num(new_freq, "new_freq", "Resample", 0, low_open=True)
        self.resample_method = ResampleMethod(resample_method or ResampleMethod.SINC_INTERPOLATION)
        self.lowpass_filter_width = _num(lowpass_filter_width, "lowpass_filter_width", "Resample", 1, integer=True)
        self.rolloff = float(_num(rolloff, "rolloff", "Resample", 0, 1, low_open=True))
        self.beta = 14.769656459379492 if beta is None else float(beta)

    def __call__(self, waveform):
        arr = _float(waveform, "Resample")
        if self.orig_freq == self.new_freq:
            return arr.astype(_out_dtype(arr))
        g = math.gcd(int(self.orig_freq), int(self.new_freq))
        orig, new = int(self.orig_freq) // g, int(self.new_freq) // g
        lw = self.lowpass_filter_width
        base = min(orig, new) * self.rolloff
        width = math.ceil(lw * orig / base)
        idx = np.arange(-width, width + orig, dtype=np.float64)[None, :] / orig
        t = (np.arange(0, -new, -1, dtype=np.float64)[:, None] / new + idx) * base
        t = np.clip(t, -lw, lw)
        if self.resample_method == ResampleMethod.SINC_INTERPOLATION:
            win = np.cos(t * math.pi / lw / 2) ** 2
        else:
            win = np.i0(self.beta * np.sqrt(1 - (t / lw) ** 2)) / np.i0(self.beta)
        t = t * math.pi
        kernels = np.where(t == 0, 1.0, np.sin(t) / np.where(t == 0, 1.0, t)) * win * (base / orig)
        flat = arr.reshape(-1, arr.shape[-1]).astype(np.float64)
        n = flat.shape[1]
        padded = np.pad(flat, [(0, 0), (width, width + orig)])
        steps = (padded.shape[1] - kernels.shape[1]) // orig + 1
        frames = np.lib.stride_tricks.sliding_window_view(padded, kernels.shape[1], axis=1)[:, ::orig][:, :steps]
        out = np.einsum("bsk,nk->bsn", frames, kernels).reshape(flat.shape[0], -1)
        out = out[:, : math.ceil(new * n / orig)]
        return out.reshape(arr.shape[:-1] + (out.shape[-1],)).astype(_out_dtype(arr))


__all__ += ["GriffinLim", "InverseSpectrogram", "Resample"]  # noqa: PLE0605


class SlidingWindowCmn:
    """Cepstral mean (and variance) normalization over a sliding window of frames (Kaldi's apply-cmvn-sliding),
    for a (..., time, freq) feature matrix.

    Args:
        cmn_window: frames in the running window.
        min_cmn_window: the least frames used at the start (when center is False).
        center: center the window on the frame (else it ends at the frame).
        norm_vars: also divide by the standard deviation.
    """

    def __init__(self, cmn_window=600, min_cmn_window=100, center=False, norm_vars=False) -> None:
        self.cmn_window = _num(cmn_window, "cmn_window", "SlidingWindowCmn", 0, integer=True)
        self.min_cmn_window = _num(min_cmn_window, "min_cmn_window", "SlidingWindowCmn", 0, integer=True)
        self.center, self.norm_vars = bool(center), bool(norm_vars)

    def __call__(self, x):
        arr = _float(x, "SlidingWindowCmn")
        if arr.ndim < 2:
            raise RuntimeError(f"SlidingWindowCmn: the input must be (..., time, freq), but got shape {arr.shape}.")
        frames, feats = arr.shape[-2:]
        spec = arr.reshape(-1, frames, feats).astype(np.float64)
        out = np.zeros_like(spec)
        cur_sum = np.zeros((spec.shape[0], feats))
        cur_sq = np.zeros_like(cur_sum)
        last_start = last_end = -1
        for t in range(frames):
            if self.center:
                start = t - self.cmn_window // 2
                end = start + self.cmn_window
            else:
                start, end = t - self.cmn_window, t + 1
            if start < 0:
                end -= start
                start = 0
            if not self.center and end > t:
                end = max(t + 1, self.min_cmn_window)
            if end > frames:
                start -= end - frames
                end = frames
                start = max(start, 0)
            if last_start == -1:
                part = spec[:, start : end - start]  # Kaldi's (and torchaudio's) first-window slice
                cur_sum += part.sum(axis=1)
                if self.norm_vars:
                    cur_sq += (part**2).sum(axis=1)
            else:
                if start > last_start:
                    cur_sum -= spec[:, last_start]
                    if self.norm_vars:
                        cur_sq -= spec[:, last_start] ** 2
                if end > last_end:
                    cur_sum += spec[:, last_end]
                    if self.norm_vars:
                        cur_sq += spec[:, last_end] ** 2
            n = end - start
            last_start, last_end = start, end
            out[:, t] = spec[:, t] - cur_sum / n
            if self.norm_vars:
                if n == 1:
                    out[:, t] = 0.0
                else:
                    var = cur_sq / n - (cur_sum / n) ** 2
                    out[:, t] *= np.power(var, -0.5)
        return out.reshape(arr.shape).astype(_out_dtype(arr))


__all__ += ["SlidingWindowCmn"]  # noqa: PLE0605


class DetectPitchFrequency:
    """Pitch (Hz) of every frame by normalized cross-correlation, median-smoothed (torchaudio's algorithm).

    Args:
        sample_rate: the waveform's sample rate.
        frame_time: frame duration in seconds.
        win_length: the median filter's length in frames.
        freq_low, freq_high: the pitch range searched, in Hz.
    """

    def __init__(self, sample_rate, frame_time=0.01, win_length=30, freq_low=85, freq_high=3400) -> None:
        self.sample_rate = _num(sample_rate, "sample_rate", "DetectPitchFrequency", 1, integer=True)
        self.frame_time = float(_num(frame_time, "frame_time", "DetectPitchFrequency", 0, low_open=True))
        self.win_length = _num(win_length, "win_length", "DetectPitchFrequency", 1, integer=True)
        self.freq_low = _num(freq_low, "freq_low", "DetectPitchFrequency", 0, low_open=True)
        self.freq_high = _num(freq_high, "freq_high", "DetectPitchFrequency", 0, low_open=True)

    def __call__(self, waveform):
        arr = _float(waveform, "DetectPitchFrequency")
        x = arr.reshape(-1, arr.shape[-1]).astype(np.float64)
        sr, eps = self.sample_rate, 1e-9
        lags = int(math.ceil(sr / self.freq_low))
        size = int(math.ceil(sr * self.frame_time))
        count = int(math.ceil(x.shape[-1] / size))
        x = np.pad(x, [(0, 0), (0, lags + count * size - x.shape[-1])])
        nccf = np.empty((x.shape[0], count, lags))
        for lag in range(1, lags + 1):
            s1 = x[:, :-lag][:, : count * size].reshape(x.shape[0], count, size)
            s2 = x[:, lag:][:, : count * size].reshape(x.shape[0], count, size)
            nccf[..., lag - 1] = (
                (s1 * s2).sum(-1) / (eps + np.linalg.norm(s1, axis=-1)) ** 2 / (eps + np.linalg.norm(s2, axis=-1)) ** 2
            )
        lag_min = int(math.ceil(sr / self.freq_high))
        best_i = np.argmax(nccf[..., lag_min:], -1)
        best_v = np.take_along_axis(nccf[..., lag_min:], best_i[..., None], -1)[..., 0]
        half = nccf.shape[-1] // 2
        half_i = np.argmax(nccf[..., lag_min:half], -1)
        half_v = np.take_along_axis(nccf[..., lag_min:half], half_i[..., None], -1)[..., 0]
        idx = np.where(half_v > 0.99 * best_v, half_i, best_i) + lag_min + 1
        pad = (self.win_length - 1) // 2
        idx = np.concatenate([np.repeat(idx[:, :1], pad, axis=1), idx], axis=1).astype(np.float64)
        windows = np.lib.stride_tricks.sliding_window_view(idx, self.win_length, axis=1)
        med = np.sort(windows, axis=-1)[..., (self.win_length - 1) // 2]
        freq = sr / (eps + med)
        return freq.reshape(arr.shape[:-1] + (freq.shape[-1],)).astype(_out_dtype(arr))


__all__ += ["DetectPitchFrequency"]  # noqa: PLE0605


def _wave_table(kind: str, size: int, low: float, high: float, phase: float, as_int: bool = True) -> np.ndarray:
    """A modulation table (sine or triangle) as SoX builds it, rounded to ints or as float32."""
    offset = int(phase / math.pi / 2 * size + 0.5)
    point = (np.arange(size) + offset) % size
    if kind == "sine":
        d = (np.sin(point / size * 2 * math.pi) + 1) / 2
    else:
        d = point * 2.0 / size
        quarter = (4 * point) // size
        d = np.select([quarter == 0, quarter == 1, quarter == 2, quarter == 3], [d + 0.5, 1.5 - d, 1.5 - d, d - 1.5])
    d = d * (high - low) + low
    if not as_int:
        return d.astype(np.float32)
    return np.where(d < 0, d - 0.5, d + 0.5).astype(np.int64)


class Phaser:
    """Phaser effect (like SoX `phaser`): a modulated, decaying delay line mixed into the signal.

    Args:
        sample_rate: the waveform's sample rate.
        gain_in, gain_out: input and output gains, in [0, 1] and [0, 1e9].
        delay_ms: the delay in milliseconds, in [0, 5].
        decay: the feedback decay, in [0, 0.99].
        mod_speed: the modulation speed in Hz, in [0.1, 2].
        sinusoidal: sine modulation (else triangle).
    """

    def __init__(self, sample_rate, gain_in=0.4, gain_out=0.74, delay_ms=3.0, decay=0.4, mod_speed=0.5,
                 sinusoidal=True) -> None:  # fmt: skip
        self.sample_rate = _num(sample_rate, "sample_rate", "Phaser", integer=True)
        self.gain_in = float(_num(gain_in, "gain_in", "Phaser", 0, 1))
        self.gain_out = float(_num(gain_out, "gain_out", "Phaser", 0, 1e9))
        self.delay_ms = float(_num(delay_ms, "delay_ms", "Phaser", 0, 5))
        self.decay = float(_num(decay, "decay", "Phaser", 0, 0.99))
        self.mod_speed = float(_num(mod_speed, "mod_speed", "Phaser", 0.1, 2))
        self.sinusoidal = bool(sinusoidal)

    def __call__(self, waveform):
        arr = _float(waveform, "Phaser")
        x = arr.reshape(-1, arr.shape[-1]).astype(np.float64) * self.gain_in
        buf_len = int(self.delay_ms * 0.001 * self.sample_rate + 0.5)
        mod_len = int(self.sample_rate / self.mod_speed + 0.5)
        mod = _wave_table("sine" if self.sinusoidal else "triangle", mod_len, 1.0, float(buf_len), math.pi / 2)
        buf = np.zeros((x.shape[0], max(buf_len, 1)))
        out = np.empty_like(x)
        delay_pos = mod_pos = 0
        for i in range(x.shape[1]):
            idx = int((delay_pos + mod[mod_pos]) % buf_len)
            mod_pos = (mod_pos + 1) % mod_len
            delay_pos = (delay_pos + 1) % buf_len
            temp = x[:, i] + buf[:, idx]
            buf[:, delay_pos] = temp * self.decay
            out[:, i] = temp
        out = np.clip(out * self.gain_out, -1, 1)
        return out.reshape(arr.shape).astype(_out_dtype(arr))


__all__ += ["Phaser"]  # noqa: PLE0605


class Flanger:
    """Flanger effect (like SoX `flanger`) on a (..., channels <= 4, time) waveform.

    Args:
        sample_rate: the waveform's sample rate.
        delay: base delay in ms, in [0, 30].
        depth: swept delay depth in ms, in [0, 10].
        regen: feedback in percent, in [-95, 95].
        width: delayed signal mixed in, in percent, in [0, 100].
        speed: sweeps per second, in [0.1, 10].
        phase: swept-wave phase shift between channels in percent, in [0, 100].
        modulation: Modulation.SINUSOIDAL or TRIANGULAR.
        interpolation: Interpolation.LINEAR or QUADRATIC.
    """

    def __init__(self, sample_rate, delay=0.0, depth=2.0, regen=0.0, width=71.0, speed=0.5, phase=25.0,
                 modulation=None, interpolation=None) -> None:  # fmt: skip
        self.sample_rate = _num(sample_rate, "sample_rate", "Flanger", integer=True)
        self.delay = float(_num(delay, "delay", "Flanger", 0, 30))
        self.depth = float(_num(depth, "depth", "Flanger", 0, 10))
        self.regen = float(_num(regen, "regen", "Flanger", -95, 95))
        self.width = float(_num(width, "width", "Flanger", 0, 100))
        self.speed = float(_num(speed, "speed", "Flanger", 0.1, 10))
        self.phase = float(_num(phase, "phase", "Flanger", 0, 100))
        self.modulation = Modulation(modulation or Modulation.SINUSOIDAL)
        self.interpolation = Interpolation(interpolation or Interpolation.LINEAR)

    def __call__(self, waveform):
        arr = _float(waveform, "Flanger")
        if arr.ndim < 2 or arr.shape[-2] > 4:
            raise RuntimeError(f"Flanger: the input must be (..., channels <= 4, time), but got shape {arr.shape}.")
        x = arr.reshape(-1, arr.shape[-2], arr.shape[-1]).astype(np.float64)
        sr = self.sample_rate
        feedback, delay_gain, ch_phase = self.regen / 100, self.width / 100, self.phase / 100
        delay_min, delay_depth = self.delay / 1000, self.depth / 1000
        in_gain = 1.0 / (1 + delay_gain)
        delay_gain = delay_gain / (1 + delay_gain) * (1 - abs(feedback))
        buf_len = int((delay_min + delay_depth) * sr + 0.5) + 2
        bufs = np.zeros(x.shape[:2] + (buf_len,))
        last = np.zeros(x.shape[:2])
        lfo_len = int(sr / self.speed)
        kind = "sine" if self.modulation.value == "sinusoidal" else "triangle"
        lfo = _wave_table(kind, lfo_len, float(math.floor(delay_min * sr + 0.5)), buf_len - 2.0, 3 * math.pi / 2,
                          as_int=False).astype(np.float64)  # fmt: skip
        chans = np.arange(x.shape[1])
        shift = (chans * lfo_len * ch_phase + 0.5).astype(np.int64)
        out = np.empty_like(x)
        pos = lfo_pos = 0
        quadratic = self.interpolation.value == "quadratic"
        for i in range(x.shape[-1]):
            pos = (pos + buf_len - 1) % buf_len
            d = lfo[(lfo_pos + shift) % lfo_len]
            frac = d - np.floor(d)
            k = np.floor(d).astype(np.int64)
            bufs[:, :, pos] = x[:, :, i] + last * feedback
            d0 = bufs[:, chans, (pos + k) % buf_len]
            d1 = bufs[:, chans, (pos + k + 1) % buf_len]
            if quadratic:
                d2 = bufs[:, chans, (pos + k + 2) % buf_len] - d0
                d1 = d1 - d0
                a, b = d2 * 0.5 - d1, d1 * 2 - d2 * 0.5
                delayed = d0 + (a * frac + b) * frac
            else:
                delayed = d0 + (d1 - d0) * frac
            last = delayed
            out[:, :, i] = x[:, :, i] * in_gain + delayed * delay_gain
            lfo_pos = (lfo_pos + 1) % lfo_len
        return np.clip(out, -1, 1).reshape(arr.shape).astype(_out_dtype(arr))


__all__ += ["Flanger"]  # noqa: PLE0605


class Dither:
    """Dither to 16-bit resolution: the waveform is scaled to 16-bit steps, noise added, rounded and scaled back.

    Args:
        density_function: DensityFunction.TPDF (a triangular ramp over time, no randomness), RPDF (one random
            sample of the signal minus 0.5) or GPDF (a sum of seven random samples of the signal).
        noise_shaping: add the previous sample's quantization error (first-order noise shaping).
    """

    def __init__(self, density_function=None, noise_shaping=False) -> None:
        self.density_function = DensityFunction(density_function or DensityFunction.TPDF)
        self.noise_shaping = bool(noise_shaping)

    def __call__(self, waveform):
        arr = _float(waveform, "Dither")
        x = arr.reshape(-1, arr.shape[-1]).astype(np.float64)
        chans, times = x.shape[0] - 1, x.shape[1] - 1
        gen = _rng.generator()
        scaled = x * (2**15 - 2)
        kind = self.density_function.value
        if kind == "RPDF":
            noise = x[int(gen.integers(chans)) if chans else 0, int(gen.integers(times)) if times else 0] - 0.5
        elif kind == "GPDF":
            noise = x[int(gen.integers(chans)) if chans else 0, int(gen.integers(times)) if times else 0]
            for _ in range(6):
                noise = noise + x[int(gen.integers(chans)) if chans else 0, int(gen.integers(times)) if times else 0]
        else:
            noise = np.bartlett(times + 2)[:-1] if times else np.ones(1)  # a periodic Bartlett window
        out = np.round(scaled + noise) / 2**15
        if self.noise_shaping:
            err = out - x
            out = out + np.concatenate([np.zeros((x.shape[0], 1)), err[:, :-1]], axis=1)
        return out.reshape(arr.shape).astype(_out_dtype(arr))


__all__ += ["Dither"]  # noqa: PLE0605


class PitchShift:
    """Shift the pitch by `n_steps` steps of an octave divided in `bins_per_octave`, keeping the duration:
    a phase-vocoder time stretch followed by resampling.

    Args:
        sample_rate: the waveform's sample rate.
        n_steps: the shift in steps (may be negative).
        bins_per_octave: steps per octave.
        n_fft, win_length, hop_length, window: the STFT of the stretch (defaults n_fft, n_fft // 4, Hann).
    """

    def __init__(self, sample_rate, n_steps, bins_per_octave=12, n_fft=512, win_length=None, hop_length=None,
                 window=WindowType.HANN) -> None:  # fmt: skip
        self.sample_rate = _num(sample_rate, "sample_rate", "PitchShift", 1, integer=True)
        self.n_steps = _num(n_steps, "n_steps", "PitchShift", integer=True)
        self.bins_per_octave = _num(bins_per_octave, "bins_per_octave", "PitchShift", integer=True)
        if self.bins_per_octave == 0:
            raise ValueError("PitchShift: bins_per_octave must not be 0.")
        self.n_fft = _num(n_fft, "n_fft", "PitchShift", 1, integer=True)
        self.win_length = n_fft if win_length is None else _num(win_length, "win_length", "PitchShift", 1,
                                                                  integer=True)  # fmt: skip
        self.hop_length = n_fft // 4 if hop_length is None else _num(hop_length, "hop_length", "PitchShift", 1,
                                                                       integer=True)  # fmt: skip
        self.window = enum_arg(WindowType, window, "window", "PitchShift")

    def __call__(self, waveform):
        arr = _float(waveform, "PitchShift")
        x = arr.reshape(-1, arr.shape[-1]).astype(np.float64)
        n = x.shape[-1]
        rate = 2.0 ** (-float(self.n_steps) / self.bins_per_octave)
        spec, _ = _stft(x, self.n_fft, self.hop_length, self.win_length, self.window, True, BorderType.REFLECT, True)
        advance = np.linspace(0, math.pi * self.hop_length, spec.shape[-2])[:, None]
        pair = np.stack([spec.real, spec.imag], axis=-1)
        stretched = _phase_vocoder(pair, rate, advance)
        stretched = stretched[..., 0] + 1j * stretched[..., 1]
        win = _padded_window(self.window, self.win_length, self.n_fft)
        wave_ = _istft(stretched, self.n_fft, self.hop_length, win, True, int(round(n / rate)), True)
        shifted = Resample(int(self.sample_rate / rate), self.sample_rate)(wave_)
        shifted = shifted[..., :n] if shifted.shape[-1] > n else np.pad(shifted, [(0, 0), (0, n - shifted.shape[-1])])
        return shifted.reshape(arr.shape).astype(_out_dtype(arr))


__all__ += ["PitchShift"]  # noqa: PLE0605
