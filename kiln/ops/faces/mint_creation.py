"""mint's faces that make tensors: filled, ranges, the identity, and random draws (PyTorch's size and dtype
arguments over the functional ops)."""

from __future__ import annotations

from kiln._core import dtype as mstype
from kiln._core.tensor import Tensor
from kiln._core.unsupported import GLOBAL_STREAM, ignore_argument
from kiln.ops.faces.mint_args import _cast, _default_float, _float_dtype, _size
from kiln.ops.faces.row import _named, ops

__all__ = [
    "_mint_arange",
    "_mint_bernoulli",
    "_mint_empty",
    "_mint_empty_like",
    "_mint_eye",
    "_mint_full",
    "_mint_full_like",
    "_mint_linspace",
    "_mint_multinomial",
    "_mint_normal",
    "_mint_ones",
    "_mint_ones_like",
    "_mint_rand",
    "_mint_rand_like",
    "_mint_randint",
    "_mint_randint_like",
    "_mint_randn",
    "_mint_randn_like",
    "_mint_randperm",
    "_mint_zeros",
    "_mint_zeros_like",
]


@_named("zeros")
def _mint_zeros(size, *, dtype=None) -> Tensor:
    """Tensor of zeros (float32 unless `dtype`)."""
    return ops.zeros(_size((size,), "zeros"), _default_float(dtype))


@_named("ones")
def _mint_ones(size, *, dtype=None) -> Tensor:
    """Tensor of ones (float32 unless `dtype`)."""
    return ops.ones(_size((size,), "ones"), _default_float(dtype))


@_named("empty")
def _mint_empty(*size, dtype=None, device=None, pin_memory: bool = False) -> Tensor:
    """A tensor of `size` (Kiln fills it with zeros)."""
    return ops.zeros(_size(size, "empty"), _default_float(dtype))


@_named("empty_like")
def _mint_empty_like(input, *, dtype=None, device=None, pin_memory: bool = False) -> Tensor:
    """A tensor of `input`'s shape (Kiln fills it with zeros)."""
    return ops.zeros_like(input, dtype=dtype)


@_named("zeros_like")
def _mint_zeros_like(input, *, dtype=None) -> Tensor:
    """Zeros of `input`'s shape (and dtype unless `dtype`)."""
    return ops.zeros_like(input, dtype=dtype)


@_named("ones_like")
def _mint_ones_like(input, *, dtype=None) -> Tensor:
    """Ones of `input`'s shape (and dtype unless `dtype`)."""
    return ops.ones_like(input, dtype=dtype)


@_named("full")
def _mint_full(size, fill_value, *, dtype=None) -> Tensor:
    """Tensor of `size` filled with `fill_value`."""
    return ops.full(_size((size,), "full"), fill_value, dtype=dtype)


@_named("full_like")
def _mint_full_like(input, fill_value, *, dtype=None) -> Tensor:
    """Tensor of `input`'s shape filled with `fill_value`."""
    return ops.full_like(input, fill_value, dtype=dtype)


@_named("arange")
def _mint_arange(start=0, end=None, step=1, *, dtype=None) -> Tensor:
    """start, start + step, ... up to `end` (excluded); int64 for integer arguments, else float32."""
    return ops.arange(start, end, step, dtype=dtype)


@_named("linspace")
def _mint_linspace(start, end, steps: int, *, dtype=None) -> Tensor:
    """`steps` evenly spaced values from start to end (both included)."""
    out = ops.linspace(float(start), float(end), int(steps))
    return _cast(out, dtype)


@_named("eye")
def _mint_eye(n: int, m=None, dtype=None) -> Tensor:
    """Identity matrix n x m (float32 unless `dtype`)."""
    return ops.eye(n, m, _default_float(dtype))


