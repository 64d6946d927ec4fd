"""`Distribution`: the base Cell of every probability distribution.

A distribution keeps default parameters given at construction (as Tensors of `parameter_type`); every method
also takes the parameters per call (`dist_spec_args`: Tensors, in the order of `parameter_names`), which then
replace the defaults for that call only. Parameters are broadcast against each other; values are broadcast
against the parameters.

A subclass implements the private methods it can (`_prob` or `_log_prob`, `_cdf`, `_mean`, `_sample` ...);
the public ones derive what is missing (prob from log_prob, survival from cdf, sd from var, cross entropy
from entropy and KL ...) and raise NotImplementedError for what cannot be derived. Methods are plain Python
on Kiln ops, so they run in PyNative and compile inside a `construct` in graph mode.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable

import numpy as np

from kiln import ops
from kiln._core import dtype as mstype
from kiln._core.tensor import Tensor
from kiln.nn.cell import Cell
from kiln.nn.probability.distribution._utils.utils import (
    CheckTensor,
    CheckTuple,
    cast_to_tensor,
    raise_none_error,
    raise_not_implemented,
    read_only,
    set_param_type,
)

_PUBLIC = (
    "prob",
    "log_prob",
    "cdf",
    "log_cdf",
    "survival_function",
    "log_survival",
    "mean",
    "sd",
    "var",
    "mode",
    "entropy",
    "kl_loss",
    "cross_entropy",
    "sample",
    "get_dist_args",
    "get_dist_type",
)
_PRIVATE = (
    "_prob",
    "_log_prob",
    "_cdf",
    "_log_cdf",
    "_survival_function",
    "_log_survival",
    "_mean",
    "_sd",
    "_var",
    "_mode",
    "_entropy",
    "_kl_loss",
    "_cross_entropy",
    "_sample",
    "_get_dist_args",
    "_get_dist_type",
)

FLOAT_TYPES = (mstype.float16, mstype.float32, mstype.float64, mstype.bfloat16)
INT_TYPES = (mstype.int8, mstype.int16, mstype.int32, mstype.int64, mstype.uint8, mstype.uint16)
NUMBER_TYPES = FLOAT_TYPES + INT_TYPES


def check_dtype(dtype, valid, cls_name):
    """TypeError unless `dtype` is one of `valid`."""
    if dtype not in valid:
        raise TypeError(f"For '{cls_name}', 'dtype' must be one of {[str(t) for t in valid]}, but got {dtype}.")


def broadcast_shape(*shapes):
    """The broadcast of `shapes` (ValueError when they do not broadcast)."""
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        raise ValueError(f"shapes {list(shapes)} cannot be broadcast together.") from None


def _param_shape(v):
    if isinstance(v, Tensor):
        return tuple(v.shape)
    return np.shape(v)


def _one_minus(x):
    return 1.0 - x


def _one_minus_exp(x):
    return 1.0 - ops.exp(x)


def _log_one_minus(x):
    return ops.log1p(-x)


def _log_one_minus_exp(x):
    return ops.log1p(-ops.exp(x))


# The public methods (MindSpore's names): name -> (docstring, derivations). Each method is the subclass's private
# one (`_prob` for `prob` ...) or, lacking that, the first derivation (source, derive) that applies:
# derive(self.<source>(...)), used when the subclass has `source` (always, for a public source).
_PUBLIC_METHODS = {
    "prob": ("Probability (density or mass) of `value`.", (("_log_prob", ops.exp),)),
    "log_prob": ("Log probability (density or mass) of `value`.", (("_prob", ops.log),)),
    "cdf": (
        "Cumulative distribution function at `value`.",
        (("_log_cdf", ops.exp), ("_survival_function", _one_minus), ("_log_survival", _one_minus_exp)),
    ),
    "log_cdf": ("Log of the cumulative distribution function at `value`.", (("cdf", ops.log),)),
    "survival_function": (
        "1 - cdf(value).",
        (("_log_survival", ops.exp), ("_cdf", _one_minus), ("_log_cdf", _one_minus_exp)),
    ),
    "log_survival": (
        "log(1 - cdf(value)).",
        (("_survival_function", ops.log), ("_cdf", _log_one_minus), ("_log_cdf", _log_one_minus_exp)),
    ),
    "mean": ("The mean.", ()),
    "mode": ("The mode.", ()),
    "sd": ("The standard deviation.", (("_var", ops.sqrt),)),
    "var": ("The variance.", (("_sd", ops.square),)),
    "entropy": ("The (differential) entropy.", ()),
    "kl_loss": ("KL(self || other), `other` a distribution of type `dist` (a name) with parameters `args`.", ()),
    "sample": ("Samples of shape `shape + batch shape` (`shape` the first argument, default ()).", ()),
    "get_dist_args": (
        "The parameters given (Tensors), with the defaults for those not given (None where there is none).",
        (),
    ),
}

# the arguments before `*args` of the public methods that have any (the others take `*args, **kwargs` only)
_LEADING = {"prob": "value", "log_prob": "value", "cdf": "value", "log_cdf": "value", "survival_function": "value",
            "log_survival": "value", "kl_loss": "dist"}  # fmt: skip


def _public(name: str, doc: str, derivations: tuple) -> Callable:
    """The public method `name` of a distribution: the subclass's `_<name>` when it has one, else the first of
    `derivations` that applies, else NotImplementedError.

    Args:
        name: the public method's name.
        doc: its docstring.
        derivations: `(source, derive)` pairs, as in `_PUBLIC_METHODS`.

    Returns:
        The method, with the signature `(self, <leading argument>, *args, **kwargs)` (see `_LEADING`).
    """

    def method(self, *args, **kwargs):
        if getattr(self, "_has_" + name):
            return getattr(self, "_" + name)(*args, **kwargs)
        for source, derive in derivations:
            if not source.startswith("_") or getattr(self, "_has" + source):
                return derive(getattr(self, source)(*args, **kwargs))
        return raise_not_implemented(name, self.name)

    method.__name__ = name
    method.__doc__ = doc
    params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    if name in _LEADING:
        params.append(inspect.Parameter(_LEADING[name], inspect.Parameter.POSITIONAL_OR_KEYWORD))
    params += [inspect.Parameter("args", inspect.Parameter.VAR_POSITIONAL),
               inspect.Parameter("kwargs", inspect.Parameter.VAR_KEYWORD)]  # fmt: skip
    method.__signature__ = inspect.Signature(params)
    return method


def _with_public_methods(cls: type) -> type:
    """Install the methods of `_PUBLIC_METHODS` on `cls` (the Distribution base class)."""
    for name, (doc, derivations) in _PUBLIC_METHODS.items():
        method = _public(name, doc, derivations)
        method.__qualname__ = f"{cls.__qualname__}.{name}"
        setattr(cls, name, method)
    return cls


@_with_public_methods
class Distribution(Cell):
    """Base class of the distributions.

    Args:
        seed (int): the seed of the sampling ops (None or 0: Kiln's global generator).
        dtype (mindspore.dtype): the type of the samples.
        name (str): the distribution's name.
        param (dict): the constructor's arguments (`dict(locals())`) with `param_dict`: the distribution's
            parameters by name.
    """

    def __init__(self, seed, dtype, name, param):
        super().__init__()
        if seed is None:
            seed = 0
        if not isinstance(name, str):
            raise TypeError(f"For '{type(self).__name__}', 'name' must be a str, but got {type(name).__name__}.")
        if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
            raise TypeError(f"For '{name}', 'seed' must be an int, but got {type(seed).__name__}.")
        if seed < 0:
            raise ValueError(f"For '{name}', 'seed' must be >= 0, but got {seed}.")
        self._name = name
        self._seed = int(seed)
        self._dtype = dtype
        self._parameters = {k: v for k, v in param.items() if k != "self" and not k.startswith("_")}
        self.default_parameters = []
        self.parameter_names = []
        self._batch_shape = None
        self._is_scalar_batch = True
        if "distribution" not in self._parameters:
            param_dict = self._parameters.get("param_dict", {})
            self.parameter_type = set_param_type(param_dict, dtype)
            self._batch_shape = self._calc_batch_shape(param_dict)
            self._is_scalar_batch = all(v is None or isinstance(v, (int, float)) for v in param_dict.values())
        else:
            self.parameter_type = dtype
        self._broadcast_shape = self._batch_shape
        for n in _PRIVATE:
            setattr(self, "_has" + n, callable(getattr(self, n, None)))
        # kept for subclasses written against MindSpore's base; not registered as sub-cells (they hold nothing)
        object.__setattr__(self, "checktuple", CheckTuple())
        object.__setattr__(self, "checktensor", CheckTensor())

    # ---- properties ------------------------------------------------------------------------------------------

    name = read_only("_name")
    dtype = read_only("_dtype")
    seed = read_only("_seed")
    parameters = read_only("_parameters")
    is_scalar_batch = read_only("_is_scalar_batch")
    batch_shape = read_only("_batch_shape")
    broadcast_shape = read_only("_broadcast_shape")

    # ---- parameters ------------------------------------------------------------------------------------------

    @staticmethod
    def _calc_batch_shape(param_dict):
        shapes = []
        for v in param_dict.values():
            if v is None:
                return None
            shapes.append(_param_shape(v))
        return broadcast_shape(*shapes) if shapes else ()

    def _reset_parameters(self):
        self.default_parameters = []
        self.parameter_names = []

    def _add_parameter(self, value, name):
        """Record a default parameter (None: must be given per call); returns it as a Tensor."""
        value_t = None if value is None else cast_to_tensor(value, self.parameter_type)
        setattr(self, "_default_" + name, value_t)  # read back by attribute: a Parameter stays graph state
        self.default_parameters.append(value_t)
        self.parameter_names.append(name)
        return value_t

    def _check_param_type(self, *args):
        """The parameters of one call: each given Tensor (else the default), cast and broadcast together."""
        out = []
        for arg, name in zip(args, self.parameter_names):
            if arg is None:
                default = getattr(self, "_default_" + name)
                if default is None:
                    raise_none_error(name)
                arg = default
            elif not isinstance(arg, Tensor):
                raise TypeError(f"'{name}' must be a Tensor or Parameter, but got {type(arg).__name__}.")
            out.append(ops.cast(arg, self.parameter_type))
        if len(out) == 1:
            return out[0]
        shape = broadcast_shape(*[a.shape for a in out])
        return tuple(a if a.shape == shape else ops.broadcast_to(a, shape) for a in out)

    def _args_by_name(self, args, kwargs):
        """`dist_spec_args` given by position and/or by name, as one list in `parameter_names` order."""
        vals = list(args) + [None] * (len(self.parameter_names) - len(args))
        for i, n in enumerate(self.parameter_names):
            if n in kwargs:
                vals[i] = kwargs[n]
        return vals

    def _dist_args(self, args, kwargs):
        """`get_dist_args`: each parameter given (checked to be a Tensor) or else the default (None if none)."""
        out = []
        for v, n in zip(self._args_by_name(args, kwargs), self.parameter_names):
            out.append(getattr(self, "_default_" + n) if v is None else self._check_value(v, n))
        return tuple(out)

    def _check_value(self, value, name):
        if not isinstance(value, Tensor):
            raise TypeError(f"'{name}' must be a Tensor or Parameter, but got {type(value).__name__}.")
        return value

    def _float_value(self, value, name="value"):
        return ops.cast(self._check_value(value, name), self.parameter_type)

    def _check_shape(self, shape):
        if not isinstance(shape, tuple):
            raise TypeError(f"'shape' must be a tuple, but got {type(shape).__name__}.")
        return shape

    # ---- public methods: prob, log_prob, cdf, log_cdf, survival_function, log_survival, mean, mode, sd, var,
    # entropy, kl_loss, sample and get_dist_args come from _PUBLIC_METHODS (@_with_public_methods) ----------------

    def cross_entropy(self, dist, *args, **kwargs):
        """H(self, other) = entropy(self) + KL(self || other)."""
        if self._has_cross_entropy:
            return self._cross_entropy(dist, *args, **kwargs)
        if self._has_kl_loss and self._has_entropy:
            n = len(self.parameter_names)
            return self._entropy(*args[n:], **kwargs) + self._kl_loss(dist, *args, **kwargs)
        return raise_not_implemented("cross_entropy", self.name)

    def get_dist_type(self, *args, **kwargs):
        """The distribution's type name ("Normal" ...); parameters passed in are ignored."""
        if self._has_get_dist_type:
            return self._get_dist_type()
        return raise_not_implemented("get_dist_type", self.name)

    def construct(self, name, *args, **kwargs):
        """`dist("prob", value, ...)`: the method `name` called with the other arguments."""
        if name not in _PUBLIC:
            raise ValueError(f"{name} is not a method of {self.name}: expected one of {list(_PUBLIC)}.")
        return getattr(self, name)(*args, **kwargs)

    def extend_repr(self):
        if self._is_scalar_batch and self.default_parameters and all(v is not None for v in self.default_parameters):
            vals = ", ".join(f"{n} = {v}" for n, v in zip(self.parameter_names, self.default_parameters))
            return vals
        return f"batch_shape = {self._batch_shape}"