@_named("rand")
def _mint_rand(*size, generator=None, dtype=None, device=None) -> Tensor:
    """Uniform [0, 1) samples of `size`."""
    ignore_argument("mint.rand", "generator", generator, reason=GLOBAL_STREAM)
    return ops.rand(*_size(size, "rand"), dtype=dtype)


@_named("randn")
def _mint_randn(*size, generator=None, dtype=None, device=None) -> Tensor:
    """Standard normal samples of `size`."""
    ignore_argument("mint.randn", "generator", generator, reason=GLOBAL_STREAM)
    return ops.randn(*_size(size, "randn"), dtype=dtype)


@_named("rand_like")
def _mint_rand_like(input, *, dtype=None, device=None) -> Tensor:
    """Uniform [0, 1) samples of `input`'s shape."""
    return ops.rand_like(input, dtype=dtype)


@_named("randn_like")
def _mint_randn_like(input, *, dtype=None, device=None) -> Tensor:
    """Standard normal samples of `input`'s shape."""
    return ops.randn_like(input, dtype=dtype)


@_named("randint")
def _mint_randint(*args, generator=None, dtype=None, device=None) -> Tensor:
    """`randint(high, size)` or `randint(low, high, size)`: integers in [low, high) (int64 unless `dtype`)."""
    ignore_argument("mint.randint", "generator", generator, reason=GLOBAL_STREAM)
    if len(args) == 2:
        low, (high, size) = 0, args
    elif len(args) == 3:
        low, high, size = args
    else:
        raise TypeError(f"randint() takes (high, size) or (low, high, size), but got {len(args)} arguments.")
    return ops.randint(int(low), int(high), _size((size,), "randint"), dtype=dtype or mstype.int64)


@_named("randint_like")
def _mint_randint_like(input, *args, dtype=None, device=None) -> Tensor:
    """`randint_like(input, high)` or `randint_like(input, low, high)`."""
    low, high = (0, args[0]) if len(args) == 1 else args
    out = ops.randint(int(low), int(high), tuple(input.shape), dtype=mstype.int64)
    return ops.cast(out, dtype or input.dtype)


@_named("randperm")
def _mint_randperm(n: int, *, generator=None, dtype=mstype.int64) -> Tensor:
    """A random permutation of 0..n-1."""
    ignore_argument("mint.randperm", "generator", generator, reason=GLOBAL_STREAM)
    return ops.cast(ops.argsort(ops.rand(int(n))), dtype)


@_named("normal")
def _mint_normal(mean=0.0, std=1.0, size=None, generator=None) -> Tensor:
    """Normal samples: mean and std are numbers (then `size` gives the shape) or tensors (broadcast)."""
    ignore_argument("mint.normal", "generator", generator, reason=GLOBAL_STREAM)
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        ref = ops.add(
            ops.zeros_like(mean) if isinstance(mean, Tensor) else mean,
            ops.zeros_like(std) if isinstance(std, Tensor) else std,
        )
        return ops.add(ops.mul(ops.randn_like(ref), std), mean)
    if size is None:
        raise TypeError("normal(): 'size' is needed when 'mean' and 'std' are numbers.")
    return ops.add(ops.mul(ops.randn(*_size((size,), "normal")), float(std)), float(mean))


@_named("bernoulli")
def _mint_bernoulli(input, *, generator=None) -> Tensor:
    """1 with probability input[i], else 0 (input's dtype)."""
    ignore_argument("mint.bernoulli", "generator", generator, reason=GLOBAL_STREAM)
    return ops.cast(ops.less(ops.rand_like(input, dtype=_float_dtype(input)), input), input.dtype)


@_named("multinomial")
def _mint_multinomial(input, num_samples: int, replacement: bool = False, *, generator=None) -> Tensor:
    """Indices (int64) drawn from the rows of `input` (non-negative weights)."""
    ignore_argument("mint.multinomial", "generator", generator, reason=GLOBAL_STREAM)
    return ops.cast(ops.multinomial(input, num_samples, replacement), mstype.int64)
